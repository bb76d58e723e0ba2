// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/paper_table_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/run_palette.h"

namespace rsalab {

void drawPaperTablePlot(QCustomPlot* plot, const std::vector<PaperCurve>& curves,
                        const QString& title) {
  plot->clearPlottables();
  plot->clearItems();
  if (plot->plotLayout()->rowCount() > 1) plot->plotLayout()->removeAt(0);
  if (plot->plotLayout()->rowCount() > 1) plot->plotLayout()->simplify();
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title));
  plot->legend->setVisible(true);
  plot->legend->setFont(QFont(plot->font().family(), 8));
  plot->xAxis->setLabel("horizon H (hours)");
  plot->yAxis->setLabel("test MSE (z units)");
  double x_max = 1, y_max = 0;
  int model = 0, marker = 0;
  const QCPScatterStyle::ScatterShape shapes[] = {
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangle, QCPScatterStyle::ssSquare,
      QCPScatterStyle::ssStar,    QCPScatterStyle::ssCross,    QCPScatterStyle::ssPlus};
  for (const auto& c : curves) {
    QVector<double> x, y, err_lo, err_hi;
    for (size_t k = 0; k < c.horizon.size(); ++k) {
      if (!std::isfinite(c.mse[k])) continue;
      x.push_back(c.horizon[k]);
      y.push_back(c.mse[k]);
      err_lo.push_back(std::isfinite(c.low[k]) ? c.mse[k] - c.low[k] : 0.0);
      err_hi.push_back(std::isfinite(c.high[k]) ? c.high[k] - c.mse[k] : 0.0);
      x_max = std::max(x_max, c.horizon[k]);
      y_max = std::max(y_max, std::isfinite(c.high[k]) ? c.high[k] : c.mse[k]);
    }
    auto* g = plot->addGraph();
    g->setName(QString::fromStdString(c.label));
    g->setData(x, y, /*alreadySorted=*/false);
    if (c.published) {
      const QColor colour = QColor(90, 90, 90);
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(shapes[marker++ % 6], colour, colour, 9));
      continue;
    }
    const QColor colour = runColor(model++);
    g->setPen(QPen(colour, 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 6));
    auto* bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
    bars->removeFromLegend();
    bars->setDataPlottable(g);
    bars->setData(err_lo, err_hi);
    bars->setPen(QPen(colour, 1));
  }
  plot->xAxis->setRange(0, x_max * 1.08);
  plot->yAxis->setRange(0, std::max(0.1, y_max * 1.1));
  // The legend right of the axes, never over a line (persistence sits where an inset would).
  if (plot->axisRect()->insetLayout()->take(plot->legend)) {
    plot->plotLayout()->addElement(plot->plotLayout()->rowCount() - 1, 1, plot->legend);
    plot->plotLayout()->setColumnStretchFactor(1, 0.001);
  }
  plot->replot();
}

}  // namespace rsalab
