// SPDX-License-Identifier: GPL-3.0-or-later
// A sample-efficiency sweep as plain data (no LibTorch): what to run (SweepOptions), one finished
// run (SweepRow) and the whole result (SweepResult), so the GUI's sweep thread, the sample-
// efficiency view and the CLI's figure writer can take them without the engine's LibTorch headers.
// runSweep and the CSV/JSON writers are in engine/sweep/sweep.h.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/metrics.h"
#include "engine/core/forecast/power_law.h"
#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/sweep/tuned_set.h"

namespace rsalab {

// A second sweep axis: one task parameter (`mix.share`, `noise`, `task.length`; see
// applyTaskParameter in engine/core/config/run_config.h) taking each of `values`. Empty name: no
// axis.
struct SweepAxis {
  std::string name;
  std::vector<double> values;
  bool empty() const { return name.empty(); }
};

struct SweepOptions {
  RunConfig base;  // task, model and trainer settings shared by every run
  std::vector<std::string> models = modelNames(/*sequence_only=*/true);  // registry order
  std::vector<int64_t> sizes = {16, 64, 256, 1024, 4096};
  int64_t seeds = 3;
  SweepAxis axis;  // optional task-parameter axis (regime maps)
  // A budget that grows with N: each run trains max(base max_steps, ceil(budget_epochs · N /
  // batch)) steps, so a larger N is also seen more times (0: base max_steps for every N).
  int64_t budget_epochs = 0;
  // Models trained at their tuned configurations (`--tuned`, engine/core/sweep/tuned_set.h): a
  // model of the set trains at its chosen knobs on top of `base` (steps, N and seed the cell's);
  // empty: every model at the shared defaults.
  TunedSet tuned;
  int64_t parallel = 0;          // concurrent runs; 0 = one per core (each on 1 thread)
  bool keep_curves = false;      // fill SweepRow::train_curve / validation_curve (figures, GUI)
  bool keep_inspection = false;  // fill SweepRow::inspection after each run (GUI)
  bool keep_forecasts = false;   // fill SweepRow::*_forecasts (series: seed ensembles)
  // Bounded memory for long sweeps (the GUI's). Non-empty: each run writes every training step
  // and evaluation (runs/<run>/metrics.csv, the session bundle's metrics format) and, with
  // keep_inspection, its inspection record (runs/<run>/inspection.json) under this folder, and
  // its row keeps the record on disk only (SweepRow::files).
  std::string run_folder;
  // > 0: each kept curve is thinned to at most this many points in memory, for drawing (the first,
  // the last and an even spread; every point stays in run_folder). 0: every point.
  int curve_points = 0;
};

struct SweepRow {
  int64_t run = -1;  // index of the run in the sweep (models × sizes × seeds order); a stable id
  std::string model;
  int64_t size = 0;            // training windows / sequences the run used (the honest N)
  int64_t requested_size = 0;  // N asked for (larger than `size` when a series has no more)
  uint64_t seed = 0;
  // The task axis' value this run used (SweepAxis); NaN in a sweep without one.
  double axis_value = std::numeric_limits<double>::quiet_NaN();
  // A reference row (a ReferenceScore of the run's dataset: persistence, seasonal_naive, ar_lsq,
  // …), not a trained model: `model` is the reference's name, test_loss and best_validation its
  // test and validation losses, steps 0. Drawn grey; never part of a power-law fit.
  bool reference = false;
  double test_loss = 0;
  // The task's Bayes floor (engine/core/registry/ground_truth.h) on this run's test set; NaN where
  // the task does not know it. excess() = test_loss − floor.
  double bayes_floor = std::numeric_limits<double>::quiet_NaN();
  std::map<std::string, double> test_metrics;
  // Series tasks: per test target, the mean e² over its steps and columns (EvalMetrics::
  // target_errors, ReferenceScore::test_errors), and the horizon and season that set the
  // interval's block (engine/core/forecast/skill_interval.h). Empty for other tasks.
  std::vector<double> test_errors;
  int64_t horizon = 1, season = 1;
  double best_validation = 0;
  int64_t steps = 0;
  double seconds = 0;
  int64_t parameters = 0;
  double flops_per_token =
      0;  // forward, analytic (engine/core/config/flops.h), at the task's length T
  // Why training ended; None for a reference row and for a run that failed before it trained.
  // Written as sweepStopReasonText (engine/core/sweep/sweep_io.h).
  StopReason stop_reason = StopReason::None;
  std::string error;  // non-empty: this run failed (the others go on)
  // Only with SweepOptions::keep_curves: every training step and validation evaluation (thinned to
  // SweepOptions::curve_points when it is set).
  std::vector<StepMetrics> train_curve;
  std::vector<EvalMetrics> validation_curve;
  // Only with SweepOptions::keep_forecasts (regression tasks): the run's forecasts of every
  // scored validation / test target in z units, flattened as the split's y (in memory only).
  std::vector<float> validation_forecasts, test_forecasts;
  // Only with SweepOptions::keep_inspection: validation sample 0 after training; in `inspection`,
  // or with a run folder in `files`/inspection.json only.
  bool has_inspection = false;
  InspectionRecord inspection;
  // Models with decaying heads (REMs, RetNet, Mamba-2): the regular decay of each decaying head of
  // validation sample 0's record after training, per-token decays by their median (regularDecays,
  // engine/core/registry/memory_horizon.h): what the same-recurrence claim reads, kept in
  // sweep.json where the record is not.
  std::vector<double> regular_decays;
  // With SweepOptions::run_folder: this run's folder, holding metrics.csv (every point of both
  // curves) and, with has_inspection, inspection.json. Empty: none.
  std::string files;

  // What the run's task knows (REM truth; its floor is bayes_floor above) and the T it had: a
  // sweep's run opened from its point is matched against the same truth.
  GroundTruth truth;
  int64_t length = 0;

  double excess() const { return test_loss - bayes_floor; }  // NaN without a floor
  // A finished, usable run: no error, trained, not cut short by a cancel (StopReason::Requested).
  bool ok() const { return error.empty() && steps > 0 && stop_reason != StopReason::Requested; }
};

struct SweepResult {
  RunConfig base;  // the shared config (its model is the first model's; train_size varies)
  SweepAxis axis;  // the task axis, if the sweep had one (rows carry axis_value)
  std::vector<SweepRow> rows;
  // test loss ≈ a·N^(−b), per model (per model and axis value with a task axis)
  std::vector<PowerLawFit> fits;
  std::vector<PowerLawFit> excess_fits;  // excess loss ≈ a·N^(−b), likewise (tasks with a floor)
  std::vector<std::string> notes;        // what a user must be told (sizes collapsed to one N)
  TunedSet tuned;  // the models run at tuned configurations (SweepOptions::tuned); empty: none
  double wall_seconds = 0;
  int64_t parallel = 1;
  int64_t threads_per_run = 1;
};

}  // namespace rsalab
