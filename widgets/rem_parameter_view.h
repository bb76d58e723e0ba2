// SPDX-License-Identifier: GPL-3.0-or-later
// RemParameterView: how an RSA run's REM parameters move during training. One graph per REM head
// and quantity over the training step: λ (regular heads), γ and θ (cyclical heads) and σ(µ), the
// gate between softmax attention and the REM (every REM head). θ is in radians on the right axis;
// λ, γ and σ(µ) share the left axis. The task's ground truth (when known) is drawn as dashed
// horizontal lines, so one sees whether λ, γ, θ converge to the true poles.
//
// Beside the plot, the REM matrices P_h of the shown step (layers × REM heads, HeatMapGrid), and a
// table that lists every REM head at the shown step (the newest snapshot, or the step
// chosen on the scrubber): kind, learned λ or γ/θ (period 2π/θ), σ(µ), and on tasks with ground
// truth the true component of the head's own kind, the parameter differences |Δλ| or |Δγ|, |Δθ|
// and the relative Frobenius error of the REM at the task's T
// (engine/core/registry/ground_truth.h); what "true" means for the task is said above the table.
// Below the parameter plot, a RemRecoveryPlot draws |Δ| per head over the steps (log y). A task
// whose process has no REM form (GroundTruth::no_rem_form) matches no head: the table says "no REM
// form" and a TrueKernelPlot shows its true kernel (or its reach) instead of the recovery.
// Selecting rows of the table limits both plots to those heads (no selection: all); the legends sit
// outside the plots.
//
// Data come from inspection records (SnapshotHistory): setRecords() rebuilds from a run's history,
// append() adds one snapshot as it arrives. Appends only mark the view dirty; the view redraws at
// most every 40 ms, and only while shown (RepaintThrottle).
#pragma once

#include <QString>
#include <QWidget>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "widgets/repaint_throttle.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QTableWidget;

namespace rsalab {

class HeatMapGrid;
class RemRecoveryPlot;
class TrueKernelPlot;

class RemParameterView : public QWidget {
  Q_OBJECT

 public:
  enum class Quantity { kLambda, kGamma, kTheta, kGate };
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;
  enum Column { kHead, kKind, kLearned, kTruth, kDelta, kFrobenius, kGate, kColumnCount };

  explicit RemParameterView(QWidget* parent = nullptr);

  void append(qint64 step, const InspectionRecord& record);
  void setRecords(const std::map<qint64, InspectionRecord>& records);  // replaces everything
  void clear();
  // The task's truth: dashed reference lines, per-head matches and the recovery plot; an empty
  // truth removes them. `length` is the task's T, at which the REM errors are measured (0: the REM
  // size in the records).
  void setGroundTruth(const GroundTruth& truth, int64_t length = 0);
  // The step whose heads the table lists (scrubber); a cursor line marks it on the plot.
  void setCurrentRecord(qint64 step, const InspectionRecord& record);
  qint64 currentStep() const { return current_step_; }
  // The match of (layer, head) at the current record against the truth (has_rem false: none).
  RemMatch match(int layer, int head) const;
  QTableWidget* headTable() const { return table_; }
  RemRecoveryPlot* recoveryPlot() const { return recovery_; }
  TrueKernelPlot* kernelPlot() const { return kernel_plot_; }
  QLabel* truthLabel() const { return truth_label_; }
  // Heads drawn in the plots (the table's selected rows; empty: all).
  void setShownHeads(const std::set<std::pair<int, int>>& heads);
  HeatMapGrid* remGrid() const { return rem_grid_; }
  int groundTruthLineCount() const { return static_cast<int>(truth_lines_.size()); }

  // The graph of one head's quantity, nullptr when that head never had it.
  QCPGraph* graph(int layer, int head, Quantity quantity) const;
  int graphCount() const { return static_cast<int>(graphs_.size()); }
  static QString quantityName(Quantity quantity);
  void flush();  // redraw pending changes now (tests, grabs)

 private:
  using Key = std::tuple<int, int, Quantity>;
  QCPGraph* ensureGraph(int layer, int head, Quantity quantity);
  void addPoint(int layer, int head, Quantity quantity, double step, double value);
  void addTruthLine(double value, Quantity quantity, const QString& label);
  void appendPoints(qint64 step, const InspectionRecord& record);
  void redraw();
  void rebuildTable();
  void rebuildRecovery();
  void addRecoveryPoints(qint64 step, const InspectionRecord& record);
  void onSelectionChanged();
  int64_t matchLength() const;

  QCustomPlot* plot_ = nullptr;
  std::map<Key, QCPGraph*> graphs_;
  std::vector<QCPItemStraightLine*> truth_lines_;
  QTableWidget* table_ = nullptr;
  QLabel* truth_label_ = nullptr;
  RemRecoveryPlot* recovery_ = nullptr;
  TrueKernelPlot* kernel_plot_ = nullptr;
  HeatMapGrid* rem_grid_ = nullptr;
  QCPItemStraightLine* cursor_ = nullptr;
  GroundTruth truth_;
  // Every snapshot's REM scalars (no matrices), so the recovery plot can be redrawn when the
  // truth arrives after the records.
  std::map<qint64, InspectionRecord> scalars_;
  std::set<std::pair<int, int>> shown_;
  int64_t truth_length_ = 0;
  int64_t record_length_ = 0;  // REM rows seen in the records
  InspectionRecord current_;
  qint64 current_step_ = -1;
  qint64 newest_step_ = -1;
  std::map<std::pair<int, int>, RemMatch> matches_;
  RepaintThrottle repaint_{this, [this] { redraw(); }};
};

}  // namespace rsalab
