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

// One live run: its record (what it is and where it is now: what the GUI receives) and what
// only the worker thread holds (its Trainer, the points not sent yet, the clocks).
struct TrainingWorker::WorkerRun {
  Run record;
  std::unique_ptr<Trainer> trainer;
  MetricsBatch pending;
  QElapsedTimer clock;  // for steps/s
  int64_t steps_at_clock = 0;
  QElapsedTimer since_snapshot;
  int sample = 0;  // validation sample the snapshots inspect (the attention view's picker)
  int number() const { return static_cast<int>(record.id.number); }
  RunState& state() { return record.now.state; }
  RunState state() const { return record.now.state; }
  QString label() const {  // "rsa seed 3", for the log
    return QString("%1 seed %2")
        .arg(QString::fromStdString(record.what.model))
        .arg(record.what.seed);
  }
};

}  // namespace rsalab
