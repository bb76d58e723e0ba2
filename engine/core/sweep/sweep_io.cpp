// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/sweep_io.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "engine/core/forecast/skill_interval.h"
#include "engine/core/io/json_read.h"
#include "engine/core/registry/ground_truth_json.h"
#include "engine/core/sweep/sweep_row_json.h"

namespace rsalab {

using nlohmann::json;

namespace {

const char* const kFile = "sweep.json";

using namespace json_read;  // find, need, number, integer, string, array, object

[[noreturn]] void fail(const std::string& what) { keyError(what); }

SweepRow rowFromJson(const json& r, int64_t index, const std::string& path) {
  SweepRow row;
  row.model = needString(r, "model", path);
  row.size = needInteger(r, "size", path);
  row.test_loss = needNumber(r, "test_loss", path);
  row.run = integer(r, "run", path, index);
  row.requested_size = integer(r, "requested_size", path, row.size);
  if (const json* ref = find(r, "reference")) {
    if (!ref->is_boolean()) wrongType(path + "reference", "a boolean", *ref);
    row.reference = ref->get<bool>();
  }
  const int64_t seed = integer(r, "seed", path, 0);
  if (seed < 0) fail("key \"" + path + "seed\" must be >= 0");
  row.seed = static_cast<uint64_t>(seed);
  if (const json* metrics = find(r, "test_metrics")) {
    for (const auto& [k, v] : object(*metrics, path + "test_metrics").items()) {
      row.test_metrics[k] = toNumber(v, path + "test_metrics." + k);
    }
  }
  row.bayes_floor = number(r, "bayes_floor", path, NAN);
  row.axis_value = number(r, "axis_value", path, NAN);
  row.best_validation = number(r, "best_validation", path, 0.0);
  row.steps = integer(r, "steps", path, 0);
  row.seconds = number(r, "seconds", path, 0.0);
  row.parameters = integer(r, "parameters", path, 0);
  row.flops_per_token = number(r, "flops_per_token", path, 0.0);
  // "reference", "" (no training) and texts of older writers read as None
  row.stop_reason = parseStopReason(string(r, "stop_reason", path, "")).value_or(StopReason::None);
  row.error = string(r, "error", path, "");
  // Written since the skill intervals (2026-11-27); older files have none.
  row.horizon = std::max<int64_t>(1, integer(r, "horizon", path, 1));
  row.season = std::max<int64_t>(1, integer(r, "season", path, 1));
  if (const json* errors = find(r, "test_errors")) {
    if (!errors->is_array()) wrongType(path + "test_errors", "an array", *errors);
    for (size_t k = 0; k < errors->size(); ++k)
      row.test_errors.push_back(
          toNumber((*errors)[k], path + "test_errors[" + std::to_string(k) + "]"));
  }
  row.length = integer(r, "length", path, 0);
  if (const json* decays = find(r, "regular_decays")) {  // since 2026-11-27
    if (!decays->is_array()) wrongType(path + "regular_decays", "an array", *decays);
    for (size_t k = 0; k < decays->size(); ++k)
      row.regular_decays.push_back(
          toNumber((*decays)[k], path + "regular_decays[" + std::to_string(k) + "]"));
  }
  if (const json* truth = find(r, "truth")) {
    try {
      row.truth = groundTruthFromJson(*truth, path + "truth");
    } catch (const std::exception& e) {
      keyError(e.what());
    }
  }
  return row;
}

PowerLawFit fitFromJson(const json& f, int64_t index) {
  const std::string path = "fits[" + std::to_string(index) + "].";
  PowerLawFit fit;
  fit.model = needString(f, "model", path);
  fit.a = number(f, "a", path, 0.0);
  fit.b = number(f, "b", path, 0.0);
  if (const json* ci = find(f, "b_ci95")) {
    if (!ci->is_array() || ci->size() != 2) wrongType(path + "b_ci95", "[low, high]", *ci);
    fit.b_low = toNumber((*ci)[0], path + "b_ci95[0]");
    fit.b_high = toNumber((*ci)[1], path + "b_ci95[1]");
  }
  fit.r2 = number(f, "r2", path, 0.0);
  fit.axis_value = number(f, "axis_value", path, NAN);
  fit.points = integer(f, "points", path, 0);
  if (const json* seeds = find(f, "per_seed")) {  // since 2026-11-29; older fits were pooled
    const json& list = array(*seeds, path + "per_seed");
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string at = path + "per_seed[" + std::to_string(k) + "].";
      const json& one = object(list[k], at);
      const int64_t seed = needInteger(one, "seed", at);
      if (seed < 0) fail("key \"" + at + "seed\" must be >= 0");
      fit.seed_ids.push_back(static_cast<uint64_t>(seed));
      fit.seed_b.push_back(needNumber(one, "b", at));
    }
  }
  return fit;
}

}  // namespace

