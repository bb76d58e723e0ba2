// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/rem_parameter_view.h"

#include <qcustomplot.h>

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "widgets/heat_map_grid.h"
#include "widgets/plot_export.h"
#include "widgets/rem_recovery_plot.h"
#include "widgets/run_palette.h"
#include "widgets/true_kernel_plot.h"

namespace rsalab {

namespace {

constexpr double kTwoPi = 6.283185307179586;

// A copy of a record without its matrices: the scalars the plots and the table read.
InspectionRecord scalarsOnly(const InspectionRecord& record) {
  InspectionRecord out = record;
  for (auto& layer : out.layers) {
    for (auto& head : layer.heads) head.attention = head.softmax_part = head.rem = Matrix{};
    layer.cross_attention.clear();
  }
  out.decoder_layers.clear();
  out.gates.clear();
  return out;
}

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
  plot_->setObjectName("RemParameterPlot");
  PlotExport::attach(plot_);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->xAxis->setLabel(tr("step"));
  plot_->yAxis->setLabel(tr("λ, γ, σ(µ)"));
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("θ (rad)"));
  // The legend sits outside the axis rect (to its right) so it never covers the curves; selecting
  // heads in the table shortens it.
  plot_->legend->setVisible(true);
  plot_->legend->setBorderPen(QPen(QColor(180, 180, 180)));
  QFont legend_font = font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.8);
  plot_->legend->setFont(legend_font);
  plot_->legend->setRowSpacing(0);  // many entries (4 per head): keep the box compact
  plot_->plotLayout()->addElement(0, 1, plot_->legend);
  plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
  cursor_ = new QCPItemStraightLine(plot_);
  for (QCPItemPosition* p : {cursor_->point1, cursor_->point2})
    p->setType(QCPItemPosition::ptPlotCoords);
  cursor_->setPen(QPen(QColor(200, 60, 60, 140), 1.0, Qt::DotLine));
  cursor_->setVisible(false);

  table_ = new QTableWidget(0, kColumnCount, this);
  table_->setObjectName("RemHeadTable");
  table_->setHorizontalHeaderLabels({tr("head"), tr("REM"), tr("learned"), tr("true (same kind)"),
                                     tr("|Δ|"), tr("rel. Frob."), tr("σ(µ)")});
  table_->horizontalHeaderItem(kDelta)->setToolTip(
      tr("|Δλ| (regular) or |Δγ|, |Δθ| in radians (cos, sin) against the true component of the "
         "head's own kind"));
  table_->horizontalHeaderItem(kFrobenius)
      ->setToolTip(tr("‖P − P*‖_F / ‖P*‖_F: the REM of the learned parameters against the true "
                      "REM, at the task's length T"));
  table_->setToolTip(tr("Select heads to draw only them in the plots (none selected: all)"));
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &RemParameterView::onSelectionChanged);
  truth_label_ = new QLabel(this);
  truth_label_->setObjectName("RemTruthLabel");
  truth_label_->setWordWrap(true);
  truth_label_->setText(tr("No ground truth for this task."));
  // At most three lines (the whole text in its tooltip), so the head table below always shows
  // its rows: a long task description once squeezed it to one visible row.
  truth_label_->setMaximumHeight(3 * fontMetrics().lineSpacing() + 4);
  truth_label_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  recovery_ = new RemRecoveryPlot(this);
  recovery_->setTolerance(kRecoveryTolerance);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  // A header and four heads visible whatever the splitter and the label above do.
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                           4 * table_->verticalHeader()->defaultSectionSize() + 4);

  rem_grid_ = new HeatMapGrid(this);
  rem_grid_->setEnlargeOnClick(true);
  auto* table_box = new QWidget(this);
  auto* table_layout = new QVBoxLayout(table_box);
  table_layout->setContentsMargins(0, 0, 0, 0);
  table_layout->addWidget(truth_label_);
  table_layout->addWidget(table_, 1);
  auto* side = new QSplitter(Qt::Vertical, this);
  side->addWidget(table_box);
  side->addWidget(rem_grid_);
  side->setStretchFactor(0, 1);
  side->setStretchFactor(1, 1);
  side->setSizes({1000, 1000});  // proportions; the splitter scales them to its height
  side->setCollapsible(0, false);
  auto* plots = new QSplitter(Qt::Vertical, this);
  plots->addWidget(plot_);
  plots->addWidget(recovery_);
  kernel_plot_ = new TrueKernelPlot(this);
  kernel_plot_->setVisible(false);
  plots->addWidget(kernel_plot_);
  plots->setSizes({3000, 2000, 2000});  // the recovery or the kernel plot: one is hidden
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(plots);
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
  const bool shown = shown_.empty() || shown_.count({layer, head}) > 0;
  g->setVisible(shown);
  if (!shown) g->removeFromLegend();
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
  scalars_[step] = scalarsOnly(record);
  addRecoveryPoints(step, scalars_[step]);
  const double x = static_cast<double>(step);
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& heads = record.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const HeadInspection& head = heads[h];
      if (!head.has_rem) continue;
      const int li = static_cast<int>(l), hi = static_cast<int>(h);
      if (head.rem_kind == RemKind::Regular) {
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
      const QString title = head.rem_kind == RemKind::Regular
                                ? QString("%1 λ=%2").arg(name).arg(head.lambda, 0, 'g', 3)
                                : QString("%1 %2\nγ=%3 θ=%4")
                                      .arg(name, QString(remKindName(head.rem_kind)))
                                      .arg(head.gamma, 0, 'g', 3)
                                      .arg(head.theta, 0, 'g', 3);
      rem_grid_->setCell(static_cast<int>(l), col++, head.rem, title, {}, {}, name + " REM");
    }
  }
  current_ = scalarsOnly(record);  // the table needs the scalars only
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

