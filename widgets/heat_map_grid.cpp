// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/heat_map_grid.h"

#include <qcustomplot.h>

#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/heat_map_view.h"
#include "widgets/plot_export.h"

namespace rsalab {

namespace {
// Titles longer than this are broken into two lines at the space nearest the middle, so a cell
// stays about as narrow as its map.
constexpr int kMaxTitleLine = 22;

QString wrapTitle(const QString& title) {
  if (title.size() <= kMaxTitleLine || title.contains('\n')) return title;
  const int mid = int(title.size()) / 2;
  int best = -1;
  for (int i = 0; i < title.size(); ++i) {
    if (title[i] == ' ' && (best < 0 || std::abs(i - mid) < std::abs(best - mid))) best = i;
  }
  if (best < 0) return title;
  QString wrapped = title;
  wrapped[best] = '\n';
  return wrapped;
}
}  // namespace

HeatMapGrid::HeatMapGrid(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  plot_ = new QCustomPlot;
  plot_->setMouseTracking(true);
  scroll->setWidget(plot_);
  layout->addWidget(scroll);
  plot_->plotLayout()->clear();  // drop the default axis rect; cells bring their own
  PlotExport::attach(plot_);

  connect(plot_, &QCustomPlot::mouseMove, this, &HeatMapGrid::onMouseMove);
  connect(plot_, &QCustomPlot::mousePress, this, &HeatMapGrid::onMousePress);
  rebuild();
}

HeatMapGrid::~HeatMapGrid() { delete enlarged_.data(); }

HeatMapView* HeatMapGrid::enlargedView() const { return enlarged_.data(); }

void HeatMapGrid::setGridSize(int layers, int heads) {
  layers = std::max(layers, 0);
  heads = std::max(heads, 0);
  if (layers == layers_ && heads == heads_) return;
  layers_ = layers;
  heads_ = heads;
  rebuild();
}

HeatMapGrid::Cell* HeatMapGrid::cell(int layer, int head) {
  if (layer < 0 || head < 0 || layer >= layers_ || head >= heads_) return nullptr;
  return &cells_[size_t(layer * heads_ + head)];
}

const HeatMapGrid::Cell* HeatMapGrid::cell(int layer, int head) const {
  return const_cast<HeatMapGrid*>(this)->cell(layer, head);
}

void HeatMapGrid::setCell(int layer, int head, const Matrix& m, const QString& title,
                          const QStringList& row_labels, const QStringList& col_labels,
                          const QString& name) {
  Cell* c = cell(layer, head);
  if (!c) return;
  if (m.values.size() != size_t(std::max<int64_t>(m.rows, 0) * std::max<int64_t>(m.cols, 0))) {
    qWarning("HeatMapGrid: %lld x %lld matrix with %zu values ignored", (long long)m.rows,
             (long long)m.cols, m.values.size());
    return;
  }
  c->matrix = m;
  c->title = title;
  c->name = name;
  c->row_labels = row_labels;
  c->col_labels = col_labels;
  c->dirty = true;
  scale_dirty_ = true;
  markDirty();
  if (enlarged_ && layer == enlarged_layer_ && head == enlarged_head_) {
    enlarged_->setMatrix(m, row_labels, col_labels);
    enlarged_->setTitle(title);
  }
}

void HeatMapGrid::enlarge(int layer, int head) {
  const Cell* c = cell(layer, head);
  if (!c || c->matrix.empty()) return;
  if (!enlarged_) {
    enlarged_ = new HeatMapView;  // a top-level window, deleted when closed
    enlarged_->setAttribute(Qt::WA_DeleteOnClose);
    enlarged_->resize(640, 600);
  }
  enlarged_layer_ = layer;
  enlarged_head_ = head;
  enlarged_->setWindowTitle(c->name.isEmpty() ? c->title : c->name);
  enlarged_->setTitle(c->title);
  enlarged_->setAxisLabels(tr("key / column"), tr("query / row"));
  enlarged_->setMatrix(c->matrix, c->row_labels, c->col_labels);
  enlarged_->show();
  enlarged_->raise();
}

const Matrix& HeatMapGrid::cellMatrix(int layer, int head) const {
  static const Matrix kEmpty;
  const Cell* c = cell(layer, head);
  return c ? c->matrix : kEmpty;
}

QString HeatMapGrid::cellTitle(int layer, int head) const {
  const Cell* c = cell(layer, head);
  return c ? c->title : QString();
}

void HeatMapGrid::setColorMode(ColorMode mode) {
  requested_mode_ = mode;
  scale_dirty_ = true;
  markDirty();
}

void HeatMapGrid::setSharedScale(bool shared) {
  shared_ = shared;
  scale_dirty_ = true;
  markDirty();
}

void HeatMapGrid::rebuild() {
  ++rebuild_count_;
  plot_->clearPlottables();
  plot_->clearItems();
  plot_->plotLayout()->clear();  // deletes the old cells' elements and the colour scale
  cells_.assign(size_t(layers_ * heads_), Cell());

  auto* grid = new QCPLayoutGrid;
  plot_->plotLayout()->addElement(0, 0, grid);
  grid->setColumnSpacing(4);
  grid->setRowSpacing(4);
  QFont title_font = font();
  title_font.setPointSizeF(std::max(6.0, title_font.pointSizeF() - 1));
  for (int l = 0; l < layers_; ++l) {
    for (int h = 0; h < heads_; ++h) {
      Cell& c = cells_[size_t(l * heads_ + h)];
      auto* sub = new QCPLayoutGrid;
      grid->addElement(l, h, sub);
      sub->setRowSpacing(0);
      c.title_element = new QCPTextElement(plot_, QString(), title_font);
      c.title_element->setMargins(QMargins(0, 0, 0, 1));
      sub->addElement(0, 0, c.title_element);
      c.rect = new QCPAxisRect(plot_, /*setupDefaultAxes=*/true);
      sub->addElement(1, 0, c.rect);
      c.rect->setAutoMargins(QCP::msNone);
      c.rect->setMargins(QMargins(1, 1, 1, 1));
      c.rect->setMinimumSize(40, 40);
      for (QCPAxis* axis : c.rect->axes()) {
        axis->setVisible(true);  // a thin frame around each map
        axis->setTicks(false);
        axis->setTickLabels(false);
        axis->grid()->setVisible(false);
        axis->setBasePen(QPen(QColor(150, 150, 150)));
      }
      c.rect->axis(QCPAxis::atLeft)->setRangeReversed(true);
      c.rect->axis(QCPAxis::atRight)->setRangeReversed(true);
      c.map = new QCPColorMap(c.rect->axis(QCPAxis::atBottom), c.rect->axis(QCPAxis::atLeft));
      c.map->setInterpolate(false);
    }
  }
  scale_ = new QCPColorScale(plot_);
  scale_->setBarWidth(10);
  plot_->plotLayout()->addElement(0, 1, scale_);
  plot_->setMinimumSize(heads_ * kMinCellPixels + 70, layers_ * (kMinCellPixels + 24));
  scale_dirty_ = true;
  markDirty();
}

void HeatMapGrid::markDirty() { repaint_.markDirty(); }

void HeatMapGrid::flush() { repaint_.flush(); }

void HeatMapGrid::applyPending() {
  for (Cell& c : cells_) {
    if (!c.dirty) continue;
    c.dirty = false;
    c.title_element->setText(wrapTitle(c.title));
    if (c.matrix.empty()) {
      c.map->data()->clear();
      continue;
    }
    const Matrix drawn = downsampleBlockMean(c.matrix, kMaxCellSide, kMaxCellSide);
    fillColorMap(c.map, drawn, c.matrix.rows, c.matrix.cols);
    for (auto type : {QCPAxis::atBottom, QCPAxis::atTop}) {
      c.rect->axis(type)->setRange(-0.5, double(c.matrix.cols) - 0.5);
    }
    for (auto type : {QCPAxis::atLeft, QCPAxis::atRight}) {
      c.rect->axis(type)->setRange(-0.5, double(c.matrix.rows) - 0.5);
    }
  }
  if (scale_dirty_) {
    scale_dirty_ = false;
    // Shared: one mode and one range over all cells (any negative value makes it diverging).
    Matrix all;
    for (const Cell& c : cells_)
      all.values.insert(all.values.end(), c.matrix.values.begin(), c.matrix.values.end());
    mode_ = resolveColorMode(requested_mode_, all);
    range_ = colorRangeFor(mode_, all);
    const QCPColorGradient shared_gradient =
        mode_ == ColorMode::kDiverging ? divergingGradient() : viridisGradient();
    for (Cell& c : cells_) {
      if (shared_) {
        c.map->setColorScale(scale_);
        c.map->setGradient(shared_gradient);
        c.map->setDataRange(range_);
      } else {
        const ColorMode own = resolveColorMode(requested_mode_, c.matrix);
        c.map->setColorScale(nullptr);
        c.map->setGradient(own == ColorMode::kDiverging ? divergingGradient() : viridisGradient());
        c.map->setDataRange(colorRangeFor(own, c.matrix));
      }
    }
    scale_->setGradient(shared_gradient);
    scale_->setDataRange(range_);
    // Five labelled ticks, ends included: the automatic ticker leaves a short bar with one label.
    auto ticks = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i <= 4; ++i) {
      const double v = range_.lower + (range_.upper - range_.lower) * i / 4.0;
      ticks->addTick(v, QString::number(std::abs(v) < 1e-12 ? 0.0 : v, 'g', 2));
    }
    scale_->axis()->setTicker(ticks);
    scale_->setVisible(shared_ && !cells_.empty());
  }
  plot_->replot();
}

