#include "widgets/rem_parameter_view.h"

#include <qcustomplot.h>

#include <QHeaderView>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/heat_map_grid.h"
#include "widgets/plot_export.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {

constexpr double kTwoPi = 6.283185307179586;

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
  plot_->legend->setRowSpacing(0);  // many entries (4 per head): keep the box compact
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  cursor_ = new QCPItemStraightLine(plot_);
  for (QCPItemPosition* p : {cursor_->point1, cursor_->point2})
    p->setType(QCPItemPosition::ptPlotCoords);
  cursor_->setPen(QPen(QColor(200, 60, 60, 140), 1.0, Qt::DotLine));
  cursor_->setVisible(false);

  table_ = new QTableWidget(0, kColumnCount, this);
  table_->setHorizontalHeaderLabels(
      {tr("head"), tr("sim. to truth"), tr("learned"), tr("σ(µ)"), tr("REM"), tr("closest true")});
  table_->horizontalHeaderItem(kSimilarity)
      ->setToolTip(tr(
          "Cosine similarity between the REM built from the learned parameters and the REM of the "
          "closest true component, at the task's length T (1 = same matrix up to scale)"));
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);

  rem_grid_ = new HeatMapGrid(this);
  rem_grid_->setEnlargeOnClick(true);
  auto* side = new QSplitter(Qt::Vertical, this);
  side->addWidget(table_);
  side->addWidget(rem_grid_);
  side->setStretchFactor(0, 1);
  side->setStretchFactor(1, 2);
  side->setSizes({1000, 2000});  // proportions; the splitter scales them to its height
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(plot_);
  split->addWidget(side);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({3000, 2000});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
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
  appendPoints(step, record);
  // The table follows the newest snapshot unless a scrubbed-back step is shown.
  const bool following = current_step_ < 0 || current_step_ >= newest_step_;
  newest_step_ = std::max(newest_step_, step);
  if (following) setCurrentRecord(step, record);
}

void RemParameterView::appendPoints(qint64 step, const InspectionRecord& record) {
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
  repaint_.markDirty();
}

void RemParameterView::setCurrentRecord(qint64 step, const InspectionRecord& record) {
  current_step_ = step;
  current_ = record;
  // The REM matrices, layers × REM heads (REM heads come first in every layer).
  int rem_heads = 0;
  for (const auto& layer : record.layers) {
    int n = 0;
    for (const auto& head : layer.heads) n += head.has_rem ? 1 : 0;
    rem_heads = std::max(rem_heads, n);
  }
  rem_grid_->setGridSize(rem_heads > 0 ? static_cast<int>(record.layers.size()) : 0, rem_heads);
  for (size_t l = 0; l < record.layers.size() && rem_heads > 0; ++l) {
    int col = 0;
    for (size_t h = 0; h < record.layers[l].heads.size(); ++h) {
      const HeadInspection& head = record.layers[l].heads[h];
      if (!head.has_rem) continue;
      const QString name = QString("L%1 H%2").arg(l).arg(h);
      // Short titles: the cells are narrow. The kind is implied by the parameters for regular.
      const QString title = head.rem_kind == "regular"
                                ? QString("%1 λ=%2").arg(name).arg(head.lambda, 0, 'g', 3)
                                : QString("%1 %2\nγ=%3 θ=%4")
                                      .arg(name, QString::fromStdString(head.rem_kind))
                                      .arg(head.gamma, 0, 'g', 3)
                                      .arg(head.theta, 0, 'g', 3);
      rem_grid_->setCell(static_cast<int>(l), col++, head.rem, title, {}, {}, name + " REM");
    }
  }
  for (auto& layer : current_.layers) {  // the table needs the scalars only
    for (auto& head : layer.heads) head.attention = head.softmax_part = head.rem = Matrix{};
  }
  // The record's REM size is the task's T unless setGroundTruth says otherwise.
  for (const auto& layer : record.layers)
    for (const auto& head : layer.heads)
      if (head.has_rem && head.rem.rows > 0) record_length_ = head.rem.rows;
  cursor_->point1->setCoords(static_cast<double>(step), 0);
  cursor_->point2->setCoords(static_cast<double>(step), 1);
  cursor_->setVisible(step >= 0);
  rebuildTable();
  repaint_.markDirty();
}

