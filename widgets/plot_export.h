// SPDX-License-Identifier: GPL-3.0-or-later
// Export for any QCustomPlot, implemented once: a context menu (right click) with
//   Copy image · Save image as PNG / SVG / PDF · Export data as CSV / JSON (visible range or all).
// The data come from the view that owns the plot (a PlotDataProvider: e.g. LossCurveView hands
// over every stored point, not the decimated ones drawn) or, by default, from the plot itself
// (every graph/curve point and every colour-map cell, with axis-range filtering for "visible").
// Files are written through QSaveFile (atomic); the last export folder is kept in QSettings
// ("paths/export").
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>

class QCustomPlot;
class QMenu;
class QWidget;

namespace rsalab {

// Renders `plot` without showing it into `path`, by its suffix: .png (at pixel_ratio × the size),
// .svg (QSvgGenerator, vector) or .pdf, at width × height (0: the plot's own size, at least
// 320 × 240). Written through QSaveFile, so a failed write leaves any previous file intact.
// False and *error (naming the file or the problem) on failure. Used by the context menu, the
// sample-efficiency view and `rsalab-cli sweep --figures`.
bool savePlot(QCustomPlot* plot, const QString& path, int width, int height,
              QString* error = nullptr, double pixel_ratio = 1.0);

// One named table of numbers (a curve: step, loss; a heat map: row, column, value).
struct PlotDataTable {
  QString name;
  QStringList columns;
  QVector<QVector<double>> rows;
};
using PlotDataProvider = std::function<QVector<PlotDataTable>(bool visible_only)>;

// What the plot itself holds: 1-D plottables as (x, y) and colour maps as (x, y, value) cells;
// `visible_only` keeps visible plottables and points inside the current axis ranges.
QVector<PlotDataTable> plotData(QCustomPlot* plot, bool visible_only);
// One table: its columns. Several: a leading "series" column and the union of the columns.
QString tablesCsv(const QVector<PlotDataTable>& tables);
// [{"name": …, "columns": […], "rows": [[…], …]}]; non-finite numbers become null.
QByteArray tablesJson(const QVector<PlotDataTable>& tables);

class PlotExport : public QObject {
  Q_OBJECT
 public:
  // Gives `plot` the context menu; the PlotExport is a child of the plot. An empty provider
  // means plotData(plot, …).
  static PlotExport* attach(QCustomPlot* plot, PlotDataProvider data = {});
  static PlotExport* of(const QCustomPlot* plot);  // the attached one, or nullptr

  QVector<PlotDataTable> data(bool visible_only) const;
  // By the suffix: .png, .svg or .pdf (images), .csv or .json (data). False + *error on failure.
  bool saveImage(const QString& path, QString* error = nullptr) const;
  bool saveData(const QString& path, bool visible_only, QString* error = nullptr) const;
  void copyImage() const;  // to the clipboard, at screen resolution
  // The context menu (owned by `parent`); the actions carry object names for tests.
  QMenu* buildMenu(QWidget* parent);

 signals:
  /// A file was written; consumed by the app's log.
  void exported(const QString& path);

 private:
  PlotExport(QCustomPlot* plot, PlotDataProvider data);
  void saveImageInteractively();
  void saveDataInteractively(bool visible_only);
  QCustomPlot* plot_;
  PlotDataProvider data_;
};

}  // namespace rsalab
