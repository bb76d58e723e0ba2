// SPDX-License-Identifier: GPL-3.0-or-later
// ComparisonTable: per model, what it costs and what it reaches, so "more sample-efficient" and
// "cheaper" can be told apart: parameters, forward FLOPs per token (analytic,
// engine/core/config/flops.h), measured steps/s and wall time, and the mean test loss at each
// training-set size N. Every column sorts (numerically). Beside it, the configurations side by side
// (key × model) with a "differences only" toggle that hides the keys on which every model agrees.
// Plain data in.
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QTableWidget;

namespace rsalab {

struct ComparisonEntry {
  QString name;  // model (or any label)
  qint64 parameters = 0;
  double flops_per_token = 0;   // forward, analytic, at the task's length T
  double steps_per_second = 0;  // measured: steps ÷ run seconds, mean over the runs
  double wall_seconds = 0;      // summed over the runs
  int runs = 0;
  QMap<qint64, double> test_loss;  // N → mean test loss over seeds
  QMap<QString, QString> config;   // flattened config key → value ("model.d_model" → "32")
};

class ComparisonTable : public QWidget {
  Q_OBJECT
 public:
  // Fixed columns before the per-N loss columns.
  enum Column { kModel, kParameters, kFlops, kStepsPerSecond, kWallSeconds, kRuns, kFirstLoss };

  explicit ComparisonTable(QWidget* parent = nullptr);

  void setEntries(const QVector<ComparisonEntry>& entries);
  const QVector<ComparisonEntry>& entries() const { return entries_; }
  void setDifferencesOnly(bool on);
  bool differencesOnly() const { return differences_only_; }

  QTableWidget* table() const { return table_; }               // the metrics, sortable
  QTableWidget* configTable() const { return config_table_; }  // key × model
  QCheckBox* differencesOnlyBox() const { return differences_box_; }
  QStringList visibleConfigKeys() const;  // rows of the config table not hidden
  QStringList modelOrder() const;         // names top to bottom as currently sorted

 private:
  void rebuild();
  void applyDifferencesFilter();

  QTableWidget* table_ = nullptr;
  QTableWidget* config_table_ = nullptr;
  QCheckBox* differences_box_ = nullptr;
  QVector<ComparisonEntry> entries_;
  bool differences_only_ = false;
};

}  // namespace rsalab
