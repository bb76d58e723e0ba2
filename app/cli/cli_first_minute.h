// SPDX-License-Identifier: GPL-3.0-or-later
// `rsalab-cli first-minute`: the GUI's default launch headless over several seeds
// (engine/training/first_minute.h), printed as the README's first-minute table. With --json and
// --readme it writes the measurement and the README's block between its markers; --check (no
// training) fails when the README's block is not the rendering of the JSON or the JSON was measured
// on another default launch: regenerate, don't hand-edit.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace rsalab {

struct FirstMinuteCommand {
  int64_t seeds = 5;
  int64_t steps = 0;  // 0: kFirstMinuteSteps
  int64_t parallel = 0;
  std::string json_path;    // write (or, with --check, read) the measurement
  std::string readme_path;  // rewrite (or, with --check, compare) the block between the markers
  bool check = false;
  std::string from_json;  // train nothing: render this stored measurement (its writer changed)
  // <model>.tuned.json files of `rsalab-cli tune --launch`: those models run at their tuned
  // configuration, and --json / --readme take the tuned first minute (its own block).
  std::vector<std::string> tuned;
};

// The most steps a run of the default launch reached in the window in 60 s on 2 cores (RSA's,
// once the RNN and the Transformer had stopped by themselves; measured under Xvfb, README). Runs
// that stop by themselves before it end there, as in the window.
constexpr int64_t kFirstMinuteSteps = 2500;

CLI::App* addFirstMinuteCommand(CLI::App& app, FirstMinuteCommand& command);
int runFirstMinuteCommand(const FirstMinuteCommand& command);

}  // namespace rsalab
