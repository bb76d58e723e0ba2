// Sample-efficiency sweeps: models × training-set sizes N × seeds, each trained to a budget and
// scored on the held-out test split; per model a power-law fit loss ≈ a·N^(−b) with a 95% CI.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/run_config.h"
#include "engine/training/sweep_types.h"
#include "engine/training/trainer.h"

namespace rsalab {

// Runs the sweep; `progress(done, total, row)` is called after each run (from worker threads,
// serialised). Runs sharing (N, seed) share one dataset, so models see the same data.
SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress = {},
                     TrainingControl* control = nullptr);

std::string sweepCsv(const SweepResult& result);   // tidy: one row per (model, N, seed)
std::string sweepJson(const SweepResult& result);  // config, rows, fits, timing
// Reads what sweepJson wrote (rows, fits, timing and, when present, the config); curves and
// inspection records are not stored there. Throws std::runtime_error naming the bad key.
SweepResult sweepResultFromJson(const std::string& text);

}  // namespace rsalab
