// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/json_limits.h"

namespace rsalab {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* const kPlanFormat = "rsalab-sweep-plan";
constexpr int64_t kPlanFormatVersion = 1;
constexpr size_t kMaxPlanBytes = size_t{64} << 20;

// FNV-1a, 64 bits: a content fingerprint (not a defence against forgery) that is the same on
// every machine and compiler, unlike std::hash.
std::string fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string("fnv1a64:") + hex;
}

// The hashed part of a plan: base, axes and cells (sorted keys: nlohmann's objects are ordered).
std::string contentHash(const json& plan) {
  json content = json::object();
  for (const char* key : {"base", "axes", "budget", "tuned", "cells"}) {
    if (plan.contains(key)) content[key] = plan[key];
  }
  return fnv1a64(content.dump());
}

json planContent(const SweepPlan& plan) {
  json j;
  j["base"] = json::parse(toJson(plan.base));
  j["axes"] = {{"model", plan.models}, {"size", plan.sizes}, {"seed", plan.seeds}};
  // Only a sweep with a task axis has the key: older plans keep their hash.
  if (!plan.axis.empty())
    j["axes"]["task"] = {{"name", plan.axis.name}, {"values", plan.axis.values}};
  // Only a sweep with a growing budget has the key: older plans keep their hash.
  if (plan.budget_epochs > 0) j["budget"] = {{"epochs", plan.budget_epochs}};
  // Only a tuned sweep has the key: older plans keep their hash.
  if (!plan.tuned.empty()) j["tuned"] = json::parse(tunedSetJson(plan.tuned));
  j["cells"] = json::array();
  for (const auto& c : plan.cells) {
    json cell = {{"index", c.index}, {"model", c.model}, {"size", c.size}, {"seed", c.seed}};
    if (!plan.axis.empty()) cell["axis_value"] = c.axis_value;
    j["cells"].push_back(cell);
  }
  return j;
}

[[noreturn]] void failPlan(const std::string& what, const std::string& message) {
  throw std::runtime_error(what + ": " + message);
}

const json& needPlanKey(const json& o, const char* key, const std::string& path,
                        const std::string& what, bool (json::*is)() const noexcept,
                        const char* type) {
  auto it = o.find(key);
  if (it == o.end()) failPlan(what, "missing key \"" + path + key + "\"");
  if (!((*it).*is)()) {
    failPlan(what, "key \"" + path + key + "\" must be " + type + " (is " + it->type_name() + ")");
  }
  return *it;
}

}  // namespace

SweepAxis parseSweepAxis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw std::invalid_argument("--axis '" + text +
                                "': use NAME=V1,V2,… (e.g. mix.share=0,0.25,0.5,0.75,1)");
  }
  SweepAxis axis;
  axis.name = taskParameterKey(text.substr(0, eq));
  std::string rest = text.substr(eq + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string item = rest.substr(start, comma - start);
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || !std::isfinite(v))
      throw std::invalid_argument("--axis " + axis.name + ": '" + item + "' is not a number");
    for (double seen : axis.values)
      if (seen == v)
        throw std::invalid_argument("--axis " + axis.name + ": " + item + " is given twice");
    axis.values.push_back(v);
    start = comma + 1;
  }
  return axis;
}

SweepPlan makeSweepPlan(const SweepOptions& options) {
  if (options.models.empty() || options.sizes.empty() || options.seeds < 1)
    throw std::invalid_argument("the sweep has no runs: give models, sizes and seeds >= 1");
  SweepPlan plan;
  plan.base = options.base;
  plan.models = options.models;
  plan.sizes = options.sizes;
  if (options.budget_epochs < 0 || options.budget_epochs > 100000)
    throw std::invalid_argument("--epochs " + std::to_string(options.budget_epochs) +
                                " is out of range: 0..100000");
  plan.budget_epochs = options.budget_epochs;
  if (!options.tuned.empty()) {
    requireTunedFor(options.tuned, options.models, options.base,
                    options.axis.empty() ? "" : taskParameterKey(options.axis.name));
    plan.tuned = options.tuned;
  }
  for (int64_t s = 0; s < options.seeds; ++s)
    plan.seeds.push_back(options.base.trainer.seed + static_cast<uint64_t>(s));
  if (!options.axis.empty()) {
    if (options.axis.values.empty())
      throw std::invalid_argument("the task axis " + options.axis.name + " has no values");
    plan.axis.name = taskParameterKey(options.axis.name);
    plan.axis.values = options.axis.values;
  }
  // Without an axis, one pass with an unused value.
  const std::vector<double> axis_values =
      plan.axis.empty() ? std::vector<double>{0.0} : plan.axis.values;
  for (uint64_t seed : plan.seeds)
    for (int64_t n : plan.sizes)
      for (double a : axis_values)
        for (const auto& m : plan.models)
          plan.cells.push_back({static_cast<int64_t>(plan.cells.size()), m, n, seed, a});
  for (const auto& m : plan.models) {  // fail fast on bad configs, before any training
    for (double a : axis_values) {
      SweepCell probe{0, m, plan.sizes.front(), plan.seeds.front(), a};
      validate(cellConfig(plan, probe));
    }
  }
  plan.hash = contentHash(planContent(plan));
  return plan;
}

