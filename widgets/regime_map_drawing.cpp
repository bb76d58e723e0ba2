// SPDX-License-Identifier: GPL-3.0-or-later
// RegimeMapView, the drawing: the grid of maps for the room the plot has (one heat map per model
// and the winner map), the shared, locked colour scale beside them and the legend below them.
// The view's data, interaction and exports are in regime_map_view.cpp.
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/heat_map_support.h"
#include "widgets/regime_map_view.h"
#include "widgets/run_palette.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {
constexpr int kSideWidth = 90;     // the colour bar column, px (grid choice only)
constexpr int kLegendHeight = 30;  // the legend row under the maps, px
constexpr int kAxesMargin = 60;    // tick labels and axis title around a map, px
constexpr int kTickSpacing = 42;   // fewer x labels than this many px apart are thinned
constexpr double kLogDecades = 1;  // a log colour scale once the means span more than this

// Evenly spaced columns (rows) at 0, 1, …, labelled with the values; every `stride`-th label.
void setTextTicks(QCPAxis* axis, const QStringList& labels, int stride) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < labels.size(); i += std::max(1, stride)) ticker->addTick(i, labels[i]);
  axis->setTicker(ticker);
  axis->setRange(-0.5, labels.size() - 0.5);
  axis->grid()->setVisible(false);
  axis->setTickLengthIn(0);
  axis->setTickLengthOut(3);
}
}  // namespace

int RegimeMapView::columnOf(const RegimeMap& m, double axis_value) {
  for (size_t i = 0; i < m.axis_values.size(); ++i)
    if (std::abs(m.axis_values[i] - axis_value) <= kAxisTolerance) return static_cast<int>(i);
  return -1;
}

int RegimeMapView::rowOf(const RegimeMap& m, int64_t size) {
  const auto it = std::find(m.sizes.begin(), m.sizes.end(), size);
  return it == m.sizes.end() ? -1 : static_cast<int>(it - m.sizes.begin());
}

int RegimeMapView::columnsFor(QSize size, int panels) const {
  const RegimeMap& m = regimeMap();
  const double nx = std::max<size_t>(1, m.axis_values.size());
  const double ny = std::max<size_t>(1, m.sizes.size());
  const double w = std::max(200, size.width() - kSideWidth);
  const double h = std::max(150, size.height() - kLegendHeight - (title_.isEmpty() ? 0 : 24));
  int best = 1;
  double best_cell = -1;
  for (int c = 1; c <= std::max(1, panels); ++c) {
    const int r = (panels + c - 1) / c;
    const double cell = std::min((w / c - kAxesMargin) / nx, (h / r - kAxesMargin - 18) / ny);
    if (cell > best_cell + 1e-9) {
      best_cell = cell;
      best = c;
    }
  }
  return best;
}

