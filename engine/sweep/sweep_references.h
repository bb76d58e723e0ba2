// SPDX-License-Identifier: GPL-3.0-or-later
// Honest N and reference rows for sweeps (kept apart from the sweep loop in sweep.cpp).
// - A real series has a limited number of training windows: sizes asked beyond it give the same
//   N. honestSweepSizes maps every requested size to the N it gives and keeps each N once, with a
//   note for the user; rows carry the N used (SweepRow::size) and the first size asked for it.
// - Every dataset's references (TaskData::references: persistence, seasonal naive, AR(p) fitted
//   on the same N windows, …) become rows of their own (SweepRow::reference), so sweep.csv and the
//   sample-efficiency view show them beside the models at every N.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/sweep/sweep_types.h"
#include "engine/tasks/task.h"

namespace rsalab {

// The distinct N the requested sizes give, ascending; notes name the sizes that collapsed.
std::vector<int64_t> honestSweepSizes(const SweepOptions& options, std::vector<std::string>* notes);
// The smallest requested size that gives N (N itself when none does).
int64_t requestedSize(const SweepOptions& options, int64_t n);
// A sweep's dataset: (task-axis value or NaN, N, seed).
struct SweepDatasetKey {
  double axis_value;
  int64_t size;
  uint64_t seed;
  bool operator<(const SweepDatasetKey& o) const;
};
using SweepDatasets = std::map<SweepDatasetKey, std::shared_ptr<const TaskData>>;
// The task options of a row's dataset: the base task with the row's task-axis value.
TaskOptions sweepTaskOptions(const SweepOptions& options, double axis_value);
// Appends one reference row per dataset and reference, after the runs.
void appendReferenceRows(const SweepOptions& options, const SweepDatasets& datasets,
                         SweepResult& result);

// The same for a finished sweep whose datasets are gone (plan + cells + merge): every (N, seed)
// of the rows' models is built again (deterministic for (task, N, seed)) for its references.
void appendReferenceRows(const SweepOptions& options, SweepResult& result);

}  // namespace rsalab
