// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/tuned_set.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/text.h"

namespace rsalab {

namespace {

using nlohmann::json;

json taskSection(const std::string& config_json) { return json::parse(config_json).at("task"); }

// "N = 256, mix_share 0.875": where `t` was tuned, against the claim's task.
std::string tunedAt(const TunedModel& t, const RunConfig* claim) {
  const json base = json::parse(t.base_config);
  std::string at = "N = " + std::to_string(base.value("train_size", int64_t{0}));
  if (!claim) return at;
  const json mine = taskSection(toJson(*claim));
  for (const auto& [key, value] : base.at("task").items())
    if (!mine.contains(key) || mine.at(key) != value) at += ", " + key + " " + value.dump();
  return at;
}

std::string budgetText(const TunedModel& t) {
  return std::to_string(t.trials) + " trials, η " + std::to_string(t.eta) + ", rungs at " +
         joined(t.rungs, "/", [](const TuneRung& r) { return std::to_string(r.steps); }) + " steps";
}

}  // namespace

const TunedModel* TunedSet::find(const std::string& model) const {
  for (const auto& m : models)
    if (m.model == model) return &m;
  return nullptr;
}

TunedSet tunedSetFromFiles(const std::vector<std::string>& paths) {
  TunedSet set;
  for (const auto& path : paths) {
    TunedModel m = tunedModelFromJson(readTextFile(path, size_t{16} << 20), path);
    if (set.find(m.model))
      throw std::invalid_argument("--tuned: two files for " + m.model + " (" + path + ")");
    set.models.push_back(std::move(m));
  }
  return set;
}

RunConfig applyTuned(const TunedSet& set, const RunConfig& config) {
  const TunedModel* t = set.find(config.model.model);
  return t ? withTrialKnobs(config, t->model, t->chosenTrial().knobs) : config;
}

void requireTunedFor(const TunedSet& set, const std::vector<std::string>& models,
                     const RunConfig& base, const std::string& axis_key) {
  const json claim = taskSection(toJson(base));
  for (const auto& m : models) {
    const TunedModel* t = set.find(m);
    if (!t)
      throw std::invalid_argument("--tuned: no file for " + m +
                                  ": a tuned claim tunes every model it compares");
    const json tuned = taskSection(t->base_config);
    for (const auto& [key, value] : claim.items()) {
      if (key == axis_key) continue;
      if (!tuned.contains(key) || tuned.at(key) != value)
        throw std::invalid_argument("--tuned: " + m + " was tuned on another task (task." + key +
                                    " " + (tuned.contains(key) ? tuned.at(key).dump() : "unset") +
                                    ", this run's " + value.dump() +
                                    "): tune it on this claim's task");
    }
  }
}

std::string tunedLabel(const TunedSet& set, const RunConfig* claim) {
  if (set.empty()) return "shared defaults";
  bool same = true;
  for (const auto& m : set.models)
    same = same && budgetText(m) == budgetText(set.models.front()) &&
           tunedAt(m, claim) == tunedAt(set.models.front(), claim);
  if (same)
    return "tuned (budget: " + budgetText(set.models.front()) + ", each model on its own, at " +
           tunedAt(set.models.front(), claim) + ")";
  return "tuned (budget: " +
         joined(set.models, "; ",
                [&](const TunedModel& m) {
                  return m.model + " " + budgetText(m) + " at " + tunedAt(m, claim);
                }) +
         ")";
}

std::string tunedKnobsText(const std::map<std::string, double>& knobs) {
  std::string out;
  for (const auto& [key, value] : knobs) {
    std::string name = key;
    for (const char* prefix : {"trainer.", "model."})
      if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
    out += (out.empty() ? "" : ", ") + name + " " + cellNumber(value);
  }
  return out;
}

std::vector<std::string> tunedLines(const TunedSet& set) {
  std::vector<std::string> out;
  for (const auto& m : set.models) {
    const TunedTrial& c = m.chosenTrial();
    const double loss = c.losses.empty() ? NAN : c.losses.back();
    out.push_back(m.model + ": trial " + std::to_string(c.index) + " of " +
                  std::to_string(m.trials) + " (" + tunedKnobsText(c.knobs) + "); validation " +
                  formatNumber(loss) + " against the shared default's " +
                  formatNumber(m.default_validation) + " at " + std::to_string(m.budget) +
                  " steps; " + std::to_string(c.parameters) + " parameters (default " +
                  std::to_string(m.default_parameters) + "); tuned in " +
                  minutesSeconds(m.seconds));
  }
  return out;
}

std::string tunedSetJson(const TunedSet& set) {
  json a = json::array();
  for (const auto& m : set.models) a.push_back(json::parse(tunedModelJson(m)));
  return a.dump();
}

TunedSet tunedSetFromJson(const std::string& text, const std::string& what) {
  json a;
  try {
    a = json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(what + ": not JSON (" + e.what() + ")");
  }
  if (!a.is_array()) throw std::runtime_error(what + ": expected an array of tuned models");
  TunedSet set;
  for (size_t i = 0; i < a.size(); ++i)
    set.models.push_back(tunedModelFromJson(a[i].dump(), what + "[" + std::to_string(i) + "]"));
  return set;
}

}  // namespace rsalab
