// SPDX-License-Identifier: GPL-3.0-or-later
// RegimeMapView: the RSA paper's Figure 1 as a live view. A two-axis sweep (a task parameter such
// as the mix task's recurrent share a, and the training-set size N) is drawn as one heat map per
// model — x the axis values as evenly spaced columns, y one row per N, ascending upward (the sizes
// are log-spaced, so the rows are too), colour the mean excess test loss over seeds — all on one
// shared, locked colour scale (one colour bar; log when the means span more than a decade; low =
// deep colour, "deeper is better"), and a winner map: each cell in the colour of the model that
// wins it by the rule of engine/core/verdicts/regime_map.h (best mean below the runner-up's by more
// than their spreads), grey and marked "tie" where the spreads overlap, empty while pending. Points
// arrive one by one (addPoint) as runs finish; like every view here it only marks itself dirty and
// redraws from one ~40 ms timer. Hovering a cell shows every model's mean ± sd there and the
// verdict; a click on a cell emits runClicked with that cell's lowest run id (on the winner map:
// the winning model's cell). Exports: PNG / SVG / PDF (widgets/plot_export.h and the plot's context
// menu) and the cells as CSV. Input is plain data (no LibTorch).
#pragma once

#include <QColor>
#include <QPoint>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "engine/core/verdicts/regime_map.h"
#include "widgets/repaint_throttle.h"

class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPLayoutGrid;
class QCPMarginGroup;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QPushButton;
class QStackedWidget;

namespace rsalab {

class RegimeMapView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;
  static inline const QColor kTieColor{205, 205, 205};

  explicit RegimeMapView(QWidget* parent = nullptr);

  void addPoint(const RegimePoint& point);
  void setPoints(const std::vector<RegimePoint>& points);
  void clear();
  int pointCount() const { return static_cast<int>(points_.size()); }

  // The swept parameter's name ("mix.share"); the x axes read axisTitle(name).
  void setAxisName(const QString& name);
  QString axisName() const { return axis_name_; }
  // "recurrent share a (mix.share)" for the parameters this app knows, else the name itself.
  static QString axisTitle(const QString& name);
  void setTitle(const QString& title);  // above the maps (e.g. task and budget)
  // What the view says instead of the maps while it has no point (the app: "this sweep has no
  // task axis — …").
  void setEmptyMessage(const QString& text);
  // A button under the empty state's message (e.g. "Run the Figure 1 preset"): a GUI user gets
  // an action, not a command to type. Clicked: emptyActionClicked(). Empty label: no button.
  void setEmptyAction(const QString& label);
  QPushButton* emptyActionButton() const { return empty_action_; }
  bool showsMaps() const;  // false while the empty message (or the no-floor note) is shown

  const RegimeMap& regimeMap() const;  // what is drawn: the core library's aggregation
  QStringList models() const;          // in the maps' order (registry order, unknown ones after)

  void flush();  // redraw pending points now (tests, grabs)
  // After a redraw. The model's heat map (nullptr if it has none) and the shared colour scale.
  QCPColorMap* colorMap(const QString& model) const;
  QCPColorScale* colorScale() const { return scale_; }
  bool logColorScale() const { return log_scale_; }
  int gridColumns() const { return columns_; }  // maps per row of the last layout
  // The winner map's fill at (axis value, N): the winner's model colour, kTieColor for a tie,
  // invalid while pending (the cell is empty); and its text ("tie" or empty).
  QColor winnerColor(double axis_value, int64_t size) const;
  QString winnerText(double axis_value, int64_t size) const;
  // Centre of a cell in plot-widget pixels; an empty model means the winner map. (-1, -1) if none.
  QPoint cellPixel(const QString& model, double axis_value, int64_t size) const;
  // The tooltip of a cell (every model's mean ± sd (n seeds) and the verdict), and at a pixel.
  QString toolTip(double axis_value, int64_t size) const;
  QString toolTipAt(const QPoint& pixel) const;
  int runAt(const QPoint& pixel) const;  // the run a click there opens, or -1

  // One line per model cell: model, axis_value, N, seeds, mean, sd, verdict, best.
  QString cellsCsv() const;
  bool saveCsv(const QString& path, QString* error = nullptr) const;
  // PNG / SVG / PDF by suffix, at width × height (0: current size); see widgets/plot_export.h.
  bool saveImage(const QString& path, int width = 0, int height = 0, QString* error = nullptr);
  QCustomPlot* plot() const { return plot_; }

 signals:
  /// A cell was clicked: its lowest run id; MainWindow opens that run's curves and inspector.
  void runClicked(int run_id);
  /// The empty state's action button was pressed.
  void emptyActionClicked();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // One drawn map: a model's (model set) or the winner map (model empty).
  struct Panel {
    QString model;
    QCPAxisRect* rect = nullptr;
    QCPColorMap* map = nullptr;
  };
  void markDirty();
  void redraw();
  // The drawing (regime_map_drawing.cpp).
  static int columnOf(const RegimeMap& m, double axis_value);  // -1 if not an axis value
  static int rowOf(const RegimeMap& m, int64_t size);          // -1 if not a size
  void build(QSize size);  // lays out and fills the plot for a widget of this size
  int columnsFor(QSize size, int panels) const;
  void addWinnerCells(QCPAxisRect* rect);
  void addLegend(QCPLayoutGrid* row, const QStringList& models);  // below the maps
  // The panel and cell under a pixel; false outside every map.
  bool cellAt(const QPoint& pixel, const Panel** panel, double* axis_value, int64_t* size) const;
  void exportCsvInteractively();
  void saveFigureInteractively();
  void onMouseRelease(QMouseEvent* event);

  QStackedWidget* stack_ = nullptr;
  QWidget* empty_page_ = nullptr;  // the message and the optional action button
  QLabel* empty_label_ = nullptr;
  QPushButton* empty_action_ = nullptr;
  QLabel* summary_label_ = nullptr;
  QPushButton* csv_button_ = nullptr;
  QPushButton* figure_button_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPMarginGroup* margins_ = nullptr;  // aligns the maps' axis rects; replaced per layout
  std::vector<Panel> panels_;
  std::vector<RegimePoint> points_;
  mutable RegimeMap map_;
  mutable bool map_stale_ = false;
  QString axis_name_, title_, empty_message_;
  bool log_scale_ = false;
  int columns_ = 0;  // of the last layout: a resize that changes it redraws
  QPoint press_pos_;
  RepaintThrottle repaint_{this, [this] { redraw(); }};
};

}  // namespace rsalab
