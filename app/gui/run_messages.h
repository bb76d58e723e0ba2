// SPDX-License-Identifier: GPL-3.0-or-later
// Plain value types that cross from the training worker to the GUI in queued signals: runs (the
// Run record, engine/core/session/run_record.h) and their statuses, metric batches, snapshots.
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
#include "engine/core/session/run_record.h"
#include "widgets/sample_input.h"

namespace rsalab {

struct MetricsBatch {  // points since the last batch, ~20 Hz
  int run = 0;
  QVector<StepMetrics> steps;
  QVector<EvalMetrics> evals;
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

Q_DECLARE_METATYPE(rsalab::Run)
Q_DECLARE_METATYPE(rsalab::MetricsBatch)
Q_DECLARE_METATYPE(rsalab::RunStatus)
Q_DECLARE_METATYPE(rsalab::InspectionSnapshot)
Q_DECLARE_METATYPE(rsalab::RunConfig)
Q_DECLARE_METATYPE(rsalab::HotParameters)
