// SPDX-License-Identifier: GPL-3.0-or-later
// Each model's search space for `rsalab-cli tune`, read from the option tables' search ranges
// (OptionInfo::search, engine/core/config/option_table.h): the rows of TrainerOptions,
// ModelOptions and its rem / rem_init sections whose range is set and whose scope takes the model.
// A configuration is drawn knob by knob from those ranges and kept only when it is valid (validate)
// and its parameter count stays within the cap; so the draw is uniform over the box restricted to
// valid configurations. The draws come from a seeded generator of our own (SplitMix64), so one
// seed gives the same configurations on every platform.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"

namespace rsalab {

// One searched row of the option tables.
struct SearchKnob {
  std::string
      key;  // "trainer.learning_rate", "model.d_model", "model.rem.cos", "model.rem_init.mu"
  SearchRange range;
  bool integral = false;  // an integer row: values on the range's grid
  bool flag = false;      // a bool row: 0 or 1
  std::function<double(const RunConfig&)> get;
  std::function<void(RunConfig&, double)> set;
  // "log 0.0001..0.03", "linear 16..128 step 8", "off|on".
  std::string rangeText() const;
};

// Every searched row whose scope takes `model` (a registry name), in table order: trainer, model,
// model.rem, model.rem_init. Throws std::invalid_argument for an unknown model.
std::vector<SearchKnob> searchKnobs(const std::string& model);
// One line per model of `models`: "rsa: trainer.learning_rate log 0.0001..0.03, ...".
std::string searchSpaceText(const std::vector<std::string>& models);

// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014): a 64-bit generator whose stream depends on its
// seed alone.
class SearchRng {
 public:
  explicit SearchRng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform();  // [0, 1), 53 bits
 private:
  uint64_t state_;
};
// A seed per model: `seed` mixed with the model's name (FNV-1a), so adding a model to --models
// changes no other model's draws.
uint64_t modelSearchSeed(uint64_t seed, const std::string& model);

// One value of `knob` from its range: log-uniform or uniform, integer rows rounded to the grid.
double drawKnob(const SearchKnob& knob, SearchRng& rng);

// Counts the parameters of a configuration (the engine builds the model; core cannot).
using ParameterCounter = std::function<int64_t(const RunConfig&)>;
// `base` with model `model` and every knob of searchKnobs(model) drawn, redrawn until the
// configuration validates, a model with REMs keeps at least one REM head, and its parameter count
// is at most `cap`. Throws std::runtime_error after `attempts` draws without one.
RunConfig drawConfig(const RunConfig& base, const std::string& model, SearchRng& rng,
                     const ParameterCounter& parameters, int64_t cap, int attempts = 20000);

}  // namespace rsalab
