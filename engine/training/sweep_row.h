// One finished run of a sample-efficiency sweep, as plain data (no LibTorch), so the GUI's sweep
// thread, the sample-efficiency view and the CLI's figure writer can all take it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/inspection.h"
#include "engine/training/metrics.h"

namespace rsalab {

struct SweepRow {
  int64_t run = -1;  // index of the run in the sweep (models × sizes × seeds order); a stable id
  std::string model;
  int64_t size = 0;
  uint64_t seed = 0;
  double test_loss = 0;
  std::map<std::string, double> test_metrics;
  double best_validation = 0;
  int64_t steps = 0;
  double seconds = 0;
  int64_t parameters = 0;
  double flops_per_token = 0;  // forward, analytic (engine/flops.h), at the task's length T
  std::string stop_reason;
  std::string error;  // non-empty: this run failed (the others go on)
  // Only with SweepOptions::keep_curves: every training step and validation evaluation.
  std::vector<StepMetrics> train_curve;
  std::vector<EvalMetrics> validation_curve;
  // Only with SweepOptions::keep_inspection: validation sample 0 after training.
  bool has_inspection = false;
  InspectionRecord inspection;

  // A finished, usable run: no error, trained, not cut short by a cancel ("stopped").
  bool ok() const { return error.empty() && steps > 0 && stop_reason != "stopped"; }
};

}  // namespace rsalab