RemMatch RemParameterView::match(int layer, int head) const {
  const auto it = matches_.find({layer, head});
  return it == matches_.end() ? RemMatch{} : it->second;
}

int64_t RemParameterView::matchLength() const {
  return truth_length_ > 0 ? truth_length_ : record_length_;
}

void RemParameterView::rebuildTable() {
  matches_.clear();
  int rows = 0;
  for (const auto& layer : current_.layers)
    for (const auto& head : layer.heads) rows += head.has_rem ? 1 : 0;
  const QSignalBlocker block(table_);  // keep the selection: rebuilding is not a user's choice
  table_->setRowCount(rows);
  int row = 0;
  auto put = [this, &row](int column, const QString& text) {
    auto* item = table_->item(row, column);
    if (!item) table_->setItem(row, column, item = new QTableWidgetItem);
    item->setText(text);
  };
  auto num = [](double v) { return QString::number(v, 'f', 3); };
  auto small = [](double v) { return QString::number(v, 'g', 2); };
  auto period = [](double theta) {
    return std::abs(theta) > 1e-9 ? QString(" (P=%1)").arg(kTwoPi / std::abs(theta), 0, 'f', 1)
                                  : QString();
  };
  for (size_t l = 0; l < current_.layers.size(); ++l) {
    const auto& heads = current_.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const HeadInspection& head = heads[h];
      if (!head.has_rem) continue;
      const bool regular = head.rem_kind == RemKind::Regular;
      QString kind = QString(remKindName(head.rem_kind));
      if (head.dilation > 1) kind += QString(" d=%1").arg(head.dilation);
      QString learned = regular ? QString("λ=%1").arg(num(head.lambda))
                                : QString("γ=%1 θ=%2").arg(num(head.gamma), num(head.theta));
      if (!regular) learned += period(head.theta);
      const RemMatch m = matchRem(head, truth_, matchLength());
      matches_[{static_cast<int>(l), static_cast<int>(h)}] = m;
      put(kHead, QString("L%1 H%2").arg(l).arg(h));
      put(kKind, kind);
      put(kLearned, learned);
      put(kGate, num(head.gate));
      if (truth_.no_rem_form) {
        put(kTruth, tr("no REM form"));
      } else if (truth_.empty()) {
        put(kTruth, QString("–"));
      } else if (!m.matched) {
        put(kTruth, tr("no true component of this kind"));
      } else {
        put(kTruth, regular ? QString("λ*=%1").arg(num(m.truth.base))
                            : QString("γ*=%1 θ*=%2").arg(num(m.truth.base), num(m.truth.theta)) +
                                  period(m.truth.theta));
      }
      put(kDelta, !m.matched ? QString()
                  : regular
                      ? QString("|Δλ|=%1").arg(small(m.delta_base))
                      : QString("|Δγ|=%1 |Δθ|=%2").arg(small(m.delta_base), small(m.delta_theta)));
      put(kFrobenius, m.matched ? small(m.rel_frobenius) : QString());
      table_->item(row, kHead)
          ->setForeground(runColor(static_cast<int>(l) * 8 + static_cast<int>(h)));
      ++row;
    }
  }
}

