// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/rem_recovery_plot.h"

#include <qcustomplot.h>

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/plot_export.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {
constexpr double kFloor = 1e-6;  // |Δ| below this is drawn on the axis floor
}

RemRecoveryPlot::RemRecoveryPlot(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("RemRecoveryPlot");
  // Never laid out at zero height (hidden in its splitter when the task has no REM truth): a
  // QCustomPlot resized to an empty rect replots into an empty paint buffer, and Qt warns.
  plot_->setMinimumSize(80, 60);
  PlotExport::attach(plot_);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->xAxis->setLabel(tr("step"));
  plot_->yAxis->setLabel(tr("|Δ| to truth"));
  plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot_->yAxis->setNumberFormat("eb");
  plot_->yAxis->setNumberPrecision(0);
  // The legend sits outside the axis rect, to its right, so it never covers the lines.
  plot_->legend->setVisible(true);
  QFont legend_font = font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.8);
  plot_->legend->setFont(legend_font);
  plot_->legend->setRowSpacing(0);
  plot_->plotLayout()->addElement(0, 1, plot_->legend);
  plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
  tolerance_ = new QCPItemStraightLine(plot_);
  for (QCPItemPosition* p : {tolerance_->point1, tolerance_->point2})
    p->setType(QCPItemPosition::ptPlotCoords);
  tolerance_->setPen(QPen(QColor(120, 120, 120), 1.0, Qt::DashLine));
  tolerance_->setVisible(false);
  setToolTip(
      tr("Distance of each REM head's learned parameters from the true component of its "
         "own kind: |Δλ| (regular), |Δγ| and |Δθ| in radians (cyclical). Dashed: the "
         "recovery tolerance."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
}

void RemRecoveryPlot::clear() {
  for (const auto& kv : graphs_) plot_->removeGraph(kv.second);
  graphs_.clear();
}

QCPGraph* RemRecoveryPlot::graph(int layer, int head, Delta delta) const {
  const auto it = graphs_.find(Key{layer, head, delta});
  return it == graphs_.end() ? nullptr : it->second;
}

void RemRecoveryPlot::addPoint(int layer, int head, bool cyclical, Delta delta, double step,
                               double value) {
  if (!std::isfinite(value)) return;
  const Key key{layer, head, delta};
  auto it = graphs_.find(key);
  if (it == graphs_.end()) {
    QCPGraph* g = plot_->addGraph();
    QPen pen(runColor(layer * 8 + head));
    pen.setWidthF(1.6);
    pen.setStyle(delta == Delta::kTheta ? Qt::DashDotLine : Qt::SolidLine);
    g->setPen(pen);
    const QString what = delta == Delta::kTheta ? "|Δθ|" : cyclical ? "|Δγ|" : "|Δλ|";
    g->setName(QString("L%1 H%2 %3").arg(layer).arg(head).arg(what));
    g->setVisible(shown_.empty() || shown_.count({layer, head}) > 0);
    if (!g->visible()) g->removeFromLegend();
    it = graphs_.emplace(key, g).first;
  }
  it->second->addData(step, std::max(value, kFloor));
}

void RemRecoveryPlot::setShownHeads(const std::set<std::pair<int, int>>& heads) {
  shown_ = heads;
  for (const auto& kv : graphs_) {
    const bool show =
        shown_.empty() || shown_.count({std::get<0>(kv.first), std::get<1>(kv.first)});
    kv.second->setVisible(show);
    if (show) {
      kv.second->addToLegend();
    } else {
      kv.second->removeFromLegend();
    }
  }
}

void RemRecoveryPlot::setTolerance(double tolerance) {
  tolerance_value_ = tolerance;
  tolerance_->setVisible(tolerance > 0);
  if (tolerance > 0) {
    tolerance_->point1->setCoords(0, tolerance);
    tolerance_->point2->setCoords(1, tolerance);
  }
}

void RemRecoveryPlot::replot() {
  bool found = false;
  QCPRange x(0, 1), y(kFloor, 1);
  for (const auto& kv : graphs_) {
    QCPGraph* g = kv.second;
    if (!g->visible() || g->data()->isEmpty()) continue;
    bool ok = false;
    const QCPRange kx = g->getKeyRange(ok);
    bool ok_y = false;
    const QCPRange vy = g->getValueRange(ok_y);
    if (!ok || !ok_y) continue;
    x = found ? QCPRange(std::min(x.lower, kx.lower), std::max(x.upper, kx.upper)) : kx;
    y = found ? QCPRange(std::min(y.lower, vy.lower), std::max(y.upper, vy.upper)) : vy;
    found = true;
  }
  if (tolerance_value_ > 0) {
    y.lower = std::min(y.lower, tolerance_value_);
    y.upper = std::max(y.upper, tolerance_value_);
  }
  plot_->xAxis->setRange(x.lower, std::max(x.upper, x.lower + 1));
  plot_->yAxis->setRange(std::max(kFloor, y.lower / 2), std::max(y.upper * 2, y.lower * 10));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace rsalab
