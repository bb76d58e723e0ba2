#include "widgets/rem_parameter_view.h"

#include "widgets/plot_export.h"
#include <qcustomplot.h>

#include <QVBoxLayout>
#include <cmath>

#include "widgets/run_palette.h"

namespace rsalab {

namespace {

// A colour per head (palette), a line style per quantity, so "L0 H1 γ" and "L0 H1 θ" match.
Qt::PenStyle quantityStyle(RemParameterView::Quantity q) {
  switch (q) {
    case RemParameterView::Quantity::kTheta:
      return Qt::DashDotLine;
    case RemParameterView::Quantity::kGate:
      return Qt::DotLine;
    default:
      return Qt::SolidLine;
  }
}

}  // namespace

RemParameterView::RemParameterView(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot(this);
  PlotExport::attach(plot_);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->xAxis->setLabel(tr("step"));
  plot_->yAxis->setLabel(tr("λ, γ, σ(µ)"));
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("θ (rad)"));
  plot_->legend->setVisible(true);
  plot_->legend->setBrush(QColor(255, 255, 255, 210));
  plot_->legend->setBorderPen(QPen(QColor(180, 180, 180)));
  QFont legend_font = font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.85);
  plot_->legend->setFont(legend_font);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  repaint_timer_.setInterval(kRepaintIntervalMs);
  connect(&repaint_timer_, &QTimer::timeout, this, [this] {
    if (dirty_) redraw();
  });
  repaint_timer_.start();
}

QString RemParameterView::quantityName(Quantity quantity) {
  switch (quantity) {
    case Quantity::kLambda:
      return QStringLiteral("λ");
    case Quantity::kGamma:
      return QStringLiteral("γ");
    case Quantity::kTheta:
      return QStringLiteral("θ");
    case Quantity::kGate:
      return QStringLiteral("σ(µ)");
  }
  return {};
}

QCPGraph* RemParameterView::graph(int layer, int head, Quantity quantity) const {
  const auto it = graphs_.find(Key{layer, head, quantity});
  return it == graphs_.end() ? nullptr : it->second;
}

QCPGraph* RemParameterView::ensureGraph(int layer, int head, Quantity quantity) {
  const Key key{layer, head, quantity};
  auto it = graphs_.find(key);
  if (it != graphs_.end()) return it->second;
  QCPAxis* y = quantity == Quantity::kTheta ? plot_->yAxis2 : plot_->yAxis;
  QCPGraph* g = plot_->addGraph(plot_->xAxis, y);
  QPen pen(runColor(layer * 8 + head));
  pen.setWidthF(1.6);
  pen.setStyle(quantityStyle(quantity));
  g->setPen(pen);
  g->setName(QString("L%1 H%2 %3").arg(layer).arg(head).arg(quantityName(quantity)));
  graphs_.emplace(key, g);
  return g;
}

void RemParameterView::addPoint(int layer, int head, Quantity quantity, double step, double value) {
  if (!std::isfinite(value)) return;
  ensureGraph(layer, head, quantity)->addData(step, value);
}

void RemParameterView::append(qint64 step, const InspectionRecord& record) {
  const double x = static_cast<double>(step);
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& heads = record.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const HeadInspection& head = heads[h];
      if (!head.has_rem) continue;
      const int li = static_cast<int>(l), hi = static_cast<int>(h);
      if (head.rem_kind == "regular") {
        addPoint(li, hi, Quantity::kLambda, x, head.lambda);
      } else {
        addPoint(li, hi, Quantity::kGamma, x, head.gamma);
        addPoint(li, hi, Quantity::kTheta, x, head.theta);
      }
      addPoint(li, hi, Quantity::kGate, x, head.gate);
    }
  }
  dirty_ = true;
}

void RemParameterView::setRecords(const std::map<qint64, InspectionRecord>& records) {
  clear();
  for (const auto& kv : records) append(kv.first, kv.second);
  dirty_ = true;
}

void RemParameterView::clear() {
  for (const auto& kv : graphs_) plot_->removeGraph(kv.second);
  graphs_.clear();
  dirty_ = true;
}

void RemParameterView::addTruthLine(double value, Quantity quantity, const QString& label) {
  auto* line = new QCPItemStraightLine(plot_);
  QCPAxis* y = quantity == Quantity::kTheta ? plot_->yAxis2 : plot_->yAxis;
  for (QCPItemPosition* p : {line->point1, line->point2}) {
    p->setAxes(plot_->xAxis, y);
    p->setType(QCPItemPosition::ptPlotCoords);
  }
  line->point1->setCoords(0, value);
  line->point2->setCoords(1, value);
  QPen pen(QColor(90, 90, 90));
  pen.setStyle(Qt::DashLine);
  line->setPen(pen);
  line->setObjectName(label);
  truth_lines_.push_back(line);
}

void RemParameterView::setGroundTruth(const std::vector<double>& lambdas,
                                      const std::vector<double>& gammas,
                                      const std::vector<double>& thetas) {
  for (auto* line : truth_lines_) plot_->removeItem(line);
  truth_lines_.clear();
  for (double v : lambdas) addTruthLine(v, Quantity::kLambda, QString("true λ=%1").arg(v));
  for (double v : gammas) addTruthLine(v, Quantity::kGamma, QString("true γ=%1").arg(v));
  for (double v : thetas) addTruthLine(v, Quantity::kTheta, QString("true θ=%1").arg(v));
  dirty_ = true;
}

void RemParameterView::flush() { redraw(); }

void RemParameterView::redraw() {
  dirty_ = false;
  bool found = false;
  QCPRange x = plot_->xAxis->range();
  QCPRange left(0, 1), right(0, 1);
  bool have_left = false, have_right = false;
  for (const auto& kv : graphs_) {
    QCPGraph* g = kv.second;
    if (g->data()->isEmpty()) continue;
    bool ok = false;
    const QCPRange kx = g->getKeyRange(ok);
    if (ok) {
      x = found ? QCPRange(std::min(x.lower, kx.lower), std::max(x.upper, kx.upper)) : kx;
      found = true;
    }
    const QCPRange vy = g->getValueRange(ok);
    if (!ok) continue;
    const bool theta = std::get<2>(kv.first) == Quantity::kTheta;
    QCPRange& r = theta ? right : left;
    bool& have = theta ? have_right : have_left;
    r = have ? QCPRange(std::min(r.lower, vy.lower), std::max(r.upper, vy.upper)) : vy;
    have = true;
  }
  for (auto* line : truth_lines_) {  // keep the reference lines in view
    const double v = line->point1->coords().y();
    const bool theta = line->point1->valueAxis() == plot_->yAxis2;
    QCPRange& r = theta ? right : left;
    bool& have = theta ? have_right : have_left;
    r = have ? QCPRange(std::min(r.lower, v), std::max(r.upper, v)) : QCPRange(v, v);
    have = true;
  }
  auto padded = [](QCPRange r) {
    const double pad = std::max(0.05, 0.08 * r.size());
    return QCPRange(r.lower - pad, r.upper + pad);
  };
  if (found) plot_->xAxis->setRange(x.lower, std::max(x.upper, x.lower + 1));
  plot_->yAxis->setRange(padded(left));
  plot_->yAxis2->setRange(padded(right));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace rsalab
