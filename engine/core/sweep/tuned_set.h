// SPDX-License-Identifier: GPL-3.0-or-later
// The tuned configurations a claim runs at: `--tuned FILE` (one <model>.tuned.json of
// `rsalab-cli tune` or `paper-table --tune-out` per model) for `sweep`, `sweep --preset` and
// `paper-table`. Each run of a tuned model trains at its file's chosen knobs on top of the claim's
// own config (its task, sizes, seeds and step budget stay the claim's); a claim without files runs
// at the shared defaults. Sweep plans, sweep.json, paper tables, preset records and session
// bundles carry the set, so every block can say which of the two it is. Plain C++ (core).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/core/sweep/tuning.h"

namespace rsalab {

struct TunedSet {
  std::vector<TunedModel> models;  // one per tuned model, in the order given
  bool empty() const { return models.empty(); }
  const TunedModel* find(const std::string& model) const;  // nullptr when not tuned
};

// The files read (each one model; std::invalid_argument for two files of one model) and parsed;
// std::runtime_error naming the file on a bad one.
TunedSet tunedSetFromFiles(const std::vector<std::string>& paths);

// `config` with its model's chosen knobs, when the set has that model; otherwise unchanged.
RunConfig applyTuned(const TunedSet& set, const RunConfig& config);

// The set fits a claim: every model of `models` has a file, and each file was tuned on the
// claim's task: its base config's task section equals `base`'s, the claim's axis key (a task
// parameter the claim varies, "" for none) left out. Throws std::invalid_argument naming the
// file and the first differing key.
void requireTunedFor(const TunedSet& set, const std::vector<std::string>& models,
                     const RunConfig& base, const std::string& axis_key = "");

// "shared defaults", or "tuned (budget: 27 trials, η 3, rungs at 11/33/100/300 steps, at N = 256)":
// the budget every file shares, and where it was tuned (its train size N and the task values
// it was tuned at that differ from `claim`'s task; none given: N only). Files tuned with
// different budgets are listed by model.
std::string tunedLabel(const TunedSet& set, const RunConfig* claim = nullptr);
// "learning_rate 0.0031, d_model 48, rem.cos 0": a trial's knobs without their section prefix.
std::string tunedKnobsText(const std::map<std::string, double>& knobs);
// One line per tuned model: its chosen knobs, its validation loss at the budget beside the shared
// default's, its parameters beside the default's, and the tuning's wall time.
std::vector<std::string> tunedLines(const TunedSet& set);

// The set as a JSON array of tunedModelJson objects, and back (std::runtime_error naming `what`).
std::string tunedSetJson(const TunedSet& set);
TunedSet tunedSetFromJson(const std::string& text, const std::string& what);

}  // namespace rsalab
