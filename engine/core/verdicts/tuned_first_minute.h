// SPDX-License-Identifier: GPL-3.0-or-later
// The first minute at each model's tuned configuration (`rsalab-cli tune --launch`, then
// `rsalab-cli first-minute --tuned …`) beside the shared default's (resources/first_minute.json):
// stored as resources/first_minute_tuned.json and rendered as docs/TASKS.md's tuned-first-minute
// block; a test keeps the two in step.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/core/sweep/tuning.h"
#include "engine/core/verdicts/first_minute_table.h"

namespace rsalab {

struct TunedFirstMinute {
  std::vector<TunedModel> tuned;  // one per model, in the launch's model order
  FirstMinuteTable runs;          // the first-minute runs at the tuned configurations
  double tuning_seconds = 0;      // wall time of the tuning (measured by whoever ran it)
  double comparison_seconds = 0;  // wall time of the tuned first-minute runs
};

// The tuned file must come from the default launch: its base configuration is the launch's with
// the tuning's own trainer settings (budget, no patience, no wall-time limit, its seed). Throws
// std::invalid_argument naming the file otherwise.
void requireTunedOnLaunch(const TunedModel& tuned, const std::string& what);
// The launch's protocol (defaultLaunchConfig: patience, step limit) with the tuned knobs.
RunConfig tunedLaunchConfig(const TunedModel& tuned);

std::string tunedFirstMinuteJson(const TunedFirstMinute& t);
// std::runtime_error naming `what` on malformed input.
TunedFirstMinute tunedFirstMinuteFromJson(const std::string& text, const std::string& what);
// Whether `text` is a tuned first-minute file (its format key), not a plain one.
bool isTunedFirstMinuteJson(const std::string& text);

// The block, markers included: per model the tuned configuration, its validation loss at the
// tuning budget beside the shared default's, parameters and FLOPs; then each model's first-minute
// runs at the shared default (`defaults`) and tuned, and the test-loss verdicts of tuned RSA
// against the other tuned models.
std::string tunedFirstMinuteBlock(const TunedFirstMinute& t, const FirstMinuteTable& defaults);
std::string tunedFirstMinuteBlockIn(const std::string& markdown, const std::string& what);
std::string replaceTunedFirstMinuteBlock(const std::string& markdown, const std::string& block,
                                         const std::string& what);

constexpr const char* kTunedFirstMinuteResource = "first_minute_tuned.json";  // under resources/

}  // namespace rsalab
