// SPDX-License-Identifier: GPL-3.0-or-later
// Plain value types that cross from the training worker to the GUI in queued signals.
// No LibTorch types: the worker copies everything to the CPU before emitting.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>
#include <limits>
#include <memory>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/config/trainer_options.h"
#include "engine/core/forecast/metrics.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "widgets/sample_input.h"

namespace rsalab {

// One run = one model × one seed on the session's task.
struct RunDescriptor {
  int id = 0;
  QString model;
  quint64 seed = 0;
  qint64 parameters = 0;
  // The task's ground truth (seasonal / ar / teacher): REM components matched against the learned
  // ones, what "true" means there, and the Bayes floor where the task knows it.
  GroundTruth truth;
  qint64 length = 0;  // the task's sequence length T (REM errors are measured at it)
  // The training set the run actually has (TaskData::train.size()) and the N it was asked for:
  // a short series caps N (AirPassengers: 75 windows when 1024 are asked for).
  qint64 train_size = 0;
  qint64 requested_train_size = 0;
  // Series tasks: baselines on the same validation and test targets (TaskData::references).
  std::vector<ReferenceScore> references;
  // The task's horizon and season: the skill interval's block length (skill_interval.h).
  qint64 horizon = 1;
  qint64 season = 1;
};

struct MetricsBatch {  // points since the last batch, ~20 Hz
  int run = 0;
  QVector<StepMetrics> steps;
  QVector<EvalMetrics> evals;
};

struct RunStatus {
  int run = 0;
  // engine/core/io/enums.h. Diverged: a non-finite loss or gradient paused the run; it can be
  // restored to its last good state and resumed (TrainingWorker::restoreLastGood).
  RunState state = RunState::Idle;
  qint64 step = 0;
  qint64 max_steps = 0;
  double train_loss = 0;
  double validation_loss = 0;                                   // NaN until the first evaluation
  double test_loss = std::numeric_limits<double>::quiet_NaN();  // finished, with references
  std::vector<double> test_errors;  // per test target (EvalMetrics::target_errors), finished
  double steps_per_second = 0;
  QString message;  // error or stop reason
};

struct InspectionSnapshot {
  int run = 0;
  qint64 step = 0;
  // Copied once off the trainer in the worker, then shared (read-only) by every view and store
  // that keeps it: a queued signal copies the pointer, not the T×T matrices.
  std::shared_ptr<const InspectionRecord> record;
  SampleInput input;  // the inspected sample's input sequence (labels, the gate view's strip)
};

}  // namespace rsalab

Q_DECLARE_METATYPE(rsalab::RunDescriptor)
Q_DECLARE_METATYPE(rsalab::MetricsBatch)
Q_DECLARE_METATYPE(rsalab::RunStatus)
Q_DECLARE_METATYPE(rsalab::InspectionSnapshot)
Q_DECLARE_METATYPE(rsalab::RunConfig)
Q_DECLARE_METATYPE(rsalab::HotParameters)
