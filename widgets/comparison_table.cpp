// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/comparison_table.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSet>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/number_text.h"
#include "widgets/run_palette.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {
// Shows `text`, sorts by `value` (NaN / missing last in ascending order).
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, const QString& text) : QTableWidgetItem(text) {
    setData(Qt::UserRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const double a = data(Qt::UserRole).toDouble(), b = other.data(Qt::UserRole).toDouble();
    if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
    return a < b;
  }
};

QString engineering(double v) {  // 1.23 k, 45.6 M: FLOPs span many decades
  if (!std::isfinite(v) || v <= 0) return QStringLiteral("–");
  static const char* kUnits[] = {"", " k", " M", " G", " T"};
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  return QString::number(v, 'f', v < 10 ? 2 : v < 100 ? 1 : 0) + kUnits[u];
}
}  // namespace

ComparisonTable::ComparisonTable(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // Side by side: the central area is wide and short, and both tables want rows.
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  table_ = new QTableWidget(splitter);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(false);

  auto* config_box = new QWidget(splitter);
  auto* config_layout = new QVBoxLayout(config_box);
  config_layout->setContentsMargins(0, 4, 0, 0);
  differences_box_ = new QCheckBox(tr("Differences only"), config_box);
  differences_box_->setToolTip(
      tr("Show only the config keys whose values differ between the models"));
  config_layout->addWidget(differences_box_);
  config_table_ = new QTableWidget(config_box);
  config_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  config_layout->addWidget(config_table_, 1);
  splitter->addWidget(table_);
  splitter->addWidget(config_box);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({600, 300});
  layout->addWidget(splitter);
  connect(differences_box_, &QCheckBox::toggled, this, &ComparisonTable::setDifferencesOnly);
  rebuild();
}

void ComparisonTable::setEntries(const QVector<ComparisonEntry>& entries) {
  entries_ = entries;
  rebuild();
}

void ComparisonTable::setDifferencesOnly(bool on) {
  differences_only_ = on;
  {
    const QSignalBlocker block(differences_box_);
    differences_box_->setChecked(on);
  }
  applyDifferencesFilter();
}

void ComparisonTable::rebuild() {
  QList<qint64> sizes;
  for (const auto& e : entries_) {
    for (auto it = e.test_loss.begin(); it != e.test_loss.end(); ++it) {
      if (!sizes.contains(it.key())) sizes.push_back(it.key());
    }
  }
  std::sort(sizes.begin(), sizes.end());

  table_->setSortingEnabled(false);
  table_->clear();
  table_->setRowCount(static_cast<int>(entries_.size()));
  table_->setColumnCount(kFirstLoss + static_cast<int>(sizes.size()));
  QStringList headers = {tr("model"),   tr("parameters"),    tr("FLOPs/token"),
                         tr("steps/s"), tr("wall time (s)"), tr("runs")};
  for (qint64 n : sizes) headers << tr("test loss N=%1").arg(n);
  table_->setHorizontalHeaderLabels(headers);
  table_->horizontalHeaderItem(kFlops)->setToolTip(
      tr("Forward FLOPs per token, counted analytically from the architecture (matrix products, "
         "attention over the task's length T); training ≈ 3×"));
  table_->horizontalHeaderItem(kStepsPerSecond)
      ->setToolTip(tr("Measured: steps ÷ run wall time, mean over the model's runs"));
  table_->horizontalHeaderItem(kWallSeconds)
      ->setToolTip(tr("Measured wall time of the model's runs, summed"));
  for (int r = 0; r < entries_.size(); ++r) {
    const auto& e = entries_[r];
    auto* name = new QTableWidgetItem(e.name);
    name->setForeground(QBrush(modelColor(e.name)));  // as in the figure
    table_->setItem(r, kModel, name);
    table_->setItem(
        r, kParameters,
        new NumberItem(static_cast<double>(e.parameters), QString::number(e.parameters)));
    table_->setItem(r, kFlops,
                    new NumberItem(e.flops_per_token > 0 ? e.flops_per_token : NAN,
                                   engineering(e.flops_per_token)));
    table_->setItem(
        r, kStepsPerSecond,
        new NumberItem(e.steps_per_second, QString::number(e.steps_per_second, 'f', 1)));
    table_->setItem(r, kWallSeconds,
                    new NumberItem(e.wall_seconds, QString::number(e.wall_seconds, 'f', 1)));
    table_->setItem(r, kRuns, new NumberItem(e.runs, QString::number(e.runs)));
    for (int k = 0; k < sizes.size(); ++k) {
      const double v = e.test_loss.value(sizes[k], NAN);
      table_->setItem(r, kFirstLoss + k, new NumberItem(v, cellText(v, 4)));
    }
  }
  table_->setSortingEnabled(true);
  table_->resizeColumnsToContents();

  QStringList keys;
  for (const auto& e : entries_) {
    for (auto it = e.config.begin(); it != e.config.end(); ++it) {
      if (!keys.contains(it.key())) keys.push_back(it.key());
    }
  }
  std::sort(keys.begin(), keys.end());
  config_table_->clear();
  config_table_->setRowCount(static_cast<int>(keys.size()));
  config_table_->setColumnCount(static_cast<int>(entries_.size()));
  QStringList names;
  for (const auto& e : entries_) names << e.name;
  config_table_->setHorizontalHeaderLabels(names);
  config_table_->setVerticalHeaderLabels(keys);
  for (int k = 0; k < keys.size(); ++k) {
    for (int c = 0; c < entries_.size(); ++c) {
      config_table_->setItem(
          k, c, new QTableWidgetItem(entries_[c].config.value(keys[k], QStringLiteral("–"))));
    }
  }
  config_table_->resizeColumnsToContents();
  applyDifferencesFilter();
}

void ComparisonTable::applyDifferencesFilter() {
  for (int k = 0; k < config_table_->rowCount(); ++k) {
    QSet<QString> values;
    for (int c = 0; c < config_table_->columnCount(); ++c)
      values.insert(config_table_->item(k, c)->text());
    config_table_->setRowHidden(k, differences_only_ && values.size() <= 1);
  }
}

QStringList ComparisonTable::visibleConfigKeys() const {
  QStringList keys;
  for (int k = 0; k < config_table_->rowCount(); ++k) {
    if (!config_table_->isRowHidden(k)) keys << config_table_->verticalHeaderItem(k)->text();
  }
  return keys;
}

QStringList ComparisonTable::modelOrder() const {
  QStringList names;
  for (int r = 0; r < table_->rowCount(); ++r) names << table_->item(r, kModel)->text();
  return names;
}

}  // namespace rsalab