void RemParameterView::addRecoveryPoints(qint64 step, const InspectionRecord& record) {
  if (truth_.empty()) return;
  const double x = static_cast<double>(step);
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& heads = record.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const RemMatch m = matchRem(heads[h], truth_, matchLength());
      if (!m.matched) continue;
      const int li = static_cast<int>(l), hi = static_cast<int>(h);
      const bool cyclical = m.kind != RemKind::Regular;
      recovery_->addPoint(li, hi, cyclical, RemRecoveryPlot::Delta::kBase, x, m.delta_base);
      if (cyclical)
        recovery_->addPoint(li, hi, cyclical, RemRecoveryPlot::Delta::kTheta, x, m.delta_theta);
    }
  }
}

void RemParameterView::rebuildRecovery() {
  recovery_->clear();
  for (const auto& kv : scalars_) addRecoveryPoints(kv.first, kv.second);
  recovery_->setVisible(!truth_.empty());
}

void RemParameterView::onSelectionChanged() {
  std::set<std::pair<int, int>> heads;
  for (const auto& range : table_->selectedRanges()) {
    for (int row = range.topRow(); row <= range.bottomRow(); ++row) {
      auto* item = table_->item(row, kHead);
      if (!item) continue;
      int l = 0, h = 0;
      if (std::sscanf(item->text().toUtf8().constData(), "L%d H%d", &l, &h) == 2)
        heads.insert({l, h});
    }
  }
  setShownHeads(heads);
}

void RemParameterView::setShownHeads(const std::set<std::pair<int, int>>& heads) {
  shown_ = heads;
  for (const auto& kv : graphs_) {
    const bool show =
        shown_.empty() || shown_.count({std::get<0>(kv.first), std::get<1>(kv.first)}) > 0;
    kv.second->setVisible(show);
    if (show) {
      kv.second->addToLegend();
    } else {
      kv.second->removeFromLegend();
    }
  }
  recovery_->setShownHeads(heads);
  repaint_.markDirty();
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
  scalars_.clear();
  recovery_->clear();
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

void RemParameterView::setGroundTruth(const GroundTruth& truth, int64_t length) {
  truth_ = truth;
  truth_length_ = length;
  for (auto* line : truth_lines_) plot_->removeItem(line);
  truth_lines_.clear();
  for (double v : truth.lambdas()) addTruthLine(v, Quantity::kLambda, QString("true λ=%1").arg(v));
  for (const auto& [g, t] : truth.cyclical()) {
    addTruthLine(g, Quantity::kGamma, QString("true γ=%1").arg(g));
    addTruthLine(t, Quantity::kTheta, QString("true θ=%1").arg(t));
  }
  kernel_plot_->setTruth(truth);
  kernel_plot_->setVisible(truth.no_rem_form);
  truth_label_->setText(
      truth.no_rem_form ? tr("True: %1 — %2. Below: %3.")
                              .arg(QString::fromStdString(truth.meaning),
                                   QString::fromStdString(truth.description),
                                   truth.kernel.empty() ? tr("the reach (no linear kernel)")
                                                        : tr("the true kernel, its reach dashed"))
      : truth.empty() ? tr("No ground truth for this task.")
                      : tr("True: %1 — %2. Dashed lines: true values; below: |Δ| per head (log), "
                           "dashed at %3.")
                            .arg(QString::fromStdString(truth.meaning),
                                 QString::fromStdString(truth.description))
                            .arg(kRecoveryTolerance));
  truth_label_->setToolTip(truth_label_->text());
  rebuildTable();
  rebuildRecovery();
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
  for (auto* line : truth_lines_) {  // keep the truth lines in view
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
  recovery_->replot();
}

}  // namespace rsalab
