// SPDX-License-Identifier: GPL-3.0-or-later
// Trainer settings, and which of them apply while running ("hot") or need a restart ("cold").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/config/option_table.h"
#include "engine/core/io/enums.h"

namespace rsalab {

struct TrainerOptions {
  OptimizerKind optimizer = OptimizerKind::AdamW;  // adam | adamw
  double learning_rate = 3e-3;                     // hot
  double weight_decay = 0.01;                      // hot (AdamW: decoupled; Adam: L2)
  double grad_clip = 1.0;                          // hot; max global gradient norm, 0 = off
  int64_t snapshot_every = 25;  // hot; steps between inspection snapshots, 0 = off
  int64_t batch_size = 32;
  int64_t max_steps = 2000;
  int64_t warmup_steps = 0;  // linear warm-up from 0
  bool cosine = false;       // cosine decay to 10% after warm-up
  // > 0: the learning rate halved every this many steps (Informer's budget: every epoch, the
  // authors' schedule); 0: never.
  int64_t lr_halve_every = 0;
  int64_t eval_every = 50;  // steps between validation evaluations
  // Early stop after this many validation evaluations without improvement (0 = never). Patience
  // alone decides: there is no minimum step before it may end a run. Each protocol chooses its
  // patience on validation (the default launch, the real-series defaults:
  // engine/core/config/run_config).
  int64_t patience = 0;
  // When training ends (any reason but a divergence or a stop request), put back the weights of
  // the best validation evaluation, so the test evaluation and the checkpoint use them.
  bool restore_best = false;
  double max_seconds = 0;  // wall-time budget, 0 = none
  uint64_t seed = 0;
};

// One trainer setting as data (engine/core/config/option_table.h): the one list of
// TrainerOptions' fields, read by validate (range), the JSON reader and writer (key), the GUI's
// form (label, unit, range, log scale, hot/cold badge), hot edits while a run trains and
// rsalab-cli's run flags. A new setting is a member of TrainerOptions plus a row here.
using HyperParameterInfo = OptionInfo<TrainerOptions>;
// Every row, in the order the form shows them.
const std::vector<HyperParameterInfo>& trainerHyperParameters();
// nullptr when `name` is no row's.
const HyperParameterInfo* findHyperParameter(const std::string& name);

// Hot values changed while a run trains: a TrainerOptions of which only the hot rows count. The
// trainer takes them at its next step (withHot).
using HotParameters = TrainerOptions;
// `base` with the values of every hot row taken from `hot`.
TrainerOptions withHot(TrainerOptions base, const HotParameters& hot);
// Sets hot parameter `name` to `value` in `hot` and returns the value it had; nullopt (and no
// change) when `name` is not a hot row.
std::optional<double> applyHotEdit(HotParameters& hot, const std::string& name, double value);

// Throws std::invalid_argument naming the field and its allowed range.
void validate(const TrainerOptions& options);

}  // namespace rsalab