std::string sweepCsv(const SweepResult& result) {
  std::set<std::string> metric_names;
  for (const auto& r : result.rows)
    for (const auto& [k, v] : r.test_metrics) metric_names.insert(k);
  std::ostringstream s;
  s.precision(9);
  // A sweep with a task axis has its column (named by the parameter) after the seed.
  const bool axis = !result.axis.empty();
  s << "model,size,seed";
  if (axis) s << "," << result.axis.name;
  s << ",test_loss,bayes_floor,excess_loss";
  for (const auto& k : metric_names) s << ",test_" << k;
  // size: the N used; requested_size: the N asked for; reference: a baseline row, not a model
  s << ",best_validation,steps,parameters,seconds,requested_size,reference,stop_reason,error";
  // The headline beside every row: skill vs the best reference of its (task value, N, seed), the
  // reference row with the lowest validation loss. Empty for tasks without references.
  s << ",best_anchor,skill_vs_best_anchor";
  // Its paired block-bootstrap interval, the Diebold–Mariano p-value and the word it earns
  // (engine/core/forecast/skill_interval.h); empty without per-target errors.
  s << ",skill_ci95_low,skill_ci95_high,skill_dm_p,skill_verdict\n";
  // A run's references: the reference rows of its (task value, N, seed), as ReferenceScores, so
  // that the best reference and the skill are metrics.h's rule (bestAnchor, skillVersusBest).
  std::map<std::tuple<double, int64_t, uint64_t>, std::vector<ReferenceScore>> references;
  auto key = [](const SweepRow& r) {
    return std::make_tuple(std::isnan(r.axis_value) ? 0.0 : r.axis_value, r.size, r.seed);
  };
  for (const auto& r : result.rows) {
    if (!r.reference) continue;
    references[key(r)].emplace_back(r.model, r.model, r.best_validation, r.test_loss);
    references[key(r)].back().test_errors = r.test_errors;
  }
  for (const auto& r : result.rows) {
    if (r.model.empty()) continue;  // not run (stopped)
    s << r.model << "," << r.size << "," << r.seed << ",";
    if (axis) s << r.axis_value << ",";
    s << r.test_loss << ",";
    if (std::isfinite(r.bayes_floor))
      s << r.bayes_floor << "," << r.excess();
    else
      s << ",";
    for (const auto& k : metric_names) {
      auto it = r.test_metrics.find(k);
      s << ",";
      if (it != r.test_metrics.end()) s << it->second;
    }
    s << "," << r.best_validation << "," << r.steps << "," << r.parameters << "," << r.seconds
      << "," << (r.requested_size > 0 ? r.requested_size : r.size) << "," << (r.reference ? 1 : 0)
      << "," << quoted(sweepStopReasonText(r)) << "," << quoted(r.error) << ",";
    const auto refs = references.find(key(r));
    const ReferenceScore* best = refs == references.end() ? nullptr : bestAnchor(refs->second);
    s << (best ? best->name : "") << ",";
    const double skill = best && r.error.empty() ? skillVersusBest(r.test_loss, refs->second) : NAN;
    if (std::isfinite(skill)) s << skill;
    const auto ci = best && r.error.empty() && !r.reference
                        ? skillIntervalVersusBest(r.test_errors, refs->second, r.horizon)
                        : SkillInterval{};
    const bool too_few = !r.test_errors.empty() &&
                         static_cast<int64_t>(r.test_errors.size()) < skillMinTargets(r.horizon);
    if (ci.valid())
      s << "," << ci.low << "," << ci.high << "," << ci.dm_p << ","
        << skillVerdictName(ci.verdict());
    else if (best && r.error.empty() && !r.reference && too_few)
      s << ",,,," << skillVerdictName(SkillVerdict::TooFew);
    else
      s << ",,,,";
    s << "\n";
  }
  return s.str();
}

