// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/tuning.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "engine/core/config/search_space.h"
#include "engine/core/io/json_read.h"

namespace rsalab {

std::vector<TuneRung> successiveHalvingRungs(int64_t trials, int64_t budget, int64_t eta) {
  if (trials < 1 || budget < 1 || eta < 2)
    throw std::invalid_argument("tune: trials and budget must be >= 1 and eta >= 2");
  int64_t halvings = 0;
  for (int64_t n = trials / eta; n >= 1; n /= eta) ++halvings;
  std::vector<TuneRung> rungs;
  int64_t n = trials;
  for (int64_t k = 0; k <= halvings; ++k, n /= eta) {
    const double steps =
        static_cast<double>(budget) * std::pow(static_cast<double>(eta), double(k - halvings));
    rungs.push_back({n, std::max<int64_t>(1, std::llround(steps))});
  }
  return rungs;
}

std::vector<int64_t> survivors(const std::vector<int64_t>& candidates,
                               const std::vector<double>& losses, int64_t keep) {
  if (candidates.size() != losses.size())
    throw std::invalid_argument("survivors: one loss per candidate");
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto key = [&](size_t i) { return std::isfinite(losses[i]) ? losses[i] : HUGE_VAL; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (key(a) != key(b)) return key(a) < key(b);
    return candidates[a] < candidates[b];
  });
  std::vector<int64_t> out;
  for (size_t i = 0; i < order.size() && static_cast<int64_t>(out.size()) < keep; ++i)
    out.push_back(candidates[order[i]]);
  std::sort(out.begin(), out.end());
  return out;
}

const TunedTrial& TunedModel::chosenTrial() const {
  for (const auto& t : trial_list)
    if (t.index == chosen) return t;
  throw std::runtime_error("tuned " + model + ": no chosen trial");
}

namespace {
using nlohmann::json;

json lossesJson(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return a;
}
}  // namespace

std::string tunedModelJson(const TunedModel& t) {
  json j;
  j["model"] = t.model;
  j["base_config"] = json::parse(t.base_config);
  j["seed"] = t.seed;
  j["trials"] = t.trials;
  j["budget_steps"] = t.budget;
  j["eta"] = t.eta;
  j["cap_factor"] = t.cap_factor;
  j["parameter_cap"] = t.parameter_cap;
  j["default"] = {{"parameters", t.default_parameters},
                  {"flops_per_step", t.default_flops_per_step},
                  {"validation", std::isfinite(t.default_validation) ? json(t.default_validation)
                                                                     : json(nullptr)}};
  j["rungs"] = json::array();
  for (const auto& r : t.rungs) j["rungs"].push_back({{"trials", r.trials}, {"steps", r.steps}});
  j["chosen"] = t.chosen;
  j["total_flops"] = t.total_flops;
  j["seconds"] = t.seconds;
  j["trial_list"] = json::array();
  for (const auto& tr : t.trial_list) {
    json knobs = json::object();
    for (const auto& [k, v] : tr.knobs) knobs[k] = v;
    j["trial_list"].push_back({{"index", tr.index},
                               {"knobs", knobs},
                               {"parameters", tr.parameters},
                               {"flops_per_step", tr.flops_per_step},
                               {"validation_by_rung", lossesJson(tr.losses)},
                               {"stop", tr.stop}});
  }
  return j.dump(2) + "\n";
}

TunedModel tunedModelFromJson(const std::string& text, const std::string& what) {
  namespace jr = json_read;
  return jr::keyErrorsAs<std::runtime_error>(what, [&] {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      throw std::runtime_error(what + ": not JSON (" + e.what() + ")");
    }
    TunedModel t;
    t.model = jr::needString(j, "model");
    modelInfo(t.model);  // throws naming the known models
    t.base_config = jr::object(jr::need(j, "base_config"), "base_config").dump();
    runConfigFromJson(t.base_config);  // validates
    t.seed = static_cast<uint64_t>(jr::needInteger(j, "seed"));
    t.trials = jr::needInteger(j, "trials");
    t.budget = jr::needInteger(j, "budget_steps");
    t.eta = jr::needInteger(j, "eta");
    t.cap_factor = jr::needNumber(j, "cap_factor");
    t.parameter_cap = jr::needInteger(j, "parameter_cap");
    const json& d = jr::object(jr::need(j, "default"), "default");
    t.default_parameters = jr::needInteger(d, "parameters", "default.");
    t.default_flops_per_step = jr::needNumber(d, "flops_per_step", "default.");
    t.default_validation = jr::needNumber(d, "validation", "default.");
    const json& rungs = jr::array(jr::need(j, "rungs"), "rungs");
    for (size_t i = 0; i < rungs.size(); ++i) {
      const std::string p = "rungs[" + std::to_string(i) + "].";
      t.rungs.push_back(
          {jr::needInteger(rungs[i], "trials", p), jr::needInteger(rungs[i], "steps", p)});
    }
    t.chosen = jr::needInteger(j, "chosen");
    t.total_flops = jr::needNumber(j, "total_flops");
    t.seconds = jr::number(j, "seconds", "", 0);
    const json& trials = jr::array(jr::need(j, "trial_list"), "trial_list");
    for (size_t i = 0; i < trials.size(); ++i) {
      const std::string p = "trial_list[" + std::to_string(i) + "].";
      const json& o = trials[i];
      TunedTrial tr;
      tr.index = jr::needInteger(o, "index", p);
      const json& knobs = jr::object(jr::need(o, "knobs", p), p + "knobs");
      for (const auto& [k, v] : knobs.items()) tr.knobs[k] = jr::toNumber(v, p + "knobs." + k);
      tr.parameters = jr::needInteger(o, "parameters", p);
      tr.flops_per_step = jr::needNumber(o, "flops_per_step", p);
      const json& losses =
          jr::array(jr::need(o, "validation_by_rung", p), p + "validation_by_rung");
      for (const auto& v : losses) tr.losses.push_back(jr::toNumber(v, p + "validation_by_rung"));
      tr.stop = jr::needString(o, "stop", p);
      t.trial_list.push_back(tr);
    }
    t.chosenTrial();  // throws when the chosen index is no trial's
    return t;
  });
}

RunConfig withTrialKnobs(const RunConfig& base, const std::string& model,
                         const std::map<std::string, double>& knobs) {
  RunConfig c = base;
  c.model.model = model;
  const auto all = searchKnobs(model);
  for (const auto& [key, value] : knobs) {
    const auto it =
        std::find_if(all.begin(), all.end(), [&](const auto& k) { return k.key == key; });
    if (it == all.end())
      throw std::invalid_argument("tuned " + model + ": '" + key + "' is no knob of its space");
    it->set(c, value);
  }
  validate(c);
  return c;
}

RunConfig tunedConfig(const TunedModel& t) {
  return withTrialKnobs(runConfigFromJson(t.base_config), t.model, t.chosenTrial().knobs);
}

}  // namespace rsalab
