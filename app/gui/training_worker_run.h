// SPDX-License-Identifier: GPL-3.0-or-later
// TrainingWorker's per-run state (private to gui/training_worker*.cpp: the training loop in
// training_worker.cpp, what it sends out in training_worker_io.cpp).
#pragma once

#include <QElapsedTimer>
#include <cmath>
#include <memory>

#include "app/gui/training_worker.h"
#include "engine/training/trainer.h"

namespace rsalab {

struct TrainingWorker::Run {
  RunDescriptor descriptor;
  std::unique_ptr<Trainer> trainer;
  RunState state = RunState::Idle;
  MetricsBatch pending;
  double last_train = NAN, last_validation = NAN;
  double test_loss = NAN;           // series tasks with references, once finished
  std::vector<double> test_errors;  // per test target, with test_loss
  QElapsedTimer clock;              // for steps/s
  int64_t steps_at_clock = 0;
  double steps_per_second = 0;
  QString message;
  QElapsedTimer since_snapshot;
  int sample = 0;  // validation sample the snapshots inspect (the attention view's picker)
};

}  // namespace rsalab