std::string sweepJson(const SweepResult& result) {
  json j;
  j["wall_seconds"] = result.wall_seconds;
  j["parallel_runs"] = result.parallel;
  j["threads_per_run"] = result.threads_per_run;
  j["config"] = json::parse(toJson(result.base));
  if (!result.axis.empty())
    j["axis"] = {{"name", result.axis.name}, {"values", result.axis.values}};
  if (!result.tuned.empty()) j["tuned"] = json::parse(tunedSetJson(result.tuned));
  for (const auto& r : result.rows) {
    if (r.model.empty()) continue;
    j["runs"].push_back(sweepRowToJson(r));
  }
  j["fits"] = json::array();  // empty with fewer than kPowerLawMinSizes sizes; always present
  for (const auto* fits : {&result.fits, &result.excess_fits}) {
    for (const auto& f : *fits) {
      json fit = {{"model", f.model}, {"a", f.a},
                  {"b", f.b},         {"b_ci95", {f.b_low, f.b_high}},
                  {"r2", f.r2},       {"points", f.points}};
      if (!result.axis.empty()) fit["axis_value"] = f.axis_value;
      if (!f.seed_ids.empty()) {
        fit["per_seed"] = json::array();
        for (size_t k = 0; k < f.seed_ids.size(); ++k)
          fit["per_seed"].push_back({{"seed", f.seed_ids[k]}, {"b", f.seed_b[k]}});
      }
      j[fits == &result.fits ? "fits" : "excess_fits"].push_back(fit);
    }
  }
  return j.dump(2);
}

std::string sweepStopReasonText(const SweepRow& r) {
  if (r.reference) return "reference";
  return r.stop_reason == StopReason::None ? "" : stopReasonName(r.stop_reason);
}

SweepRow sweepRowFromJson(const nlohmann::json& row, const std::string& path) {
  return rowFromJson(object(row, path), 0, path + ".");
}

nlohmann::json sweepRowToJson(const SweepRow& r) {
  return {{"model", r.model},
          {"size", r.size},
          {"requested_size", r.requested_size > 0 ? r.requested_size : r.size},
          {"reference", r.reference},
          {"seed", r.seed},
          {"test_loss", r.test_loss},
          {"bayes_floor", r.bayes_floor},
          {"axis_value", r.axis_value},
          {"excess_loss", r.excess()},
          {"test_metrics", r.test_metrics},
          {"best_validation", r.best_validation},
          {"steps", r.steps},
          {"parameters", r.parameters},
          {"flops_per_token", r.flops_per_token},
          {"seconds", r.seconds},
          {"stop_reason", sweepStopReasonText(r)},
          {"run", r.run},
          {"error", r.error},
          {"horizon", r.horizon},
          {"season", r.season},
          {"test_errors", r.test_errors},
          {"length", r.length},
          {"regular_decays", r.regular_decays},
          {"truth", groundTruthJson(r.truth)}};
}

