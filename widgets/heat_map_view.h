// SPDX-License-Identifier: GPL-3.0-or-later
// HeatMapView: one matrix (attention weights, a REM, gate activations) as a colour map with a
// colour bar, position labels, a hover tooltip with the exact value and click-to-pin.
//
// Colours: viridis for non-negative data, blue–white–red centred on 0 (range ±max|v|) for signed
// data, chosen per update (ColorMode::kAuto) or forced. "Lock scale" keeps the range (and mode) of
// the update at which it was locked, so change over training shows as change in colour.
// Cost is bounded: above kMaxDrawnCells rows/columns the matrix is block-averaged for drawing only;
// tooltips and cellPinned always report the true value. Updates are stored and drawn by one ~40 ms
// timer (the GUI never waits on a redraw), so setMatrix may be called at any rate.
#pragma once

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include "engine/core/io/inspection.h"
#include "widgets/heat_map_support.h"
#include "widgets/repaint_throttle.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QCPItemRect;
class QMouseEvent;

namespace rsalab {

class HeatMapView : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxDrawnCells = 512;  // per axis
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;

  explicit HeatMapView(QWidget* parent = nullptr);

  // Row/column labels are optional (e.g. tokens); missing ones fall back to the index.
  void setMatrix(const Matrix& m, const QStringList& row_labels = {},
                 const QStringList& col_labels = {});
  const Matrix& matrix() const { return matrix_; }
  void setTitle(const QString& title);
  void setAxisLabels(const QString& column_axis, const QString& row_axis);
  void setValueLabel(const QString& label);  // colour-bar caption

  void setColorMode(ColorMode mode);
  ColorMode colorMode() const { return requested_mode_; }
  ColorMode resolvedColorMode() const { return mode_; }
  void setScaleLocked(bool locked);
  bool isScaleLocked() const { return locked_; }

  // Current colour range and the colour a value gets under it (for legends and tests).
  double colorValueLower() const { return range_.lower; }
  double colorValueUpper() const { return range_.upper; }
  QColor colorForValue(double value) const;

  // "row r (label), col c (label): value" from the full-resolution matrix; empty outside it.
  QString tooltipFor(int row, int col) const;
  // Matrix cell under a widget-local position; (-1, -1) outside the map. Exact at any size.
  QPoint cellAt(const QPoint& widget_pos) const;
  // Widget-local centre of a matrix cell (after a flush); for overlays and tests.
  QPoint cellCenter(int row, int col) const;
  // Rows × columns actually drawn (≤ kMaxDrawnCells each) after the last flush.
  QSize drawnSize() const { return drawn_size_; }

  bool hasPinnedCell() const { return pinned_row_ >= 0; }
  int pinnedRow() const { return pinned_row_; }
  int pinnedColumn() const { return pinned_col_; }
  void pinCell(int row, int col);  // emits cellPinned
  void clearPin();

  // Draws pending data now instead of at the next timer tick (tests, grabs, exports).
  void flush();

 signals:
  /// A cell was clicked (or pinCell called); the inspector panel shows its details.
  void cellPinned(int row, int col, double value);

 protected:
 private:
  void markDirty();
  void applyPending();
  void updateTicks();
  void updatePinMarker();
  void onMouseMove(QMouseEvent* event);
  void onMousePress(QMouseEvent* event);

  QCustomPlot* plot_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPTextElement* title_ = nullptr;
  QCPItemRect* pin_marker_ = nullptr;

  Matrix matrix_;
  QStringList row_labels_, col_labels_;
  ColorMode requested_mode_ = ColorMode::kAuto;
  ColorMode mode_ = ColorMode::kSequential;
  QCPRange range_{0, 1};
  mutable QCPColorGradient gradient_;  // color() fills its lookup table lazily
  bool locked_ = false;
  bool have_locked_range_ = false;
  QSize drawn_size_;
  int pinned_row_ = -1, pinned_col_ = -1;
  RepaintThrottle repaint_{this, [this] { applyPending(); }};
};

}  // namespace rsalab