QPoint HeatMapGrid::cellAt(const QPoint& widget_pos) const {
  const QPoint p = plot_->mapFrom(this, widget_pos);
  for (int l = 0; l < layers_; ++l) {
    for (int h = 0; h < heads_; ++h) {
      if (cell(l, h)->rect->rect().contains(p)) return QPoint(h, l);
    }
  }
  return QPoint(-1, -1);
}

QRect HeatMapGrid::cellRect(int layer, int head) const {
  const Cell* c = cell(layer, head);
  if (!c) return QRect();
  const QRect r = c->rect->rect();
  return QRect(plot_->mapTo(this, r.topLeft()), r.size());
}

QString HeatMapGrid::tooltipFor(int layer, int head, int row, int col) const {
  const Cell* c = cell(layer, head);
  if (!c || row < 0 || col < 0 || row >= c->matrix.rows || col >= c->matrix.cols) return QString();
  const QString name = c->name.isEmpty() ? QStringLiteral("L%1 H%2").arg(layer).arg(head) : c->name;
  return QStringLiteral("%1 — row %2, col %3: %4")
      .arg(name, positionText(row, c->row_labels), positionText(col, c->col_labels))
      .arg(double(c->matrix.at(row, col)), 0, 'g', 6);
}

void HeatMapGrid::onMouseMove(QMouseEvent* event) {
  const QPoint lh = cellAt(plot_->mapTo(this, event->pos()));
  QString text;
  if (lh.x() >= 0) {
    const Cell* c = cell(lh.y(), lh.x());
    const double x = c->rect->axis(QCPAxis::atBottom)->pixelToCoord(event->pos().x());
    const double y = c->rect->axis(QCPAxis::atLeft)->pixelToCoord(event->pos().y());
    const int col = std::clamp(int(std::floor(x + 0.5)), 0, int(c->matrix.cols) - 1);
    const int row = std::clamp(int(std::floor(y + 0.5)), 0, int(c->matrix.rows) - 1);
    text = tooltipFor(lh.y(), lh.x(), row, col);
    if (text.isEmpty()) text = c->title;
  }
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
  }
}

void HeatMapGrid::onMousePress(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const QPoint lh = cellAt(plot_->mapTo(this, event->pos()));
  if (lh.x() < 0) return;
  emit cellActivated(lh.y(), lh.x());
  if (enlarge_on_click_) enlarge(lh.y(), lh.x());
}

}  // namespace rsalab
