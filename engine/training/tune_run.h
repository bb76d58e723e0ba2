// SPDX-License-Identifier: GPL-3.0-or-later
// `rsalab-cli tune`'s training: for each model, `trials` configurations drawn from its search space
// (engine/core/config/search_space.h) trained by synchronous successive halving
// (engine/core/sweep/tuning.h), plus one reference run of the shared default at the full budget.
// Every run trains on the same task data, seed and budget; ranking reads validation losses only:
// the test split is never evaluated. Each trial is a folder; a rung's result is a file written
// when its trial ends the rung, beside the checkpoint the next rung starts from, so a killed tune
// run again with the same --out picks up where it stopped. Each run uses one intra-op thread, so
// the numbers (and the choice) are the same on any number of workers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/sweep/tuning.h"
#include "engine/tasks/task.h"

namespace rsalab {

struct TuneRequest {
  // The task, trainer and shared default model settings every trial starts from. Its seed seeds
  // the trials' training and the configurations' draws; its patience and wall-time budget are
  // not used (trials train to the end of their rung).
  RunConfig base;
  std::vector<std::string> models;
  int64_t trials = 27;
  int64_t budget = 0;  // steps of the last rung; 0: base.trainer.max_steps
  int64_t eta = 3;
  double cap_factor = 4;  // parameter cap = cap_factor × the shared default's parameter count
  int64_t workers = 1;
  std::string out_dir;  // one folder per model, one per trial in it (required)
  // Test hook: the task data every run trains on (null: built from base.task, train_size, seed).
  std::shared_ptr<const TaskData> data;
  std::function<void(const std::string&)> progress;  // one line per finished rung
};

// One TunedModel per model of request.models, in that order; each also written as
// <out_dir>/<model>.tuned.json. Throws std::invalid_argument for bad requests (an unknown model,
// an --out made with other settings) and std::runtime_error when a run fails.
std::vector<TunedModel> runTune(const TuneRequest& request);

// Parameters of `config`'s model on a task of `io` (builds it once).
int64_t countParameters(const RunConfig& config, const ModelIO& io);
// Training FLOPs of one step of `config` on sequences of length `length`
// (3 × forward, engine/core/config/flops.h).
double trainingFlopsPerStep(const RunConfig& config, const ModelIO& io, int64_t length);

}  // namespace rsalab
