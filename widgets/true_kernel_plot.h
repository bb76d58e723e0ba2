// SPDX-License-Identifier: GPL-3.0-or-later
// TrueKernelPlot: the truth of a teacher process without an REM form (GroundTruth::no_rem_form,
// engine/core/registry/ground_truth.h), in place of the REM recovery plot: the true kernel w_k of
// the target over the lag k (power, jordan) with the reach dashed, or, for a process without a
// kernel (nonlinear, selective), its reach alone. It never draws REM parameters: there are none.
#pragma once

#include <QWidget>

#include "engine/core/registry/ground_truth.h"

class QCustomPlot;
class QCPBars;
class QCPItemStraightLine;
class QCPItemText;

namespace rsalab {

class TrueKernelPlot : public QWidget {
  Q_OBJECT

 public:
  explicit TrueKernelPlot(QWidget* parent = nullptr);
  void setTruth(const GroundTruth& truth);  // draws kernel and reach; nothing for other truths
  QCustomPlot* plot() const { return plot_; }
  int kernelPoints() const;  // bars drawn (tests)

 private:
  QCustomPlot* plot_ = nullptr;
  QCPBars* bars_ = nullptr;
  QCPItemStraightLine* reach_ = nullptr;
  QCPItemText* note_ = nullptr;
};

}  // namespace rsalab
