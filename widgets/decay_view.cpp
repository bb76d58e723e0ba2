// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/decay_view.h"

#include <qcustomplot.h>

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/number_text.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {

// Horizons beyond this many steps are drawn at it (a decay of 1 has an infinite horizon).
constexpr double kLongestHorizon = 1e6;

double drawn(double horizon) { return std::min(horizon, kLongestHorizon); }

QString stepsText(double steps) {
  return std::isinf(steps) ? QStringLiteral("∞") : numberText(steps);
}

QString decayText(const HeadDecay& d) {
  if (d.values.size() == 1) return numberText(d.values.front());
  return QString("%1 [%2, %3]")
      .arg(numberText(d.median()), numberText(d.quantile(0.1)), numberText(d.quantile(0.9)));
}

}  // namespace

DecayView::DecayView(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel(tr("Start training to see each head's decay as a memory horizon (RSA, "
                           "RetNet, Mamba-2)."),
                        this);
  caption_->setWordWrap(true);
  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(160);
  plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot_->yAxis->setLabel(tr("memory horizon 1/(1−|a|), steps"));
  plot_->xAxis->setLabel(tr("head"));
  table_ = new QTableWidget(0, kColumnCount, this);
  table_->setHorizontalHeaderLabels({tr("head"), tr("decay of"), tr("a (median [10 %, 90 %])"),
                                     tr("half-life"), tr("horizon"), tr("true"), tr("|Δ|")});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* split = new QSplitter(Qt::Vertical, this);  // the table below: every column readable
  split->addWidget(plot_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(caption_);
  layout->addWidget(split, 1);
}

QString DecayView::caption() const { return caption_->text(); }

void DecayView::clear(const QString& message) {
  decays_.clear();
  where_.clear();
  caption_->setText(message.isEmpty() ? tr("No decays recorded.") : message);
  redraw();
}

void DecayView::setGroundTruth(const GroundTruth& truth) {
  truth_ = trueDecays(truth);
  redraw();
}

void DecayView::setRecord(qint64 step, const InspectionRecord& record, const QString& run_label) {
  decays_ = headDecays(record);
  where_ = QString("%1 at step %2, validation sample %3")
               .arg(run_label.isEmpty() ? QString::fromStdString(record.model) : run_label)
               .arg(step)
               .arg(record.sample);
  if (decays_.empty()) {
    caption_->setText(where_ + tr(": this model has no decaying heads (RSA's REMs, RetNet's γ and "
                                  "Mamba-2's a_t have)."));
  } else {
    caption_->setText(
        where_ + tr(": each head's decay a per step as a memory horizon 1/(1−|a|). Points: one "
                    "decay per head; boxes: one per token (quartiles, median, min–max). Dashed: "
                    "the task's true decays."));
  }
  redraw();
}

void DecayView::redraw() {
  plot_->clearPlottables();
  plot_->clearItems();
  table_->setRowCount(static_cast<int>(decays_.size()));
  auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
  auto* points = plot_->addGraph();
  points->setLineStyle(QCPGraph::lsNone);
  points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 8));
  points->setPen(QPen(runColor(0)));
  points->setName(tr("decay per head"));
  auto* boxes = new QCPStatisticalBox(plot_->xAxis, plot_->yAxis);
  boxes->setName(tr("decay per token"));
  boxes->setBrush(QColor(runColor(1).red(), runColor(1).green(), runColor(1).blue(), 90));
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (size_t i = 0; i < decays_.size(); ++i) {
    const HeadDecay& d = decays_[i];
    const double x = static_cast<double>(i);
    const QString name = QString("L%1 H%2").arg(d.layer).arg(d.head);
    ticker->addTick(x, name);
    if (d.values.size() == 1) {
      points->addData(x, drawn(memoryHorizon(d.values.front())));
    } else {
      // Horizons grow with the decay, so the decay's quantiles map to the horizon's.
      boxes->addData(x, drawn(memoryHorizon(d.quantile(0))), drawn(memoryHorizon(d.quantile(0.25))),
                     drawn(memoryHorizon(d.median())), drawn(memoryHorizon(d.quantile(0.75))),
                     drawn(memoryHorizon(d.quantile(1))));
    }
    lo = std::min(lo, drawn(memoryHorizon(d.quantile(0))));
    hi = std::max(hi, drawn(memoryHorizon(d.quantile(1))));
    // The table: the nearest true decay (of any kind) and the distance from the median.
    const TrueDecay* nearest = nullptr;
    for (const auto& t : truth_)
      if (!nearest || std::fabs(t.value - d.median()) < std::fabs(nearest->value - d.median()))
        nearest = &t;
    const int row = static_cast<int>(i);
    const QString cells[kColumnCount] = {
        name,
        QString::fromStdString(d.label()),
        decayText(d),
        stepsText(halfLife(d.median())),
        stepsText(memoryHorizon(d.median())),
        nearest ? QString::fromStdString(nearest->label) : tr("—"),
        nearest ? numberText(std::fabs(nearest->value - d.median())) : tr("—")};
    for (int c = 0; c < kColumnCount; ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
  }
  for (const auto& t : truth_) {
    const double y = drawn(memoryHorizon(t.value));
    auto* line = new QCPItemStraightLine(plot_);
    line->point1->setCoords(-1, y);
    line->point2->setCoords(1, y);
    line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
    auto* label = new QCPItemText(plot_);
    label->position->setCoords(-0.4, y);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setText(QString::fromStdString(t.label) +
                   QString(": %1 steps").arg(stepsText(memoryHorizon(t.value))));
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setRange(-0.5, std::max<double>(1, static_cast<double>(decays_.size())) - 0.5);
  if (!(hi > 0)) lo = 1, hi = 10;  // nothing drawn
  plot_->yAxis->setRange(lo / 1.4, std::max(hi * 1.4, lo * 4));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace rsalab