int64_t cellSteps(const RunConfig& base, int64_t budget_epochs, int64_t size) {
  const int64_t steps = base.trainer.max_steps;
  if (budget_epochs <= 0 || base.trainer.batch_size <= 0) return steps;
  const int64_t batch = base.trainer.batch_size;
  return std::max(steps, (budget_epochs * size + batch - 1) / batch);
}

std::string sweepStepRange(const RunConfig& base, int64_t budget_epochs,
                           const std::vector<int64_t>& sizes) {
  if (sizes.empty()) return std::to_string(base.trainer.max_steps);
  const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
  const int64_t a = cellSteps(base, budget_epochs, *lo), b = cellSteps(base, budget_epochs, *hi);
  return std::to_string(a) + (a == b ? std::string() : "–" + std::to_string(b));
}

std::string sweepBudgetText(const SweepPlan& plan) {
  const std::string base = std::to_string(plan.base.trainer.max_steps);
  if (plan.budget_epochs <= 0 || plan.sizes.empty()) return base + " steps";
  const int64_t lo = plan.sizes.front(), hi = plan.sizes.back();
  return "max(" + base + ", " + std::to_string(plan.budget_epochs) +
         " epochs) steps: " + std::to_string(cellSteps(plan.base, plan.budget_epochs, lo)) +
         " at N = " + std::to_string(lo) + " … " +
         std::to_string(cellSteps(plan.base, plan.budget_epochs, hi)) +
         " at N = " + std::to_string(hi);
}

RunConfig cellConfig(const SweepPlan& plan, const SweepCell& cell) {
  RunConfig c = plan.base;
  c.model.model = cell.model;
  c.train_size = cell.size;
  c.trainer.seed = cell.seed;
  c.trainer.max_steps = cellSteps(plan.base, plan.budget_epochs, cell.size);
  if (!plan.tuned.empty()) c = applyTuned(plan.tuned, c);
  if (!plan.axis.empty()) return withTaskParameter(c, plan.axis.name, cell.axis_value);
  return c;
}

std::string sweepPlanJson(const SweepPlan& plan) {
  json j = planContent(plan);
  j["format"] = kPlanFormat;
  j["format_version"] = kPlanFormatVersion;
  j["hash"] = contentHash(j);
  j["created_by"] = std::string("rsalab ") + RSALAB_VERSION;
  return j.dump(1) + "\n";
}

