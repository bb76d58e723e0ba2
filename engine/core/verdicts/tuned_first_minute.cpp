// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/tuned_first_minute.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/core/io/marked_block.h"
#include "engine/core/io/text.h"
#include "engine/core/sweep/tuned_set.h"

namespace rsalab {

namespace {

using nlohmann::json;

const char* const kBegin =
    "<!-- tuned-first-minute: begin (rsalab-cli first-minute --tuned writes this) -->";
const char* const kEnd = "<!-- tuned-first-minute: end -->";
const char* const kFormat = "rsalab-first-minute-tuned";

// The launch's runs of `t` under `suffix` names ("rnn (tuned)"), for one combined table.
void appendRuns(FirstMinuteTable& into, const FirstMinuteTable& t, const std::string& model,
                const std::string& suffix) {
  into.models.push_back(model + suffix);
  for (auto r : t.runs) {
    if (r.model != model) continue;
    r.model += suffix;
    into.runs.push_back(r);
  }
}

std::string minutes(double seconds) { return cellNumber(seconds / 60.0) + " min"; }

}  // namespace

void requireTunedOnLaunch(const TunedModel& tuned, const std::string& what) {
  RunConfig launch = defaultLaunchConfig();
  launch.model.model = tuned.model;
  launch.trainer.max_steps = tuned.budget;
  launch.trainer.patience = 0;
  launch.trainer.max_seconds = 0;
  launch.trainer.seed = tuned.seed;
  if (json::parse(toJson(runConfigFromJson(tuned.base_config))) != json::parse(toJson(launch)))
    throw std::invalid_argument(what +
                                " was not tuned on today's default launch: tune it with "
                                "`rsalab-cli tune --launch`");
}

RunConfig tunedLaunchConfig(const TunedModel& tuned) {
  return withTrialKnobs(defaultLaunchConfig(), tuned.model, tuned.chosenTrial().knobs);
}

std::string tunedFirstMinuteJson(const TunedFirstMinute& t) {
  json j;
  j["format"] = kFormat;
  j["tuning_seconds"] = t.tuning_seconds;
  j["comparison_seconds"] = t.comparison_seconds;
  j["tuned"] = json::array();
  for (const auto& m : t.tuned) j["tuned"].push_back(json::parse(tunedModelJson(m)));
  j["runs"] = json::parse(firstMinuteTableJson(t.runs));
  return j.dump(1) + "\n";
}

bool isTunedFirstMinuteJson(const std::string& text) {
  try {
    const json j = json::parse(text);
    return j.is_object() && j.value("format", "") == kFormat;
  } catch (const json::exception&) {
    return false;
  }
}

TunedFirstMinute tunedFirstMinuteFromJson(const std::string& text, const std::string& what) {
  if (!isTunedFirstMinuteJson(text))
    throw std::runtime_error(what + ": not a tuned first-minute file (format " + kFormat + ")");
  try {
    const json j = json::parse(text);
    TunedFirstMinute t;
    t.tuning_seconds = j.at("tuning_seconds").get<double>();
    t.comparison_seconds = j.at("comparison_seconds").get<double>();
    for (const auto& m : j.at("tuned")) t.tuned.push_back(tunedModelFromJson(m.dump(), what));
    t.runs = firstMinuteTableFromJson(j.at("runs").dump(), what);
    return t;
  } catch (const json::exception& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
}

std::string tunedFirstMinuteBlock(const TunedFirstMinute& t, const FirstMinuteTable& defaults) {
  if (t.tuned.empty()) throw std::invalid_argument("tuned first minute: no tuned model");
  const TunedModel& first = t.tuned.front();
  std::string out = std::string(kBegin) + "\n";
  out += "Each model tuned on the default launch by `rsalab-cli tune --launch` (" +
         std::to_string(first.trials) +
         " configurations per model from its search space, "
         "successive halving with eta " +
         std::to_string(first.eta) + " to " + std::to_string(first.budget) +
         " steps, parameters capped at " + cellNumber(first.cap_factor) +
         " x the shared default's, chosen on the validation loss; "
         "seed " +
         std::to_string(first.seed) + "), then trained as the first minute over " +
         std::to_string(t.runs.seeds) +
         " seeds at its tuned configuration. Wall time on 2 cores "
         "shared with other work: tuning " +
         minutes(t.tuning_seconds) +
         ", the tuned first "
         "minute " +
         minutes(t.comparison_seconds) +
         ". Written by `rsalab-cli first-minute "
         "--tuned DIR/<model>.tuned.json … --json resources/first_minute_tuned.json --readme "
         "docs/TASKS.md`.\n\n";
  out += "| model | tuned configuration | best validation at " + std::to_string(first.budget) +
         " steps, tuned / shared default | parameters, tuned / default | training FLOPs per "
         "step, tuned / default | FLOPs spent tuning |\n|---|---|---|---|---|---|\n";
  for (const auto& m : t.tuned) {
    const TunedTrial& c = m.chosenTrial();
    out += "| " + m.model + " | " + tunedKnobsText(c.knobs) + " | " +
           cellNumber(c.losses.empty() ? NAN : c.losses.back()) + " / " +
           cellNumber(m.default_validation) + " | " + std::to_string(c.parameters) + " / " +
           std::to_string(m.default_parameters) + " | " + cellNumber(c.flops_per_step) + " / " +
           cellNumber(m.default_flops_per_step) + " | " + cellNumber(m.total_flops) + " |\n";
  }
  FirstMinuteTable both = t.runs;
  both.models.clear();
  both.runs.clear();
  for (const auto& m : t.tuned) {
    appendRuns(both, defaults, m.model, " (shared default)");
    appendRuns(both, t.runs, m.model, " (tuned)");
  }
  out += "\nThe first minute (" + std::to_string(t.runs.steps) +
         " steps, the launch's patience): each run's last validation loss / its test loss, "
         "\"(stop N)\" where it stopped by itself.\n\n" +
         firstMinuteRows(both);
  const std::string verdicts = firstMinuteVerdicts(t.runs);
  if (!verdicts.empty()) out += "\nWith every model tuned: " + verdicts + "\n";
  return out + kEnd + "\n";
}

std::string tunedFirstMinuteBlockIn(const std::string& markdown, const std::string& what) {
  return markedBlockIn(markdown, kBegin, kEnd, what);
}

std::string replaceTunedFirstMinuteBlock(const std::string& markdown, const std::string& block,
                                         const std::string& what) {
  return replaceMarkedBlock(markdown, block, kBegin, kEnd, what);
}

}  // namespace rsalab