double RemParameterView::similarity(int layer, int head) const {
  const auto it = similarity_.find({layer, head});
  return it == similarity_.end() ? std::nan("") : it->second;
}

void RemParameterView::rebuildTable() {
  similarity_.clear();
  int rows = 0;
  for (const auto& layer : current_.layers)
    for (const auto& head : layer.heads) rows += head.has_rem ? 1 : 0;
  table_->setRowCount(rows);
  int row = 0;
  auto put = [this, &row](int column, const QString& text) {
    auto* item = table_->item(row, column);
    if (!item) table_->setItem(row, column, item = new QTableWidgetItem);
    item->setText(text);
  };
  auto num = [](double v) { return QString::number(v, 'f', 3); };
  for (size_t l = 0; l < current_.layers.size(); ++l) {
    const auto& heads = current_.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const HeadInspection& head = heads[h];
      if (!head.has_rem) continue;
      const bool regular = head.rem_kind == "regular";
      QString kind = QString::fromStdString(head.rem_kind);
      if (head.dilation > 1) kind += QString(" d=%1").arg(head.dilation);
      QString learned = regular ? QString("λ=%1").arg(num(head.lambda))
                                : QString("γ=%1 θ=%2").arg(num(head.gamma), num(head.theta));
      if (!regular && std::abs(head.theta) > 1e-9)
        learned += QString(" (P=%1)").arg(kTwoPi / std::abs(head.theta), 0, 'f', 1);
      std::string matched;
      const int64_t T = truth_length_ > 0 ? truth_length_ : record_length_;
      const double sim = remTruthSimilarity(head, truth_, T, &matched);
      similarity_[{static_cast<int>(l), static_cast<int>(h)}] = sim;
      put(kHead, QString("L%1 H%2").arg(l).arg(h));
      put(kKind, kind);
      put(kLearned, learned);
      put(kGate, num(head.gate));
      put(kSimilarity, std::isnan(sim) ? QString("–") : num(sim));
      put(kMatched, std::isnan(sim) ? QString() : QString::fromStdString(matched));
      table_->item(row, kHead)
          ->setForeground(runColor(static_cast<int>(l) * 8 + static_cast<int>(h)));
      ++row;
    }
  }
}

void RemParameterView::setRecords(const std::map<qint64, InspectionRecord>& records) {
  clear();
  for (const auto& kv : records) appendPoints(kv.first, kv.second);
  if (!records.empty()) newest_step_ = records.rbegin()->first;
  if (!records.empty()) setCurrentRecord(records.rbegin()->first, records.rbegin()->second);
  repaint_.markDirty();
}

void RemParameterView::clear() {
  for (const auto& kv : graphs_) plot_->removeGraph(kv.second);
  graphs_.clear();
  current_ = InspectionRecord{};
  current_step_ = newest_step_ = -1;
  cursor_->setVisible(false);
  rem_grid_->setGridSize(0, 0);
  rebuildTable();
  repaint_.markDirty();
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
                                      const std::vector<double>& thetas, int64_t length) {
  truth_ = RemTruth{lambdas, gammas, thetas};
  truth_length_ = length;
  for (auto* line : truth_lines_) plot_->removeItem(line);
  truth_lines_.clear();
  for (double v : lambdas) addTruthLine(v, Quantity::kLambda, QString("true λ=%1").arg(v));
  for (double v : gammas) addTruthLine(v, Quantity::kGamma, QString("true γ=%1").arg(v));
  for (double v : thetas) addTruthLine(v, Quantity::kTheta, QString("true θ=%1").arg(v));
  rebuildTable();
  repaint_.markDirty();
}

void RemParameterView::flush() {
  repaint_.markDirty();
  repaint_.flush();
}

void RemParameterView::redraw() {
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
