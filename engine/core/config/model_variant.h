// SPDX-License-Identifier: GPL-3.0-or-later
// A named variant: a card's name with option overrides, written `rsa[rem_heads=regular]` or
// `retnet[learnable_decay,rotation]`. It is taken wherever a model name is (ModelOptions::model:
// train, sweep, the presets' model lists, a config's model) and kept under its full name in
// records, colours and verdicts; findModel gives its card. Its overrides are written into the
// options (withVariant) when a run is set up and when a model is built, so a run's saved options
// say what ran, and applying them again changes nothing.
//
// An override is key=value, or a bare key for true. A key is
//   - a field of the model options (model_options.h: `heads=2`, `causal=false`), or the field
//     named by the card's name and the key (`retnet[rotation]` is retnet_rotation,
//     `alibi[code_slopes]`, `starsaber[gated]`, `linear[cumulative=false]`);
//   - rem.<type> or rem_init.<field> (`rsa[rem.cos=2]`, `rsa[rem_init.mu=20]`);
//   - rem_heads=<type>+<type>…: only the REM heads of the listed types (regular, cos, sin,
//     dilated_regular, dilated_cos, dilated_sin) keep their counts, the others get none
//     (`rsa[rem_heads=regular]`: RSA with regular REM heads only).
// A value is read as JSON (a number, true/false), else as a string (an enum's name).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/core/config/model_options.h"

namespace rsalab {

struct ModelVariant {
  std::string card;  // the card's name ("rsa")
  // The overrides in the order written: key and value text ("true" for a bare key).
  std::vector<std::pair<std::string, std::string>> overrides;
};

// Parses a model name with or without overrides. Throws std::invalid_argument saying what is
// wrong with `text` (an unknown card, a missing ']', an empty or repeated key).
ModelVariant parseModelVariant(const std::string& text);
// Whether `name` carries overrides ("rsa[...]").
bool isModelVariant(const std::string& name);
// `options` with the overrides of options.model written in; options.model keeps the full name.
// Throws std::invalid_argument naming the variant and the key for a key that is no option of
// the card, or a value of the wrong type.
ModelOptions withVariant(const ModelOptions& options);
// Splits a comma-separated list of model names, commas inside a variant's brackets kept:
// "rsa,retnet[learnable_decay,rotation]" → {"rsa", "retnet[learnable_decay,rotation]"}.
std::vector<std::string> splitModelList(const std::string& text);

}  // namespace rsalab
