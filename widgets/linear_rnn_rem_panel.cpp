// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/linear_rnn_rem_panel.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/core/verdicts/claims.h"
#include "widgets/plot_export.h"

namespace rsalab {

LinearRnnRemPanel::LinearRnnRemPanel(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot(this);
  PlotExport::attach(plot_);
  plot_->xAxis->setLabel(tr("Re"));
  plot_->yAxis->setLabel(tr("Im"));
  plot_->xAxis->setRange(-1.2, 1.2);
  plot_->yAxis->setRange(-1.2, 1.2);
  auto* circle = new QCPCurve(plot_->xAxis, plot_->yAxis);
  circle->setName(tr("unit circle"));
  circle->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
  for (int k = 0; k <= 128; ++k) {
    const double a = 2 * M_PI * k / 128;
    circle->addData(k, std::cos(a), std::sin(a));
  }
  QCPGraph* eig = plot_->addGraph();
  eig->setName(tr("eigenvalues of W"));
  eig->setLineStyle(QCPGraph::lsNone);
  eig->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(200, 60, 40), 9));
  plot_->legend->setVisible(true);
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  auto* again = new QPushButton(tr("New RNN"), this);
  connect(again, &QPushButton::clicked, this, [this] { regenerate(seed_ + 1); });
  auto* row = new QHBoxLayout();
  row->addWidget(label_, 1);
  row->addWidget(again);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(plot_, 1);
  layout->addLayout(row);
  regenerate(seed_);
}

void LinearRnnRemPanel::regenerate(unsigned seed) {
  seed_ = seed;
  demo_ = LinearRnnDemo::random(seed);
  error_ = demo_.maxError();
  QVector<double> re, im;
  for (const auto& e : demo_.eigenvalues()) re.push_back(e.real()), im.push_back(e.imag());
  plot_->graph(0)->setData(re, im);
  plot_->replot(QCustomPlot::rpQueuedReplot);
  label_->setText(tr("Linear RNN h_t = W h_{t−1} + z_t, n = %1, T = %2: λ = %3, %4; γ = %5, θ = %6 "
                     "(spectral radius %7). Recurrence vs. Z + Σ REM terms: max |error| = %8")
                      .arg(LinearRnnDemo::kN)
                      .arg(demo_.T)
                      .arg(demo_.lambda1, 0, 'f', 3)
                      .arg(demo_.lambda2, 0, 'f', 3)
                      .arg(demo_.gamma, 0, 'f', 3)
                      .arg(demo_.theta, 0, 'f', 3)
                      .arg(demo_.spectralRadius(), 0, 'f', 3)
                      .arg(error_, 0, 'g', 3) +
                  "\n" + QString::fromStdString(verdictLine(linearRnnDemoVerdict(seed))));
}

}  // namespace rsalab
