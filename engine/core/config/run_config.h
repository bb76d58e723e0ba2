// SPDX-License-Identifier: GPL-3.0-or-later
// Everything that defines a run, saved as JSON (config.json) beside it so any run can be
// reproduced from its folder. The GUI edits a copy and hands it over by value on Start.
#pragma once

#include <string>

#include "engine/core/config/model_options.h"
#include "engine/core/config/task_options.h"
#include "engine/core/config/trainer_options.h"

namespace rsalab {

struct RunConfig {
  TaskOptions task;
  ModelOptions model;
  TrainerOptions trainer;
  int64_t train_size = 1024;   // training sequences / windows (the N of sample-efficiency curves)
  std::string device = "cpu";  // cpu | cuda[:N] | auto
};

// Throws std::invalid_argument naming the field and its range.
void validate(const RunConfig& config);

std::string toJson(const RunConfig& config);  // pretty-printed
// Parses and validates; unknown keys and wrong types are errors naming the key.
RunConfig runConfigFromJson(const std::string& text);
// Overlays the keys present in `text` onto `base` (for --config files under flags).
RunConfig mergeRunConfigJson(const RunConfig& base, const std::string& text);
// `base` with the keys of the JSON object `text` ({"heads": 2, "rem": {"cos": 0}}) read over it as
// a config's "model" section is, with its typed errors; not validated (withVariant,
// model_variant.h).
ModelOptions overlayModelJson(const ModelOptions& base, const std::string& text);

// A task parameter named as on a sweep axis: "mix.share", "mix_share", "task.mix_share" and
// "task.noise" all name a numeric field of TaskOptions (dots after the optional "task." become
// underscores). Returns the TaskOptions key ("mix_share"); throws std::invalid_argument naming
// the numeric task parameters when `name` is none of them.
std::string taskParameterKey(const std::string& name);
// `config` with that task parameter set to `value` (an integer field needs an integral value),
// validated; throws std::invalid_argument naming the parameter and its range otherwise.
RunConfig withTaskParameter(const RunConfig& config, const std::string& name, double value);

// The one set of starting values of a run: the GUI's forms and `rsalab-cli train` start here
// (flags, --config files and form edits go on top). They are the initialisers of RunConfig's
// members (TaskOptions, ModelOptions, TrainerOptions), so RunConfig{}, a ModelOptions of
// `rsalab-cli models` and a config file's missing keys all mean the same values: the seasonal
// series, T = 64, N = 1024, D = 32, H = 4 (REM heads by defaultRemHeads), L = 2, batch 32, 2000
// steps, a validation evaluation every 50 steps and an inspection snapshot every 25 (only the GUI
// records them).
RunConfig defaultRunConfig();
// What the GUI opens on: a first minute that tells the story. rnn, transformer and rsa (the
// default models) on the mix task at recurrent share a = 0.5 (half a linear recurrence, half a
// key lookup, engine/tasks/mix_task.h) with N = 256: the RNN fits the recurrence and not the
// lookup, the Transformer the other way round, RSA both, so the three validation curves part
// within the first minute; the loss view shows them on log y above the dashed Bayes floor, and
// each run stops when its validation loss has not improved for `patience` evaluations.
// (defaultRunConfig stays the CLI's: the seasonal series.)
RunConfig defaultLaunchConfig();
// A sample-efficiency sweep's starting values (`rsalab-cli sweep`, the GUI's sweep dialog):
// defaultRunConfig() with shorter runs so that the default sweep (every model × 5 sizes × 3 seeds)
// stays within minutes: T = 48, 300 steps per run, a validation evaluation every 100 steps.
RunConfig defaultSweepConfig();
// The defaults of a real series (csv or a bundled series; isRealSeriesTask), on top of `base`
// (defaultRunConfig() or defaultSweepConfig()): T auto, per-window normalisation, early stopping
// on validation with the best weights restored for the test, and the learning rate, budget and
// evaluation cadence measured to hold on series of 100–10,000 rows (docs/REAL_SERIES.md). The CLI
// applies it when --csv / --series names a real series, the GUI when its task box does.
RunConfig realSeriesDefaults(const RunConfig& base);

// Whether a task runs the long-horizon protocol (TaskOptions::protocol; auto: the bundled hourly
// ETT series). Only real series do.
bool usesLongHorizonProtocol(const TaskOptions& task);
// The long-horizon protocol's defaults on top of realSeriesDefaults(base), those of the paper
// table (engine/sweep/paper_table_run.h): L auto (96), the global z-scores the papers use, no
// skip path, learning rate 1e-3, batch 32, at most 3 epochs with patience 2 epochs, the fast
// anchors on OT, and no step cap below the epochs (kLongHorizonStepCap).
constexpr int64_t kLongHorizonStepCap = 1000000;
RunConfig longHorizonDefaults(const RunConfig& base);
// The protocol's budget on a run whose task has `train_windows` windows and input length L, the
// one place it is computed (the trainer applies it to every long-horizon run; the paper table's
// run configs are built with it): one validation evaluation per epoch (ceil(windows / batch)
// steps), max_steps = min(max_steps, epochs · steps per epoch), the best epoch restored, N = the
// windows, and the linear forecasters' lookback = L (they see the whole input). Idempotent.
void applyLongHorizonBudget(RunConfig& config, int64_t input_length, int64_t train_windows);

}  // namespace rsalab