namespace {

SweepResult sweepResultFromJsonKeys(const json& j) {
  if (j.is_discarded()) fail("not valid JSON");
  if (!j.is_object()) fail(std::string("must be a JSON object (is ") + j.type_name() + ")");
  SweepResult result;
  if (const json* config = find(j, "config")) {
    try {
      result.base = runConfigFromJson(object(*config, "config").dump());
    } catch (const std::exception& e) {
      fail(std::string("key \"config\": ") + e.what());
    }
  }
  result.wall_seconds = number(j, "wall_seconds", "", 0.0);
  result.parallel = integer(j, "parallel_runs", "", 1);
  result.threads_per_run = integer(j, "threads_per_run", "", 1);
  if (const json* axis = find(j, "axis")) {
    const json& a = object(*axis, "axis");
    result.axis.name = needString(a, "name", "axis.");
    const json& values = array(need(a, "values", "axis."), "axis.values");
    for (size_t i = 0; i < values.size(); ++i)
      result.axis.values.push_back(toNumber(values[i], "axis.values[" + std::to_string(i) + "]"));
  }
  if (const json* tuned = find(j, "tuned")) result.tuned = tunedSetFromJson(tuned->dump(), "tuned");
  if (const json* found = find(j, "runs")) {
    const json& runs = array(*found, "runs");
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string key = "runs[" + std::to_string(i) + "]";
      result.rows.push_back(rowFromJson(object(runs[i], key), static_cast<int64_t>(i), key + "."));
    }
  }
  for (const char* name : {"fits", "excess_fits"}) {
    const json* found = find(j, name);
    if (!found) continue;
    const json& fits = array(*found, name);
    auto& out = std::string(name) == "fits" ? result.fits : result.excess_fits;
    for (size_t i = 0; i < fits.size(); ++i) {
      const std::string key = std::string(name) + "[" + std::to_string(i) + "]";
      out.push_back(fitFromJson(object(fits[i], key), static_cast<int64_t>(i)));
    }
  }
  return result;
}

}  // namespace

SweepResult sweepResultFromJson(const std::string& text) {
  return sweepResultFromParsedJson(json::parse(text, nullptr, /*allow_exceptions=*/false));
}

SweepResult sweepResultFromParsedJson(const nlohmann::json& parsed) {
  try {
    return sweepResultFromJsonKeys(parsed);
  } catch (const JsonKeyError& e) {
    throw std::runtime_error(std::string(kFile) + ": " + e.what());
  }
}

void fitSweep(SweepResult& result, const std::vector<std::string>& models) {
  result.fits.clear();
  result.excess_fits.clear();
  // Per model, and per task-axis value where the sweep has an axis (one pass with NaN otherwise).
  const std::vector<double> axis_values =
      result.axis.empty() ? std::vector<double>{NAN} : result.axis.values;
  bool refused = false;
  for (const auto& m : models) {
    for (double a : axis_values) {
      std::vector<PowerLawPoint> loss, excess;
      std::set<int64_t> sizes;
      for (const auto& r : result.rows) {
        if (r.model != m || !r.ok()) continue;
        if (!std::isnan(a) && !(std::abs(r.axis_value - a) <= 1e-9)) continue;
        sizes.insert(r.size);
        loss.push_back({static_cast<double>(r.size), r.seed, r.test_loss});
        if (std::isfinite(r.bayes_floor))
          excess.push_back({static_cast<double>(r.size), r.seed, r.excess()});
      }
      if (static_cast<int64_t>(sizes.size()) < kPowerLawMinSizes) {
        if (!sizes.empty() && !refused)
          result.notes.push_back(
              "no power law (loss ≈ a·N^−b) fitted: it needs " + std::to_string(kPowerLawMinSizes) +
              " training-set sizes or more; " + m + " has " + std::to_string(sizes.size()));
        refused = refused || !sizes.empty();
        continue;
      }
      auto fit = fitPowerLawPerSeed(loss);
      fit.model = m;
      fit.axis_value = a;
      result.fits.push_back(fit);
      if (!excess.empty()) {
        auto e = fitPowerLawPerSeed(excess);
        e.model = m;
        e.axis_value = a;
        result.excess_fits.push_back(e);
      }
    }
  }
}

}  // namespace rsalab
