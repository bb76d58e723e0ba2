// Sample-efficiency sweeps: models × training-set sizes N × seeds, each trained to a budget and
// scored on the held-out test split; per model a power-law fit loss ≈ a·N^(−b) with a 95% CI.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/run_config.h"
#include "engine/training/power_law.h"
#include "engine/training/sweep_row.h"
#include "engine/training/trainer.h"

namespace rsalab {

struct SweepOptions {
  RunConfig base;                    // task, model and trainer settings shared by every run
  std::vector<std::string> models = {"rnn", "gru", "lstm", "transformer", "rsa", "linear", "starsaber"};
  std::vector<int64_t> sizes = {16, 64, 256, 1024, 4096};
  int64_t seeds = 3;
  int64_t parallel = 0;              // concurrent runs; 0 = one per core (each on 1 thread)
  bool keep_curves = false;          // fill SweepRow::train_curve / validation_curve (figures, GUI)
  bool keep_inspection = false;      // fill SweepRow::inspection after each run (GUI)
};

struct SweepResult {
  RunConfig base;  // the shared config (its model is the first model's; train_size varies)
  std::vector<SweepRow> rows;
  std::vector<PowerLawFit> fits;
  double wall_seconds = 0;
  int64_t parallel = 1;
  int64_t threads_per_run = 1;
};

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
