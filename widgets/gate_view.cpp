// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/gate_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/heat_map_grid.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {

bool isShownGate(const std::string& gate) {
  return gate == "i" || gate == "f" || gate == "o" || gate == "r" || gate == "z";
}

QString gateName(const std::string& gate) {
  if (gate == "i") return "input gate i";
  if (gate == "f") return "forget gate f";
  if (gate == "o") return "output gate o";
  if (gate == "r") return "reset gate r";
  if (gate == "z") return "update gate z";
  return QString::fromStdString(gate);
}

Matrix transposed(const Matrix& m) {
  Matrix t;
  t.rows = m.cols;
  t.cols = m.rows;
  t.values.resize(m.values.size());
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t c = 0; c < m.cols; ++c)
      t.values[size_t(c * m.rows + r)] = m.values[size_t(r * m.cols + c)];
  return t;
}

}  // namespace

GateView::GateView(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel(tr("Start training to see gate activations (LSTM, GRU) and StarSaber's "
                           "fixed-point layers."),
                        this);
  caption_->setWordWrap(true);
  input_plot_ = new QCustomPlot(this);
  input_plot_->setMinimumHeight(90);
  input_plot_->xAxis->setLabel(tr("time step"));
  input_plot_->yAxis->setLabel(tr("input"));
  input_plot_->yAxis->ticker()->setTickCount(3);
  grid_ = new HeatMapGrid(this);
  grid_->setEnlargeOnClick(true);
  fixed_point_plot_ = new QCustomPlot(this);
  fixed_point_plot_->setMinimumHeight(120);
  fixed_point_plot_->xAxis->setLabel(tr("step"));
  fixed_point_plot_->yAxis->setLabel(tr("α"));
  fixed_point_plot_->yAxis2->setVisible(true);
  fixed_point_plot_->yAxis2->setLabel(tr("residual ‖h⁺−h‖/‖h‖"));
  fixed_point_plot_->yAxis2->setScaleType(QCPAxis::stLogarithmic);
  fixed_point_plot_->yAxis2->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  fixed_point_plot_->legend->setVisible(true);
  fixed_point_plot_->legend->setBrush(QColor(255, 255, 255, 210));
  fixed_point_plot_->setVisible(false);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(input_plot_);
  split->addWidget(grid_);
  split->addWidget(fixed_point_plot_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 4);
  split->setStretchFactor(2, 2);
  split->setSizes({1000, 4000, 2000});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(caption_);
  layout->addWidget(split, 1);
}

QString GateView::caption() const { return caption_->text(); }

void GateView::clear() {
  grid_->setGridSize(0, 0);
  input_plot_->clearGraphs();
  input_plot_->replot(QCustomPlot::rpQueuedReplot);
  for (auto& kv : fixed_point_graphs_) fixed_point_plot_->removeGraph(kv.second);
  fixed_point_graphs_.clear();
  fixed_point_plot_->setVisible(false);
}

void GateView::setRecord(qint64 step, const InspectionRecord& record, const SampleInput& input,
                         const QString& run_label) {
  const QString where =
      QString("%1 at step %2, validation sample %3")
          .arg(run_label.isEmpty() ? QString::fromStdString(record.model) : run_label)
          .arg(step)
          .arg(record.sample);
  setInput(input);
  std::vector<const GateTrace*> shown;
  int layers = 0;
  for (const auto& g : record.gates) {
    if (!isShownGate(g.gate)) continue;
    shown.push_back(&g);
    layers = std::max(layers, static_cast<int>(g.layer) + 1);
  }
  const int per_layer = layers > 0 ? static_cast<int>(shown.size()) / layers : 0;
  grid_->setGridSize(layers, per_layer);
  const QStringList positions = input.positionLabels();
  std::map<int64_t, int> column;  // next free column per layer
  for (const GateTrace* g : shown) {
    const int col = column[g->layer]++;
    const QString name = QString("L%1 %2").arg(g->layer).arg(gateName(g->gate));
    // Drawn unit × time, so time runs left to right under the input strip.
    grid_->setCell(static_cast<int>(g->layer), col, transposed(g->values), name + " (unit × time)",
                   {}, positions, name);
  }
  grid_->setVisible(!shown.empty());
  bool alpha = false;
  for (const auto& l : record.layers) alpha = alpha || l.has_alpha;
  fixed_point_plot_->setVisible(alpha || !fixed_point_graphs_.empty());
  QString what;
  if (!shown.empty()) {
    what =
        tr("gate activations σ(·) ∈ [0, 1] per layer × gate, rows = units, columns = time steps "
           "(aligned with the input above)");
  } else if (alpha) {
    what = tr("StarSaber: α per layer and the fixed-point residual over training steps");
  } else {
    what = tr("this model has no gates (LSTM/GRU) and no fixed-point layers (StarSaber)");
  }
  caption_->setText(where + ": " + what);
}

