// SPDX-License-Identifier: GPL-3.0-or-later
// DecayView: each decaying head's learned decay a, read as a memory horizon, at the shown step.
// The decays are what the heads multiply their memory by per step (memory_horizon.h): RSA's
// regular |λ| and cyclical γ, RetNet's γ_h (fixed or learned) and Mamba-2's a_t = exp(Δ_t·A_h),
// which changes with every token and is drawn as a distribution over the sample's tokens (a box
// from the 25 % to the 75 % token, whiskers from the smallest to the largest, a line at the
// median). The plot's y axis is the horizon 1/(1 − |a|) in steps, on a log scale; the task's true
// decays, where it knows them, are dashed lines at their horizons. The table beside it lists per
// head: the decay, its half-life ln ½ / ln |a|, its horizon, and the nearest true decay with
// |Δ|. Plain data in (inspection records and the task's truth): no LibTorch.
#pragma once

#include <QWidget>

#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/registry/memory_horizon.h"

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace rsalab {

class DecayView : public QWidget {
  Q_OBJECT

 public:
  enum Column { kHead, kSource, kDecay, kHalfLife, kHorizon, kTruth, kDelta, kColumnCount };

  explicit DecayView(QWidget* parent = nullptr);

  // Shows the decays of `record` (taken at `step`); `run_label` names the run in the caption.
  void setRecord(qint64 step, const InspectionRecord& record, const QString& run_label = {});
  // The task's truth (dashed horizons, the table's truth column); empty removes it.
  void setGroundTruth(const GroundTruth& truth);
  void clear(const QString& message = {});

  const std::vector<HeadDecay>& decays() const { return decays_; }
  QTableWidget* table() const { return table_; }
  QCustomPlot* plot() const { return plot_; }
  QString caption() const;
  int truthLineCount() const { return static_cast<int>(truth_.size()); }

 private:
  void redraw();

  QLabel* caption_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QTableWidget* table_ = nullptr;
  std::vector<HeadDecay> decays_;
  std::vector<TrueDecay> truth_;
  QString where_;
};

}  // namespace rsalab
