// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/heat_map_view.h"

#include <qcustomplot.h>

#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/plot_export.h"

namespace rsalab {

namespace {
// Above this many positions, label only every k-th one so tick labels stay readable.
constexpr int kMaxLabelledTicks = 40;
}  // namespace

HeatMapView::HeatMapView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  plot_ = new QCustomPlot(this);
  plot_->setMouseTracking(true);
  layout->addWidget(plot_);
  // The full-resolution matrix (the drawing is capped at kMaxDrawnCells per axis); "visible"
  // is the whole matrix too, since the map always shows all of it.
  PlotExport::attach(plot_, [this](bool) {
    PlotDataTable t;
    t.name = title_ && !title_->text().isEmpty() ? title_->text() : QString("heat map");
    t.columns = {"row", "column", "value"};
    for (int64_t r = 0; r < matrix_.rows; ++r) {
      for (int64_t c = 0; c < matrix_.cols; ++c)
        t.rows.push_back({double(r), double(c), matrix_.at(r, c)});
    }
    return QVector<PlotDataTable>{t};
  });

  plot_->plotLayout()->insertRow(0);
  title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), 10, QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_);

  auto* rect = plot_->axisRect();
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  map_->setInterpolate(false);
  map_->setTightBoundary(false);
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  scale_->setBarWidth(12);
  map_->setColorScale(scale_);
  auto* group = new QCPMarginGroup(plot_);
  rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  scale_->setMarginGroup(QCP::msTop | QCP::msBottom, group);

  plot_->yAxis->setRangeReversed(true);  // row 0 at the top, as matrices are written
  plot_->xAxis->setLabel(tr("column"));
  plot_->yAxis->setLabel(tr("row"));
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->grid()->setVisible(false);
    axis->setTicker(QSharedPointer<QCPAxisTickerFixed>::create());
  }

  pin_marker_ = new QCPItemRect(plot_);
  pin_marker_->setPen(QPen(Qt::black, 2));
  pin_marker_->setBrush(Qt::NoBrush);
  pin_marker_->setVisible(false);

  gradient_ = viridisGradient();
  map_->setGradient(gradient_);
  updateTicks();

  connect(plot_, &QCustomPlot::mouseMove, this, &HeatMapView::onMouseMove);
  connect(plot_, &QCustomPlot::mousePress, this, &HeatMapView::onMousePress);
}

void HeatMapView::setMatrix(const Matrix& m, const QStringList& row_labels,
                            const QStringList& col_labels) {
  if (m.values.size() != size_t(std::max<int64_t>(m.rows, 0) * std::max<int64_t>(m.cols, 0))) {
    qWarning("HeatMapView: %lld x %lld matrix with %zu values ignored", (long long)m.rows,
             (long long)m.cols, m.values.size());
    return;
  }
  const bool shape_changed = m.rows != matrix_.rows || m.cols != matrix_.cols;
  matrix_ = m;
  row_labels_ = row_labels;
  col_labels_ = col_labels;
  if (!locked_ || !have_locked_range_) {
    mode_ = resolveColorMode(requested_mode_, matrix_);
    range_ = colorRangeFor(mode_, matrix_);
    gradient_ = mode_ == ColorMode::kDiverging ? divergingGradient() : viridisGradient();
    have_locked_range_ = locked_;
  }
  if (shape_changed && (pinned_row_ >= m.rows || pinned_col_ >= m.cols)) clearPin();
  markDirty();
}

void HeatMapView::setTitle(const QString& title) {
  title_->setText(title);
  markDirty();
}

void HeatMapView::setAxisLabels(const QString& column_axis, const QString& row_axis) {
  plot_->xAxis->setLabel(column_axis);
  plot_->yAxis->setLabel(row_axis);
  markDirty();
}

void HeatMapView::setValueLabel(const QString& label) {
  scale_->setLabel(label);
  markDirty();
}

void HeatMapView::setColorMode(ColorMode mode) {
  requested_mode_ = mode;
  if (locked_ && have_locked_range_) return;  // the locked scale wins until unlocked
  mode_ = resolveColorMode(mode, matrix_);
  range_ = colorRangeFor(mode_, matrix_);
  gradient_ = mode_ == ColorMode::kDiverging ? divergingGradient() : viridisGradient();
  markDirty();
}

void HeatMapView::setScaleLocked(bool locked) {
  locked_ = locked;
  // Locking keeps the current range when there is data, else the range of the next update.
  have_locked_range_ = locked && !matrix_.empty();
  if (!locked) setColorMode(requested_mode_);
}

QColor HeatMapView::colorForValue(double value) const {
  return QColor::fromRgb(gradient_.color(value, range_, false));
}

QString HeatMapView::tooltipFor(int row, int col) const {
  if (row < 0 || col < 0 || row >= matrix_.rows || col >= matrix_.cols) return QString();
  return QStringLiteral("row %1, col %2: %3")
      .arg(positionText(row, row_labels_), positionText(col, col_labels_))
      .arg(double(matrix_.at(row, col)), 0, 'g', 6);
}

