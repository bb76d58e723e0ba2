// SPDX-License-Identifier: GPL-3.0-or-later
// Presets: a claim from the seed papers, stated in one sentence, with the run that tests it. One
// table, read by the GUI's Presets menu, `rsalab-cli train --preset NAME` (train, computed and
// probe presets) and `rsalab-cli sweep --preset NAME` (sweep presets); both run a preset through
// one PresetRunner (engine/core/verdicts/preset_runner.h), which switches on its action. A preset
// sets the starting values; flags and form edits still go on top. Adding a preset: a row in
// makePresets (presets.cpp) and, for a new kind of claim, a row in the claim rules
// (engine/core/verdicts/claims.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

// What a preset runs: train its models (its claim judged on the first run's last inspection
// record), a sweep (judged on the rows), nothing but a computation (judged at once), or a
// measurement (the generation probe, judged on what it measured), or the RSA paper's table
// (engine/sweep/paper_table_run.h: its default table, judged on its runs per horizon).
enum class PresetAction { Train, Sweep, Computed, Probe, PaperTable };
// train | sweep | computed | probe | paper-table
const char* presetActionName(PresetAction action);

// The GUI tab a preset shows while it runs (Unchanged: the one shown stays).
enum class PresetTab {
  Unchanged,
  Rem,
  Decay,
  Gates,
  LinearRnn,
  Generation,
  SampleEfficiency,
  RegimeMap,
  PaperTable
};
const char* presetTabName(PresetTab tab);  // unchanged | rem | decay | gates | linear-rnn | …

// The rule that judges a preset's claim on what it ran: one row each in the claim rules
// (engine/core/verdicts/claims.h: claimRuleInfo, judgeClaim).
enum class ClaimRule {
  Recover,
  FixedPoint,
  LinearRnn,
  LinearAttention,
  SampleEfficiency,
  Figure1,
  PaperTable,
  SameRecurrence,
  SelectiveDecay,
  Placement,
  FamilySampleEfficiency
};

struct Preset {
  std::string name;                 // --preset NAME
  std::string title;                // the menu entry
  std::string claim;                // the claim it tests, one sentence
  RunConfig config;                 // the run (config.model.model is the first model)
  std::vector<std::string> models;  // the models the GUI launches side by side
  PresetAction action = PresetAction::Train;
  PresetTab tab = PresetTab::Unchanged;
  ClaimRule rule = ClaimRule::Recover;
  // A sweep preset: `rsalab-cli sweep --preset NAME` and the GUI run `models` × sweep_sizes ×
  // sweep_seeds (× the task axis) and judge the rows by `rule`.
  std::vector<int64_t> sweep_sizes{};
  int64_t sweep_seeds = 0;
  int64_t sweep_epochs = 0;  // SweepOptions::budget_epochs: a budget that grows with N
  SweepAxis axis{};
  // Keep each run's last inspection record (SweepOptions::keep_inspection): the rule reads the
  // learned parameters.
  bool sweep_inspection = false;
  // Its claim is run on every teacher process, not only on rem (RSA's home ground): one record
  // per process, all of them in the claims-by-process table
  // (engine/core/verdicts/claims_by_process.h).
  bool every_process = false;
  bool isSweep() const { return action == PresetAction::Sweep; }
  SweepOptions sweepOptions() const;  // the sweep's config, models, sizes, seeds and axis
};

// The recover and figure1 presets' recurrence: the kernel 0.8^k + 0.9^k cos(2πk/5) at T = 32,
// with 128 validation and 256 test sequences (the teacher processes' reach rule matches it).
void setRecoverKernel(TaskOptions& t);

const std::vector<Preset>& presets();
const Preset* findPreset(const std::string& name);  // nullptr if unknown
// The preset `name`, or std::invalid_argument naming the known ones.
const Preset& presetOrThrow(const std::string& name);
std::string presetNameList();  // "recover, …"

}  // namespace rsalab
