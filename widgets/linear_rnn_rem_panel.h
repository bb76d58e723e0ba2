// SPDX-License-Identifier: GPL-3.0-or-later
// LinearRnnRemPanel: why REMs — a small random linear RNN h_t = W h_{t−1} + z_t (z_t = U x_t)
// computed two ways (LinearRnnDemo, engine/core/verdicts/linear_rnn_demo.h). The panel plots W's
// eigenvalues against the unit circle and prints the max |difference| with the claim's verdict.
#pragma once

#include <QWidget>

#include "engine/core/verdicts/linear_rnn_demo.h"

class QCustomPlot;
class QLabel;

namespace rsalab {

class LinearRnnRemPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LinearRnnRemPanel(QWidget* parent = nullptr);
  void regenerate(unsigned seed);
  const LinearRnnDemo& demo() const { return demo_; }
  double maxError() const { return error_; }

 private:
  QCustomPlot* plot_ = nullptr;
  QLabel* label_ = nullptr;
  LinearRnnDemo demo_;
  double error_ = 0;
  unsigned seed_ = 1;
};

}  // namespace rsalab
