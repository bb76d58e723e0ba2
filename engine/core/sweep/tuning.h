// SPDX-License-Identifier: GPL-3.0-or-later
// `rsalab-cli tune` as plain data (core: no LibTorch): the rungs of synchronous successive halving,
// who survives a rung, and the tuned file, one per model, with every trial, rung and validation
// loss. The training loop is engine/training/tune_run.h.
//
// Successive halving (Jamieson & Talwalkar, AISTATS 2016) as one bracket of Hyperband (Li,
// Jamieson, DeSalvo, Rostamizadeh & Talwalkar, "Hyperband: A Novel Bandit-Based Approach to
// Hyperparameter Optimization", JMLR 18(185), 2018, Algorithm 1, its inner loop): n trials, keep
// the best ⌊n_k/η⌋ after each rung, each rung trains η times as many steps as the one before, the
// last rung reaches the full budget R. Synchronous: a rung ends when all its trials have, so the
// choice depends on the seed alone, never on which worker finished first.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"

namespace rsalab {

struct TuneRung {
  int64_t trials = 0;  // trials trained in this rung
  int64_t steps = 0;   // steps each has trained at its end (cumulative)
};

// Rungs k = 0..K, K = the most halvings ⌊n/η^K⌋ >= 1 allows: n_k = ⌊n/η^k⌋ trials, r_k =
// round(R·η^(k−K)) steps (at least 1), so r_K = R. n = 27, η = 3: 27, 9, 3, 1 trials at R/27, R/9,
// R/3, R. Throws std::invalid_argument for n < 1, R < 1 or η < 2.
std::vector<TuneRung> successiveHalvingRungs(int64_t trials, int64_t budget, int64_t eta = 3);

// The `keep` trials of `candidates` with the lowest loss (losses[i] belongs to candidates[i]): NaN
// and +inf (diverged) last, ties to the lower trial index. Returned in trial order.
std::vector<int64_t> survivors(const std::vector<int64_t>& candidates,
                               const std::vector<double>& losses, int64_t keep);

struct TunedTrial {
  int64_t index = 0;
  std::map<std::string, double> knobs;  // SearchKnob::key -> drawn value
  int64_t parameters = 0;
  double flops_per_step =
      0;  // training FLOPs of one step (3 × forward, engine/core/config/flops.h)
  std::vector<double> losses;  // per rung reached: the best validation loss so far
  std::string stop;            // "" or why it stopped before the budget (diverged)
};

struct TunedModel {
  std::string model;
  std::string base_config;  // toJson of the configuration every trial starts from
  uint64_t seed = 0;
  int64_t trials = 0, budget = 0, eta = 3;
  double cap_factor = 4;
  int64_t parameter_cap = 0;       // cap_factor × default_parameters
  int64_t default_parameters = 0;  // the shared default's (base_config with this model)
  double default_flops_per_step = 0;
  double default_validation = 0;  // the shared default's best validation loss at the budget
  std::vector<TuneRung> rungs;
  std::vector<TunedTrial> trial_list;
  int64_t chosen = -1;                    // index of the trial that won the last rung
  double total_flops = 0;                 // every step every trial trained (the default's not)
  double seconds = 0;                     // wall time of the tune run that finished this model
  const TunedTrial& chosenTrial() const;  // std::runtime_error when there is none
};

std::string tunedModelJson(const TunedModel& tuned);
// std::runtime_error naming `what` on malformed input.
TunedModel tunedModelFromJson(const std::string& text, const std::string& what);

// `base` with the model of `tuned` and the knobs of a trial (the chosen one by default) set.
RunConfig withTrialKnobs(const RunConfig& base, const std::string& model,
                         const std::map<std::string, double>& knobs);
// The chosen configuration: the tuned file's base config with its model and chosen knobs.
RunConfig tunedConfig(const TunedModel& tuned);

}  // namespace rsalab