void GateView::setInput(const SampleInput& input) {
  input_plot_->clearGraphs();
  const int T = input.length();
  if (!input.tokens.isEmpty()) {  // token ids are arbitrary: draw the tokens as tick labels
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int every = std::max(1, T / 48);
    for (int t = 0; t < T; t += every) ticker->addTick(t, input.tokens[t]);
    input_plot_->xAxis->setTicker(ticker);
    input_plot_->yAxis->setVisible(false);
    auto* g = input_plot_->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 5));
    for (int t = 0; t < T; ++t) g->addData(t, 0);
    input_plot_->yAxis->setRange(-1, 1);
  } else {
    input_plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    input_plot_->yAxis->setVisible(true);
    for (int f = 0; f < input.features; ++f) {
      auto* g = input_plot_->addGraph();
      g->setPen(QPen(runColor(f), 1.4));
      g->setLineStyle(QCPGraph::lsStepCenter);
      g->setName(f < input.feature_names.size() ? input.feature_names[f] : QString("x%1").arg(f));
      for (int t = 0; t < T; ++t) g->addData(t, input.values[size_t(t * input.features + f)]);
    }
    input_plot_->rescaleAxes();
  }
  input_plot_->xAxis->setRange(-0.5, std::max(T, 1) - 0.5);
  input_plot_->setVisible(T > 0);
  input_plot_->replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* GateView::fixedPointGraph(int layer, bool residual) const {
  const auto it = fixed_point_graphs_.find({layer, residual});
  return it == fixed_point_graphs_.end() ? nullptr : it->second;
}

void GateView::addFixedPoint(qint64 step, const InspectionRecord& record) {
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& layer = record.layers[l];
    if (!layer.has_alpha) continue;
    for (bool residual : {false, true}) {
      auto& g = fixed_point_graphs_[{static_cast<int>(l), residual}];
      if (!g) {
        g = fixed_point_plot_->addGraph(fixed_point_plot_->xAxis, residual
                                                                      ? fixed_point_plot_->yAxis2
                                                                      : fixed_point_plot_->yAxis);
        QPen pen(runColor(static_cast<int>(l)), 1.6);
        if (residual) pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        g->setName(QString("L%1 %2").arg(l).arg(residual ? "residual" : "α"));
      }
      const double v = residual ? layer.residual : layer.alpha;
      if (std::isfinite(v) && (!residual || v > 0)) g->addData(static_cast<double>(step), v);
    }
  }
  repaint_.markDirty();
}

void GateView::setHistory(const std::map<qint64, InspectionRecord>& records) {
  for (auto& kv : fixed_point_graphs_) fixed_point_plot_->removeGraph(kv.second);
  fixed_point_graphs_.clear();
  for (const auto& kv : records) addFixedPoint(kv.first, kv.second);
  fixed_point_plot_->setVisible(!fixed_point_graphs_.empty());
  repaint_.markDirty();
}

void GateView::appendHistory(qint64 step, const InspectionRecord& record) {
  addFixedPoint(step, record);
  if (!fixed_point_graphs_.empty()) fixed_point_plot_->setVisible(true);
}

void GateView::flush() {
  repaint_.markDirty();
  repaint_.flush();
  grid_->flush();
  input_plot_->replot();
}

void GateView::redrawFixedPoint() {
  fixed_point_plot_->rescaleAxes();
  fixed_point_plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace rsalab