void RegimeMapView::build(QSize size) {
  plot_->clearItems();
  plot_->clearPlottables();
  plot_->plotLayout()->clear();
  delete margins_;  // after its elements are gone
  margins_ = new QCPMarginGroup(plot_);
  panels_.clear();
  const RegimeMap& m = regimeMap();
  const QStringList order = models();
  const int nx = static_cast<int>(m.axis_values.size());
  const int ny = static_cast<int>(m.sizes.size());

  // The shared, locked colour scale: log when the means span more than a decade (values at or
  // below the smallest positive mean take the deepest colour).
  auto [lo, hi] = m.meanRange();
  double lowest_positive = std::numeric_limits<double>::infinity();
  for (const auto& c : m.cells)
    if (std::isfinite(c.mean) && c.mean > 0) lowest_positive = std::min(lowest_positive, c.mean);
  log_scale_ =
      hi > 0 && std::isfinite(lowest_positive) && std::log10(hi / lowest_positive) > kLogDecades;
  if (log_scale_) lo = lowest_positive;
  if (!(hi > lo)) {
    const double pad = lo != 0 ? std::abs(lo) * 0.1 : 0.5;
    lo -= pad;
    hi += pad;
  }
  scale_ = new QCPColorScale(plot_);
  scale_->setType(QCPAxis::atRight);
  scale_->setBarWidth(14);
  scale_->setDataScaleType(log_scale_ ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (log_scale_) {
    // 1, 2, 5 × 10^k: a span of one or two decades still gets a few labelled ticks.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int k = int(std::floor(std::log10(lo))); k <= int(std::ceil(std::log10(hi))); ++k) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, k);
        if (v >= lo * 0.999 && v <= hi * 1.001) ticker->addTick(v, QString::number(v, 'g', 3));
      }
    }
    scale_->axis()->setTicker(ticker);
  }
  QCPColorGradient gradient = viridisGradient();  // dark = low = better
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  scale_->setGradient(gradient);
  scale_->setDataRange(QCPRange(lo, hi));
  scale_->setLabel(tr("mean excess test loss (lower is better)"));

  auto* layout = plot_->plotLayout();
  int row = 0;
  if (!title_.isEmpty()) {
    layout->addElement(0, 0,
                       new QCPTextElement(plot_, title_, QFont(font().family(), 10, QFont::Bold)));
    row = 1;
  }
  auto* grid = new QCPLayoutGrid;
  auto* legend_row = new QCPLayoutGrid;
  layout->addElement(row, 0, grid);
  layout->addElement(row, 1, scale_);  // outside the maps, beside them
  layout->addElement(row + 1, 0, legend_row);
  layout->setColumnStretchFactor(1, 0.001);
  layout->setRowStretchFactor(row + 1, 0.001);
  if (row == 1) layout->setRowStretchFactor(0, 0.001);

  const int panels = static_cast<int>(order.size()) + 1;
  columns_ = columnsFor(size, panels);
  const int width = std::max(200, size.width() - kSideWidth) / columns_ - kAxesMargin;
  const int stride = std::max(1, (nx * kTickSpacing + width - 1) / std::max(1, width));
  QStringList x_labels, y_labels;
  for (double a : m.axis_values) x_labels << QString::number(a, 'g', 4);
  for (int64_t n : m.sizes) y_labels << QString::number(n);
  const QFont title_font(font().family(), 9, QFont::Bold);
  for (int p = 0; p < panels; ++p) {
    const bool winner = p == panels - 1;
    Panel panel{winner ? QString() : order[p], nullptr, nullptr};
    auto* cell = new QCPLayoutGrid;
    grid->addElement(p / columns_, p % columns_, cell);
    cell->setRowSpacing(0);
    cell->addElement(
        0, 0,
        new QCPTextElement(
            plot_, winner ? tr("winner (95 % paired interval above 0)") : panel.model, title_font));
    cell->setRowStretchFactor(0, 0.001);
    panel.rect = new QCPAxisRect(plot_, /*setupDefaultAxes=*/false);
    panel.rect->addAxes(QCPAxis::atBottom | QCPAxis::atLeft);
    cell->addElement(1, 0, panel.rect);
    panel.rect->setMarginGroup(QCP::msAll, margins_);
    auto* x = panel.rect->axis(QCPAxis::atBottom);
    auto* y = panel.rect->axis(QCPAxis::atLeft);
    setTextTicks(x, x_labels, stride);
    setTextTicks(y, y_labels, 1);
    if (p + columns_ >= panels) x->setLabel(axisTitle(axis_name_));
    if (p % columns_ == 0) y->setLabel(tr("training-set size N"));
    if (winner) {
      addWinnerCells(panel.rect);
    } else {
      // One column (row) is drawn as two identical halves: QCPColorMap needs two cells to span.
      panel.map = new QCPColorMap(x, y);
      panel.map->setProperty("model", panel.model);
      const int kx = std::max(nx, 2), ky = std::max(ny, 2);
      panel.map->data()->setSize(kx, ky);
      panel.map->data()->setRange(nx > 1 ? QCPRange(0, nx - 1) : QCPRange(-0.25, 0.25),
                                  ny > 1 ? QCPRange(0, ny - 1) : QCPRange(-0.25, 0.25));
      for (int i = 0; i < kx; ++i) {
        for (int j = 0; j < ky; ++j) {
          const RegimeCell* c = m.cell(panel.model.toStdString(), m.axis_values[nx > 1 ? i : 0],
                                       m.sizes[ny > 1 ? j : 0]);
          double v = c && c->seeds > 0 ? c->mean : std::numeric_limits<double>::quiet_NaN();
          if (log_scale_ && std::isfinite(v)) v = std::max(v, lo);
          panel.map->data()->setCell(i, j, v);
        }
      }
      panel.map->setInterpolate(false);
      panel.map->setColorScale(scale_);  // the scale's gradient and range: locked, shared
    }
    panels_.push_back(panel);
  }
  addLegend(legend_row, order);
}

