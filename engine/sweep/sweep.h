// SPDX-License-Identifier: GPL-3.0-or-later
// Sample-efficiency sweeps: models × training-set sizes N × seeds, each trained to a budget and
// scored on the held-out test split; per model a power-law fit loss ≈ a·N^(−b) with a 95% CI.
// A sweep is a plan of cells (engine/core/sweep/sweep_plan.h); runSweepCells trains any subset of
// them in this process, which is what the GUI's sweep, the local `rsalab-cli sweep` and one Slurm
// array task (`rsalab-cli sweep-cell`) all do. The sweep's files (sweep.csv, sweep.json) are
// written and read in engine/core/sweep/sweep_io.h, a cell's in engine/core/sweep/sweep_cell.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/sweep/sweep_cell.h"
#include "engine/core/sweep/sweep_io.h"  // sweepCsv, sweepJson, sweepResultFromJson
#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/sweep/sweep_types.h"
#include "engine/training/trainer.h"

namespace rsalab {

struct SweepCellsOptions {
  int64_t parallel = 0;  // concurrent cells; 0 = one per core
  int64_t threads = 0;   // intra-op threads per cell; 0 = cores / parallel (at least 1)
  bool keep_curves = true;
  bool keep_inspection = false;
  bool keep_forecasts = false;
  std::string run_folder;  // SweepOptions::run_folder
  int curve_points = 0;    // SweepOptions::curve_points
};

struct SweepCellsTiming {
  int64_t parallel = 1;
  int64_t threads_per_run = 1;
  double wall_seconds = 0;
};

// Trains the plan's cells `indices` (each index once) and hands each finished cell to `done`
// (from worker threads, serialised), in completion order. Cells sharing (N, seed) share one
// dataset; the cells run seed by seed, a dataset's cells together, and each dataset is freed once
// its last cell has finished, so a long sweep holds the datasets of about one seed at a time. With
// `control` stopped, no further cell starts and the running ones stop after their step: they come
// back with stop_reason "stopped" (not a result to keep). A cell's own failure (bad config, out of
// memory) comes back in row.error; the others go on.
SweepCellsTiming runSweepCells(const SweepPlan& plan, const std::vector<int64_t>& indices,
                               const SweepCellsOptions& options,
                               const std::function<void(SweepCellResult&&)>& done,
                               TrainingControl* control = nullptr);

// Runs a whole sweep in memory (the GUI's): plan + every cell + fits. `progress(done, total, row)`
// is called after each run (from worker threads, serialised).
SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress = {},
                     TrainingControl* control = nullptr);

}  // namespace rsalab
