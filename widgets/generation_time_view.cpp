// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generation_time_view.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "engine/core/io/enums.h"
#include "widgets/plot_export.h"

namespace rsalab {

namespace {

const QString kIntro = QObject::tr(
    "Causal linear attention is an RNN over a fixed-size state (S, z): generating a token costs "
    "the same at every position. Softmax attention keeps every key and value (its KV cache) and "
    "reads them all for each new token.");

// The quartiles of each point as error bars around the median.
void setSpread(QCPErrorBars* bars, const std::vector<GenerationPoint>& points) {
  QVector<double> minus, plus;
  for (const auto& p : points) {
    minus << std::max(0.0, p.ms_per_token - p.ms_q1);
    plus << std::max(0.0, p.ms_q3 - p.ms_per_token);
  }
  bars->setData(minus, plus);
}

}  // namespace

GenerationTimeView::GenerationTimeView(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("GenerationTimePlot");
  PlotExport::attach(plot_);
  plot_->xAxis->setLabel(tr("position T (tokens generated so far)"));
  plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
  auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
  ticker->setLogBase(2);
  plot_->xAxis->setTicker(ticker);
  plot_->yAxis->setLabel(tr("ms per generated token (median, quartiles)"));
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("state kept (floats, dashed)"));
  plot_->yAxis2->setScaleType(QCPAxis::stLogarithmic);
  plot_->yAxis2->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  plot_->yAxis2->setNumberFormat("eb");  // 10⁴, 10⁵, …
  plot_->yAxis2->setNumberPrecision(0);
  linear_ = makeCurve(tr("linear attention, (S, z) step"), QColor(31, 119, 180));
  softmax_ = makeCurve(tr("softmax attention, KV-cache step"), QColor(214, 39, 40));
  plot_->legend->setVisible(true);
  // The legend in a row of its own above the axes, never over the data.
  auto* legend_row = new QCPLayoutGrid;
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, legend_row);
  legend_row->addElement(0, 0, plot_->legend);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  label_ = new QLabel(this);
  label_->setObjectName("GenerationVerdict");
  label_->setWordWrap(true);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  measure_ = new QPushButton(tr("Measure again"), this);
  measure_->setObjectName("GenerationMeasure");
  measure_->setToolTip(
      tr("Runs the measurement again (the Presets menu's \"Linear attention is "
         "an RNN\"); nothing else should train meanwhile."));
  connect(measure_, &QPushButton::clicked, this, &GenerationTimeView::measureRequested);
  auto* row = new QHBoxLayout();
  row->addWidget(label_, 1);
  row->addWidget(measure_, 0, Qt::AlignTop);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(plot_, 1);
  header_ = kIntro;
  label_->setText(header_ + "\n" + tr("Not measured yet: Presets → Linear attention is an RNN."));
}

GenerationTimeView::Curve GenerationTimeView::makeCurve(const QString& name, const QColor& colour) {
  Curve c;
  c.time = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  c.time->setName(name);
  c.time->setPen(QPen(colour, 2));
  c.time->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 6));
  c.spread = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
  c.spread->setDataPlottable(c.time);
  c.spread->setPen(QPen(colour, 1));
  c.spread->removeFromLegend();
  c.state = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  c.state->setName(name + tr(": state"));
  c.state->setPen(QPen(colour, 1, Qt::DashLine));
  c.state->removeFromLegend();
  return c;
}

void GenerationTimeView::begin(const QString& model) {
  probe_ = {};
  probe_.model = model.toStdString();
  header_ = kIntro + "\n" + tr("Measuring (%1)…").arg(model);
  redraw();
}

void GenerationTimeView::addPoint(const QString& kind, const GenerationPoint& point) {
  const bool linear = parseAttentionKind(kind.toStdString()) == attentionKind("linear");
  auto& curve = linear ? probe_.linear : probe_.softmax;
  curve.points.push_back(point);
  header_ =
      kIntro + "\n" +
      tr("Measuring (%1): T = %2").arg(QString::fromStdString(probe_.model)).arg(point.position);
  redraw();
}

void GenerationTimeView::setProbe(const LinearAttentionRnnProbe& probe) {
  probe_ = probe;
  QStringList lines{kIntro};
  for (const auto& v : linearAttentionRnnVerdicts(probe))
    lines << QString::fromStdString(verdictLine(v));
  header_ = lines.join("\n");
  redraw();
}

void GenerationTimeView::setRunning(bool running) { measure_->setEnabled(!running); }

void GenerationTimeView::setMessage(const QString& text) {
  header_ = kIntro + "\n" + text;
  label_->setText(header_);
}

QString GenerationTimeView::text() const { return label_->text(); }

void GenerationTimeView::redraw() {
  label_->setText(header_);
  const std::pair<const GenerationCurve*, Curve*> curves[] = {{&probe_.linear, &linear_},
                                                              {&probe_.softmax, &softmax_}};
  for (const auto& [data, curve] : curves) {
    QVector<double> t, ms, state;
    for (const auto& p : data->points) {
      t << static_cast<double>(p.position);
      ms << p.ms_per_token;
      state << static_cast<double>(std::max<int64_t>(1, p.state_floats));
    }
    curve->time->setData(t, ms, true);
    curve->state->setData(t, state, true);
    setSpread(curve->spread, data->points);
  }
  bool found = false;
  const QCPRange x = linear_.time->getKeyRange(found);
  if (found) plot_->xAxis->setRange(x.lower / 1.3, x.upper * 1.3);
  plot_->yAxis->rescale();
  double top = plot_->yAxis->range().upper;
  for (const auto* d : {&probe_.linear, &probe_.softmax})
    for (const auto& p : d->points) top = std::max(top, p.ms_q3);
  plot_->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
  plot_->yAxis2->rescale();
  const QCPRange s = plot_->yAxis2->range();
  if (s.lower > 0) plot_->yAxis2->setRange(s.lower / 2, s.upper * 2);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace rsalab
