// Sample-efficiency sweeps: models × training-set sizes N × seeds, each trained to a budget and
// scored on the held-out test split; per model a power-law fit loss ≈ a·N^(−b) with a 95% CI.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/run_config.h"
#include "engine/training/trainer.h"

namespace rsalab {

struct SweepOptions {
  RunConfig base;                    // task, model and trainer settings shared by every run
  std::vector<std::string> models = {"rnn", "gru", "lstm", "transformer", "rsa", "linear", "starsaber"};
  std::vector<int64_t> sizes = {16, 64, 256, 1024, 4096};
  int64_t seeds = 3;
  int64_t parallel = 0;              // concurrent runs; 0 = one per core (each on 1 thread)
  bool keep_metrics = false;         // fill SweepRow::step_metrics/eval_metrics (session bundles); memory grows
};

struct SweepRow {
  std::string model;
  int64_t size = 0;
  uint64_t seed = 0;
  double test_loss = 0;
  std::map<std::string, double> test_metrics;
  double best_validation = 0;
  int64_t steps = 0;
  double seconds = 0;
  int64_t parameters = 0;
  std::string stop_reason;
  std::string error;  // non-empty: this run failed (the others go on)
  std::vector<StepMetrics> step_metrics;  // every step and evaluation (incl. the test one),
  std::vector<EvalMetrics> eval_metrics;  // only when SweepOptions::keep_metrics
};

struct PowerLawFit {
  std::string model;
  double a = 0, b = 0;            // loss ≈ a·N^(−b)
  double b_low = 0, b_high = 0;   // 95% confidence interval of b
  double r2 = 0;
  int64_t points = 0;
};

// Least squares on (log N, log loss); the CI uses Student's t with n−2 degrees of freedom.
PowerLawFit fitPowerLaw(const std::vector<double>& sizes, const std::vector<double>& losses);

struct SweepResult {
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
std::string sweepJson(const SweepResult& result);  // rows, fits, timing

}  // namespace rsalab
