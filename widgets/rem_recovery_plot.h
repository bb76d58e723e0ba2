// SPDX-License-Identifier: GPL-3.0-or-later
// RemRecoveryPlot: how far each REM head's learned parameters are from the task's truth, over the
// training step, on a log y axis: |Δλ| for regular heads, |Δγ| and |Δθ| (radians) for cyclical
// ones, each against the true component of the head's own kind
// (engine/core/registry/ground_truth.h). A recovery shows as lines falling towards the dashed
// tolerance line. Plain numbers in: the owner (RemParameterView) computes the matches; this view
// only draws them.
#pragma once

#include <QWidget>
#include <map>
#include <set>
#include <tuple>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;

namespace rsalab {

class RemRecoveryPlot : public QWidget {
  Q_OBJECT

 public:
  enum class Delta { kBase, kTheta };  // |Δλ| or |Δγ|; |Δθ|
  explicit RemRecoveryPlot(QWidget* parent = nullptr);

  void clear();
  // One point; `cyclical` names the base γ (else λ). Values ≤ 0 are drawn at the axis floor.
  void addPoint(int layer, int head, bool cyclical, Delta delta, double step, double value);
  // Heads whose lines are drawn (empty: all).
  void setShownHeads(const std::set<std::pair<int, int>>& heads);
  void setTolerance(double tolerance);  // dashed reference line; ≤ 0 hides it
  void replot();

  QCPGraph* graph(int layer, int head, Delta delta) const;
  int graphCount() const { return static_cast<int>(graphs_.size()); }
  QCustomPlot* plot() const { return plot_; }

 private:
  using Key = std::tuple<int, int, Delta>;
  QCustomPlot* plot_ = nullptr;
  std::map<Key, QCPGraph*> graphs_;
  std::set<std::pair<int, int>> shown_;
  QCPItemStraightLine* tolerance_ = nullptr;
  double tolerance_value_ = 0;
};

}  // namespace rsalab
