// Presets: a claim from the seeds, stated in one sentence, with the run that tests it. One table,
// read by the GUI's Presets menu and `rsalab-cli train --preset NAME`. A preset sets the starting
// values; flags and form edits still go on top.
#pragma once

#include <string>
#include <vector>

#include "engine/run_config.h"

namespace rsalab {

struct Preset {
  std::string name;                 // --preset NAME
  std::string title;                // the menu entry
  std::string claim;                // the claim it tests, one sentence
  RunConfig config;                 // the run (config.model.model is the first model)
  std::vector<std::string> models;  // the models the GUI launches side by side
  std::string inspector_tab;        // the inspector tab to show ("rem", …; empty: unchanged)
};

const std::vector<Preset>& presets();
const Preset* findPreset(const std::string& name);  // nullptr if unknown
// The preset `name`, or std::invalid_argument naming the known ones.
const Preset& presetOrThrow(const std::string& name);
std::string presetNameList();  // "recover, …"

}  // namespace rsalab