QPoint HeatMapView::cellAt(const QPoint& widget_pos) const {
  const QPoint p = plot_->mapFrom(this, widget_pos);
  // One pixel of slack: QCustomPlot maps coordinates through QRect::bottom()/right(), which are
  // one short, so edge cells' pixels can sit just outside rect().
  if (matrix_.empty() || !plot_->axisRect()->rect().adjusted(-1, -1, 1, 1).contains(p)) {
    return QPoint(-1, -1);
  }
  // Cell c spans [c - 0.5, c + 0.5); the data area spans the matrix exactly, so clamping only
  // moves edge pixels (which pixelToCoord puts at ±0.5 outside) onto the edge cells.
  const int col = int(std::floor(plot_->xAxis->pixelToCoord(p.x()) + 0.5));
  const int row = int(std::floor(plot_->yAxis->pixelToCoord(p.y()) + 0.5));
  return QPoint(std::clamp(col, 0, int(matrix_.cols) - 1),
                std::clamp(row, 0, int(matrix_.rows) - 1));
}

QPoint HeatMapView::cellCenter(int row, int col) const {
  const QPointF p(plot_->xAxis->coordToPixel(col), plot_->yAxis->coordToPixel(row));
  return plot_->mapTo(this, p.toPoint());
}

void HeatMapView::pinCell(int row, int col) {
  if (row < 0 || col < 0 || row >= matrix_.rows || col >= matrix_.cols) return;
  pinned_row_ = row;
  pinned_col_ = col;
  updatePinMarker();
  markDirty();
  emit cellPinned(row, col, double(matrix_.at(row, col)));
}

void HeatMapView::clearPin() {
  pinned_row_ = pinned_col_ = -1;
  updatePinMarker();
  markDirty();
}

void HeatMapView::flush() { repaint_.flush(); }

void HeatMapView::markDirty() { repaint_.markDirty(); }

void HeatMapView::applyPending() {
  if (!matrix_.empty()) {
    const Matrix drawn = downsampleBlockMean(matrix_, kMaxDrawnCells, kMaxDrawnCells);
    fillColorMap(map_, drawn, matrix_.rows, matrix_.cols);
    drawn_size_ = QSize(int(drawn.cols), int(drawn.rows));
    plot_->xAxis->setRange(-0.5, double(matrix_.cols) - 0.5);
    plot_->yAxis->setRange(-0.5, double(matrix_.rows) - 0.5);
  } else {
    map_->data()->clear();
    drawn_size_ = QSize();
  }
  map_->setGradient(gradient_);
  map_->setDataRange(range_);
  updateTicks();
  updatePinMarker();
  plot_->replot();
}

void HeatMapView::updateTicks() {
  auto setAxis = [](QCPAxis* axis, int64_t count, const QStringList& labels) {
    if (labels.isEmpty()) {
      if (!axis->ticker().dynamicCast<QCPAxisTickerFixed>()) {
        axis->setTicker(QSharedPointer<QCPAxisTickerFixed>::create());
      }
      auto fixed = axis->ticker().dynamicCast<QCPAxisTickerFixed>();
      fixed->setTickStep(1.0);
      fixed->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
      axis->setTickLabelRotation(0);
      return;
    }
    auto text = QSharedPointer<QCPAxisTickerText>::create();
    const int every = int((count + kMaxLabelledTicks - 1) / kMaxLabelledTicks);
    int longest = 0;
    for (int i = 0; i < count; i += std::max(every, 1)) {
      const QString label = i < labels.size() ? labels[i] : QString::number(i);
      text->addTick(i, label);
      longest = std::max(longest, int(label.size()));
    }
    axis->setTicker(text);
    // Long token labels on the horizontal axis read better turned.
    if (axis->orientation() == Qt::Horizontal) axis->setTickLabelRotation(longest > 2 ? -60 : 0);
  };
  setAxis(plot_->xAxis, matrix_.cols, col_labels_);
  setAxis(plot_->yAxis, matrix_.rows, row_labels_);
}

void HeatMapView::updatePinMarker() {
  const bool show = pinned_row_ >= 0 && pinned_row_ < matrix_.rows && pinned_col_ < matrix_.cols;
  pin_marker_->setVisible(show);
  if (!show) return;
  pin_marker_->topLeft->setCoords(pinned_col_ - 0.5, pinned_row_ - 0.5);
  pin_marker_->bottomRight->setCoords(pinned_col_ + 0.5, pinned_row_ + 0.5);
}

void HeatMapView::onMouseMove(QMouseEvent* event) {
  const QPoint cell = cellAt(plot_->mapTo(this, event->pos()));
  const QString text = cell.x() >= 0 ? tooltipFor(cell.y(), cell.x()) : QString();
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
  }
}

void HeatMapView::onMousePress(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const QPoint cell = cellAt(plot_->mapTo(this, event->pos()));
  if (cell.x() >= 0) pinCell(cell.y(), cell.x());
}

}  // namespace rsalab
