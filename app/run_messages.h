// Plain value types that cross from the training worker to the GUI in queued signals.
// No LibTorch types: the worker copies everything to the CPU before emitting.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>

#include "engine/inspection.h"
#include "engine/run_config.h"
#include "engine/training/metrics.h"
#include "engine/training/trainer_options.h"

namespace rsalab {

// Diverged: a non-finite loss or gradient paused the run; it can be restored to its last good
// state and resumed (TrainingWorker::restoreLastGood). Failed: an error ended it.
enum class RunState { Idle, Running, Paused, Finished, Stopped, Failed, Diverged };
QString runStateName(RunState state);

// One run = one model × one seed on the session's task.
struct RunDescriptor {
  int id = 0;
  QString model;
  quint64 seed = 0;
  qint64 parameters = 0;
};

struct MetricsBatch {           // points since the last batch, ~20 Hz
  int run = 0;
  QVector<StepMetrics> steps;
  QVector<EvalMetrics> evals;
};

struct RunStatus {
  int run = 0;
  RunState state = RunState::Idle;
  qint64 step = 0;
  qint64 max_steps = 0;
  double train_loss = 0;
  double validation_loss = 0;   // NaN until the first evaluation
  double steps_per_second = 0;
  QString message;              // error or stop reason
};

struct InspectionSnapshot {
  int run = 0;
  qint64 step = 0;
  InspectionRecord record;
};

}  // namespace rsalab

Q_DECLARE_METATYPE(rsalab::RunDescriptor)
Q_DECLARE_METATYPE(rsalab::MetricsBatch)
Q_DECLARE_METATYPE(rsalab::RunStatus)
Q_DECLARE_METATYPE(rsalab::InspectionSnapshot)
Q_DECLARE_METATYPE(rsalab::RunConfig)
Q_DECLARE_METATYPE(rsalab::HotParameters)
