// Sample-efficiency sweeps: models × training-set sizes N × seeds, each trained to a budget and
// scored on the held-out test split; per model a power-law fit loss ≈ a·N^(−b) with a 95% CI.
// The sweep's files (sweep.csv, sweep.json) are written and read in engine/training/sweep_io.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/run_config.h"
#include "engine/training/sweep_io.h"  // sweepCsv, sweepJson, sweepResultFromJson
#include "engine/training/sweep_types.h"
#include "engine/training/trainer.h"

namespace rsalab {

// Runs the sweep; `progress(done, total, row)` is called after each run (from worker threads,
// serialised). Runs sharing (N, seed) share one dataset, so models see the same data.
SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress = {},
                     TrainingControl* control = nullptr);

}  // namespace rsalab
