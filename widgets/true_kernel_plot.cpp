// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/true_kernel_plot.h"

#include <qcustomplot.h>

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/plot_export.h"

namespace rsalab {

TrueKernelPlot::TrueKernelPlot(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("TrueKernelPlot");
  plot_->setMinimumSize(80, 60);  // see RemRecoveryPlot: never laid out at zero height
  PlotExport::attach(plot_);
  plot_->xAxis->setLabel(tr("lag k"));
  plot_->yAxis->setLabel(tr("true kernel w_k"));
  bars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  bars_->setWidth(0.6);
  bars_->setPen(QPen(QColor(70, 70, 70)));
  bars_->setBrush(QColor(120, 120, 120, 120));
  reach_ = new QCPItemStraightLine(plot_);
  for (QCPItemPosition* p : {reach_->point1, reach_->point2})
    p->setType(QCPItemPosition::ptPlotCoords);
  reach_->setPen(QPen(QColor(200, 60, 60), 1.0, Qt::DashLine));
  note_ = new QCPItemText(plot_);
  note_->setObjectName("TrueKernelNote");
  note_->position->setType(QCPItemPosition::ptAxisRectRatio);
  note_->position->setCoords(0.98, 0.05);
  note_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  setToolTip(
      tr("The task's process has no REM form: its true kernel (or, without one, its reach) "
         "instead of the REM recovery. Reach: the lag by which Σ|w_k| reaches 90 % of its "
         "total over k ≤ 32."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
}

void TrueKernelPlot::setTruth(const GroundTruth& truth) {
  QVector<double> keys, values;
  if (truth.no_rem_form) {
    for (size_t k = 0; k < truth.kernel.size(); ++k) {
      keys.push_back(static_cast<double>(k + 1));
      values.push_back(truth.kernel[k]);
    }
  }
  bars_->setData(keys, values);
  const bool reach = truth.no_rem_form && std::isfinite(truth.reach);
  reach_->setVisible(reach);
  if (reach) {
    reach_->point1->setCoords(truth.reach, 0);
    reach_->point2->setCoords(truth.reach, 1);
  }
  QString note = tr("no REM form");
  if (reach) note += tr(" · reach %1 lags (dashed)").arg(truth.reach);
  if (truth.no_rem_form && truth.kernel.empty()) note += tr(" · no linear kernel");
  note_->setText(truth.no_rem_form ? note : QString());
  const double top = values.isEmpty() ? 1.0 : *std::max_element(values.begin(), values.end());
  const double bottom = values.isEmpty() ? 0.0 : *std::min_element(values.begin(), values.end());
  const double right = std::max({keys.isEmpty() ? 1.0 : keys.back(), reach ? truth.reach : 1.0});
  plot_->xAxis->setRange(0, right + 1);
  plot_->yAxis->setRange(std::min(0.0, bottom) - 0.05 * (top - bottom + 1e-12),
                         top + 0.15 * (top - std::min(0.0, bottom) + 1e-12));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int TrueKernelPlot::kernelPoints() const { return bars_->data()->size(); }

}  // namespace rsalab
