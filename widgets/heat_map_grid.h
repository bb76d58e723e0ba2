// SPDX-License-Identifier: GPL-3.0-or-later
// HeatMapGrid: small multiples of one matrix per (layer, head) — rows are layers, columns heads —
// each with a caller-supplied title ("L0 H1 cos γ=0.91 θ=0.52 σ(µ)=0.43"). Clicking a cell emits
// cellActivated so the caller can open it large in a HeatMapView.
//
// Cheap by construction: all cells live in one QCustomPlot (one replot for the whole grid), the
// cells are rebuilt only when the grid size changes, each cell is block-averaged to at most
// kMaxCellSide per axis for drawing, and updates are drawn by one ~40 ms timer (style item 6).
// By default all cells share one colour scale (comparable colours across heads).
#pragma once

#include <QPointer>
#include <QString>
#include <QWidget>
#include <vector>

#include "engine/core/io/inspection.h"
#include "widgets/heat_map_support.h"
#include "widgets/repaint_throttle.h"

class QCustomPlot;
class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QMouseEvent;

namespace rsalab {

class HeatMapView;

class HeatMapGrid : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxCellSide = 128;
  static constexpr int kMinCellPixels = 90;  // below this the grid scrolls instead of shrinking
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;

  explicit HeatMapGrid(QWidget* parent = nullptr);
  ~HeatMapGrid() override;  // closes the enlarged window

  // Rebuilds the cells only when the size changes; cell data is kept otherwise.
  void setGridSize(int layers, int heads);
  int layerCount() const { return layers_; }
  int headCount() const { return heads_; }
  // Optional hover labels for the matrix rows / columns (tokens, positions) and a name for the
  // cell in tooltips (default "L<layer> H<head>", the grid position).
  void setCell(int layer, int head, const Matrix& m, const QString& title,
               const QStringList& row_labels = {}, const QStringList& col_labels = {},
               const QString& name = {});
  const Matrix& cellMatrix(int layer, int head) const;
  QString cellTitle(int layer, int head) const;

  void setColorMode(ColorMode mode);
  ColorMode resolvedColorMode() const { return mode_; }
  void setSharedScale(bool shared);  // false: each cell scales to its own data, no colour bar
  bool sharedScale() const { return shared_; }
  QCPColorScale* colorScale() const { return scale_; }     // the shared colour bar
  double colorValueLower() const { return range_.lower; }  // shared range
  double colorValueUpper() const { return range_.upper; }

  // (layer, head) under a widget-local position as QPoint(head, layer); (-1, -1) if none.
  QPoint cellAt(const QPoint& widget_pos) const;
  // Widget-local rectangle of a cell's map (after a flush), for tests and overlays.
  QRect cellRect(int layer, int head) const;
  // "L0 H1 — row r (label), col c (label): value" for a matrix cell of one grid cell.
  QString tooltipFor(int layer, int head, int row, int col) const;
  // How many times the cells were (re)built; unchanged by setCell or same-size setGridSize.
  int rebuildCount() const { return rebuild_count_; }

  void flush();  // draw pending data now (tests, grabs)

  // Clicking a cell also opens it large in its own HeatMapView window (one, reused), with the
  // cell's hover labels; that window follows later setCell calls for the same cell.
  void setEnlargeOnClick(bool enlarge) { enlarge_on_click_ = enlarge; }
  HeatMapView* enlargedView() const;
  void enlarge(int layer, int head);

 signals:
  /// A cell was clicked; the caller enlarges (layer, head) in a HeatMapView.
  void cellActivated(int layer, int head);

 protected:
 private:
  struct Cell {
    Matrix matrix;
    QString title;
    QString name;
    QStringList row_labels, col_labels;
    QCPAxisRect* rect = nullptr;
    QCPColorMap* map = nullptr;
    QCPTextElement* title_element = nullptr;
    bool dirty = false;
  };
  Cell* cell(int layer, int head);
  const Cell* cell(int layer, int head) const;
  void rebuild();
  void markDirty();
  void applyPending();
  void onMouseMove(QMouseEvent* event);
  void onMousePress(QMouseEvent* event);

  QCustomPlot* plot_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  std::vector<Cell> cells_;  // layer-major
  int layers_ = 0, heads_ = 0;
  ColorMode requested_mode_ = ColorMode::kAuto;
  ColorMode mode_ = ColorMode::kSequential;
  QCPRange range_{0, 1};
  bool shared_ = true;
  bool scale_dirty_ = false;
  int rebuild_count_ = 0;
  bool enlarge_on_click_ = false;
  QPointer<HeatMapView> enlarged_;
  int enlarged_layer_ = -1, enlarged_head_ = -1;
  RepaintThrottle repaint_{this, [this] { applyPending(); }};
};

}  // namespace rsalab