void RegimeMapView::addWinnerCells(QCPAxisRect* rect) {
  const RegimeMap& m = regimeMap();
  auto* x = rect->axis(QCPAxis::atBottom);
  auto* y = rect->axis(QCPAxis::atLeft);
  const auto place = [&](QCPAbstractItem* item, const QList<QCPItemPosition*>& positions) {
    item->setClipAxisRect(rect);
    item->setClipToAxisRect(true);
    for (auto* pos : positions) pos->setAxes(x, y);
  };
  for (const auto& w : m.winners) {
    if (w.verdict == RegimeVerdict::Pending) continue;  // empty
    const int i = columnOf(m, w.axis_value), j = rowOf(m, w.size);
    const QPointF key(w.axis_value, static_cast<double>(w.size));
    const bool tie = w.verdict == RegimeVerdict::Tie;
    auto* fill = new QCPItemRect(plot_);
    place(fill, {fill->topLeft, fill->bottomRight});
    fill->topLeft->setCoords(i - 0.5, j + 0.5);
    fill->bottomRight->setCoords(i + 0.5, j - 0.5);
    fill->setPen(QPen(Qt::white, 1));
    fill->setBrush(tie ? kTieColor : modelColor(QString::fromStdString(w.best)));
    fill->setProperty("regime_cell", key);
    if (!tie) continue;
    auto* hatch = new QCPItemRect(plot_);  // hatched, so a tie never reads as a grey model
    place(hatch, {hatch->topLeft, hatch->bottomRight});
    hatch->topLeft->setCoords(i - 0.5, j + 0.5);
    hatch->bottomRight->setCoords(i + 0.5, j - 0.5);
    hatch->setPen(Qt::NoPen);
    hatch->setBrush(QBrush(QColor(150, 150, 150), Qt::BDiagPattern));
    auto* text = new QCPItemText(plot_);
    place(text, {text->position});
    text->position->setCoords(i, j);
    text->setText(tr("tie"));
    text->setColor(QColor(60, 60, 60));
    text->setBrush(QColor(255, 255, 255, 200));
    text->setProperty("regime_cell", key);
  }
}

void RegimeMapView::addLegend(QCPLayoutGrid* row, const QStringList& models) {
  // Centred under the maps, one line: [spacer][legend][spacer] (a legend fills its cell).
  auto* legend = new QCPLegend;
  row->addElement(0, 0, new QCPTextElement(plot_, QString()));
  row->addElement(0, 1, legend);
  row->addElement(0, 2, new QCPTextElement(plot_, QString()));
  legend->setLayer("legend");
  legend->setBorderPen(QPen(QColor(180, 180, 180)));
  legend->setFont(QFont(font().family(), 8));
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(0);
  const Panel& winner = panels_.back();
  const auto entry = [&](const QString& name, const QBrush& brush, const QPen& pen) {
    auto* bars =
        new QCPBars(winner.rect->axis(QCPAxis::atBottom), winner.rect->axis(QCPAxis::atLeft));
    bars->setName(name);
    bars->setBrush(brush);
    bars->setPen(pen);
    bars->addToLegend(legend);
  };
  const auto size_legend = [legend] {
    legend->setMaximumSize(legend->minimumOuterSizeHint().width(), QWIDGETSIZE_MAX);
  };
  for (const QString& model : models) {
    const QColor c = modelColor(model);
    entry(tr("%1 wins").arg(model), c, QPen(c));
  }
  entry(tr("tie (paired interval covers 0)"), QBrush(kTieColor), QPen(QColor(150, 150, 150)));
  entry(tr("pending (< 2 models)"), QBrush(Qt::white), QPen(QColor(150, 150, 150)));
  size_legend();
}

}  // namespace rsalab
