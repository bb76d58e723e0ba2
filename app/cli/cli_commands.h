// SPDX-License-Identifier: GPL-3.0-or-later
// The rsalab-cli subcommands that train: train, eval, inspect, tasks (the sweep commands are in
// app/cli/cli_sweep.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/sweep/tuned_set.h"
#include "engine/core/verdicts/presets.h"

namespace rsalab {

struct TrainCommand {
  RunConfig config;
  std::string out_dir = "runs/latest";
  std::string session_dir;  // non-empty: also write a session bundle the app opens
  std::optional<ClaimRule>
      rule;            // a train preset's claim rule (engine/core/verdicts/claims.h), judged last
  std::string preset;  // that preset's name: its verdicts go to OUT/verdicts.json
  TunedSet tuned;      // `train --tuned`: the tuned file the config came from (the bundle keeps it)
  // Test hooks (hidden flags --fault-nan-at-step, --fault-throw-at-step, --fault-kind): see
  // TrainingFaults in engine/training/trainer.h.
  int64_t fault_nan_at_step = 0;
  int64_t fault_throw_at_step = 0;
  std::string fault_kind = "c10";
};
// Each returns the process exit code: 0 ok, 1 error, 3 diverged, 130 interrupted (Ctrl+C or
// SIGTERM during train/sweep: training stops after the current step and what was promised is
// written: train writes config.json, metrics.csv and checkpoint.pt; sweep writes the finished
// rows).
constexpr int kExitInterrupted = 130;
int runTrain(const TrainCommand& command);
int runEval(const std::string& run_dir);
// The linear-attention preset: nothing is trained; config.model's width, heads and layers,
// generation timed up to T = config.task.length (engine/training/generation_probe.h); prints
// the table as it is measured, then the verdicts (also to OUT_DIR/verdicts.json).
int runGenerationProbe(const RunConfig& config, const Preset& preset, const std::string& out_dir);
int runInspect(const std::string& run_dir, int64_t sample, const std::string& out_dir);
// The run's weights as a .safetensors file (engine/training/model_export.h), `out` or
// RUN/model.safetensors; with `sample`, also OUT-without-.safetensors.sample.safetensors (a batch
// and the model's outputs on it, for bench/peer/check_export.py).
int runExport(const std::string& run_dir, const std::string& format, std::string out, bool sample);
int listTasks();

}  // namespace rsalab
