// Trainer settings, and which of them apply while running ("hot") or need a restart ("cold").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rsalab {

struct TrainerOptions {
  std::string optimizer = "adamw";  // adam | adamw
  double learning_rate = 3e-3;      // hot
  double weight_decay = 0.01;       // hot (AdamW: decoupled; Adam: L2)
  double grad_clip = 1.0;           // hot; max global gradient norm, 0 = off
  int64_t snapshot_every = 0;       // hot; steps between inspection snapshots, 0 = off
  int64_t batch_size = 32;
  int64_t max_steps = 1000;
  int64_t warmup_steps = 0;  // linear warm-up from 0
  bool cosine = false;       // cosine decay to 10% after warm-up
  int64_t eval_every = 100;  // steps between validation evaluations
  // Early stop after this many evaluations without improvement, but never in the first quarter
  // of max_steps (earliestEarlyStop): a plateau early in a run is not the end of its learning
  // (the default launch's RSA sat on the RNN's plateau at step 650 and would have left it later).
  int64_t patience = 0;
  // When training ends (any reason but a divergence or a stop request), put back the weights of
  // the best validation evaluation, so the test evaluation and the checkpoint use them.
  bool restore_best = false;
  double max_seconds = 0;  // wall-time budget, 0 = none
  uint64_t seed = 0;
};

// One tunable value as data, so the GUI can build its form and badge hot/cold fields.
struct HyperParameterInfo {
  std::string name;   // key in TrainerOptions / JSON
  std::string label;  // for forms
  std::string unit;   // "", "steps", "s", ...
  double minimum, maximum;
  bool log_scale;
  bool hot;  // true: applies at the next step; false: needs a restart
};
const std::vector<HyperParameterInfo>& trainerHyperParameters();

// Hot values changed while a run trains; applied by the trainer at its next step.
struct HotParameters {
  double learning_rate = 0;
  double weight_decay = 0;
  double grad_clip = 0;
  int64_t snapshot_every = 0;
};

// The first step at which patience may end a run: a quarter of max_steps. A run is given that much
// of its budget to leave a plateau before "no better validation loss" counts against it.
constexpr int64_t kEarlyStopBudgetDivisor = 4;
inline int64_t earliestEarlyStop(const TrainerOptions& o) {
  return o.max_steps / kEarlyStopBudgetDivisor;
}

// Throws std::invalid_argument naming the field and its allowed range.
void validate(const TrainerOptions& options);

}  // namespace rsalab
