// Presets: a claim from the seeds, stated in one sentence, with the run that tests it. One table,
// read by the GUI's Presets menu, `rsalab-cli train --preset NAME` (run presets) and
// `rsalab-cli sweep --preset NAME` (sweep presets). A preset sets the starting
// values; flags and form edits still go on top.
#pragma once

#include <string>
#include <vector>

#include "core/config/run_config.h"
#include "core/sweep/sweep_types.h"

namespace rsalab {

struct Preset {
  std::string name;                 // --preset NAME
  std::string title;                // the menu entry
  std::string claim;                // the claim it tests, one sentence
  RunConfig config;                 // the run (config.model.model is the first model)
  std::vector<std::string> models;  // the models the GUI launches side by side
  // The tab to show: "rem", "gates", "linear_rnn", "generation"; empty: unchanged.
  std::string inspector_tab;
  // A sweep preset (sweep_seeds > 0): `rsalab-cli sweep --preset NAME` and the GUI run `models`
  // × sweep_sizes × sweep_seeds (× the task axis) and judge the rows by `verdict`
  // (sweepPresetVerdicts in core/verdicts/claims.h: "figure1", "rsa>transformer").
  std::vector<int64_t> sweep_sizes;
  int64_t sweep_seeds = 0;
  int64_t sweep_epochs = 0;  // SweepOptions::budget_epochs: a budget that grows with N
  SweepAxis axis;
  std::string verdict;
  bool isSweep() const { return sweep_seeds > 0; }
  SweepOptions sweepOptions() const;  // the sweep's config, models, sizes, seeds and axis
};

const std::vector<Preset>& presets();
const Preset* findPreset(const std::string& name);  // nullptr if unknown
// The preset `name`, or std::invalid_argument naming the known ones.
const Preset& presetOrThrow(const std::string& name);
std::string presetNameList();  // "recover, …"

}  // namespace rsalab