SweepPlan sweepPlanFromJson(const std::string& text, const std::string& what) {
  const json j = parseJsonLimited(text, what, {kMaxPlanBytes, 32});
  if (!j.is_object())
    failPlan(what, std::string("must be a JSON object (is ") + j.type_name() + ")");
  const auto& format = needPlanKey(j, "format", "", what, &json::is_string, "a string");
  if (format.get<std::string>() != kPlanFormat)
    failPlan(what, "key \"format\" is \"" + format.get<std::string>() + "\", not \"" + kPlanFormat +
                       "\"");
  const auto& version =
      needPlanKey(j, "format_version", "", what, &json::is_number_integer, "an integer");
  if (version.get<int64_t>() != kPlanFormatVersion) {
    failPlan(what, "format_version " + std::to_string(version.get<int64_t>()) +
                       " is not supported (this build reads " + std::to_string(kPlanFormatVersion) +
                       ")");
  }
  SweepPlan plan;
  plan.hash = needPlanKey(j, "hash", "", what, &json::is_string, "a string").get<std::string>();
  const std::string actual = contentHash(j);
  if (actual != plan.hash) {
    failPlan(what, "the plan was edited after it was written (its content hashes to " + actual +
                       ", it records " + plan.hash +
                       "): results computed for it would not match. Write a new plan with "
                       "`rsalab-cli sweep … --plan NEW_DIR` instead of editing plan.json");
  }
  try {
    plan.base =
        runConfigFromJson(needPlanKey(j, "base", "", what, &json::is_object, "an object").dump());
  } catch (const std::exception& e) {
    failPlan(what, std::string("key \"base\": ") + e.what());
  }
  const json& axes = needPlanKey(j, "axes", "", what, &json::is_object, "an object");
  try {
    plan.models = needPlanKey(axes, "model", "axes.", what, &json::is_array, "an array")
                      .get<std::vector<std::string>>();
    plan.sizes = needPlanKey(axes, "size", "axes.", what, &json::is_array, "an array")
                     .get<std::vector<int64_t>>();
    plan.seeds = needPlanKey(axes, "seed", "axes.", what, &json::is_array, "an array")
                     .get<std::vector<uint64_t>>();
    if (const auto task = axes.find("task"); task != axes.end()) {
      plan.axis.name = needPlanKey(*task, "name", "axes.task.", what, &json::is_string, "a string")
                           .get<std::string>();
      plan.axis.values =
          needPlanKey(*task, "values", "axes.task.", what, &json::is_array, "an array")
              .get<std::vector<double>>();
      plan.axis.name = taskParameterKey(plan.axis.name);
    }
  } catch (const json::exception& e) {
    failPlan(what, std::string("key \"axes\": ") + e.what());
  } catch (const std::invalid_argument& e) {
    failPlan(what, std::string("key \"axes.task.name\": ") + e.what());
  }
  if (const auto budget = j.find("budget"); budget != j.end()) {
    plan.budget_epochs =
        needPlanKey(*budget, "epochs", "budget.", what, &json::is_number_integer, "an integer")
            .get<int64_t>();
    if (plan.budget_epochs < 1 || plan.budget_epochs > 100000)
      failPlan(what, "key \"budget.epochs\" is out of range: 1..100000");
  }
  if (const auto tuned = j.find("tuned"); tuned != j.end())
    plan.tuned = tunedSetFromJson(tuned->dump(), what + ": key \"tuned\"");
  const json& cells = needPlanKey(j, "cells", "", what, &json::is_array, "an array");
  if (cells.empty()) failPlan(what, "key \"cells\" is empty: the sweep has no runs");
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string path = "cells[" + std::to_string(i) + "].";
    if (!cells[i].is_object()) failPlan(what, "key \"" + path + "\" must be an object");
    SweepCell c;
    c.index = needPlanKey(cells[i], "index", path, what, &json::is_number_integer, "an integer")
                  .get<int64_t>();
    if (c.index != static_cast<int64_t>(i))
      failPlan(what,
               "key \"" + path + "index\" is " + std::to_string(c.index) + ", not its position");
    c.model =
        needPlanKey(cells[i], "model", path, what, &json::is_string, "a string").get<std::string>();
    c.size = needPlanKey(cells[i], "size", path, what, &json::is_number_integer, "an integer")
                 .get<int64_t>();
    c.seed = needPlanKey(cells[i], "seed", path, what, &json::is_number_unsigned, "an integer >= 0")
                 .get<uint64_t>();
    if (!plan.axis.empty()) {
      c.axis_value = needPlanKey(cells[i], "axis_value", path, what, &json::is_number, "a number")
                         .get<double>();
    }
    try {
      validate(cellConfig(plan, c));
    } catch (const std::exception& e) {
      failPlan(what, "cell " + std::to_string(i) + ": " + e.what());
    }
    plan.cells.push_back(c);
  }
  return plan;
}

std::string sweepPlanPath(const std::string& dir) { return (fs::path(dir) / "plan.json").string(); }

std::string sweepCellsDir(const std::string& dir) { return (fs::path(dir) / "cells").string(); }

std::string sweepCellPath(const std::string& dir, int64_t index) {
  return (fs::path(dir) / "cells" / (std::to_string(index) + ".json")).string();
}

SweepPlan readSweepPlan(const std::string& dir) {
  const std::string path = sweepPlanPath(dir);
  if (!fs::exists(path)) {
    throw std::runtime_error("no plan in " + dir + ": " + path +
                             " is missing (write one with `rsalab-cli sweep … --plan " + dir +
                             "`)");
  }
  return sweepPlanFromJson(readTextFile(path, kMaxPlanBytes), path);
}

void writeSweepPlan(const std::string& dir, const SweepPlan& plan, bool replace) {
  const std::string path = sweepPlanPath(dir);
  if (fs::exists(path)) {
    std::string previous;
    try {
      previous = readSweepPlan(dir).hash;
    } catch (const std::exception&) {
      previous = "unreadable";
    }
    if (previous != plan.hash) {
      if (!replace) {
        throw std::runtime_error(dir + " already holds another sweep's plan (" + previous +
                                 "; this one is " + plan.hash + "): use a new folder, or remove " +
                                 dir + " to start over");
      }
      fs::remove_all(sweepCellsDir(dir));
    }
  }
  fs::create_directories(sweepCellsDir(dir));
  writeFileAtomically(path, sweepPlanJson(plan));
}

}  // namespace rsalab
