// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/ground_truth_json.h"

#include <cmath>
#include <stdexcept>

namespace rsalab {

using nlohmann::json;

json groundTruthJson(const GroundTruth& truth) {
  json components = json::array();
  for (const auto& c : truth.components)
    components.push_back({{"kind", remKindName(c.kind)}, {"base", c.base}, {"theta", c.theta}});
  json out = {{"components", components},
              {"description", truth.description},
              {"meaning", truth.meaning},
              {"bayes_floor", std::isfinite(truth.bayes_floor) ? json(truth.bayes_floor) : json()},
              {"floor_note", truth.floor_note}};
  if (truth.floor_is_bound) out["floor_is_bound"] = true;  // written only when set, as below
  // Written only for a process without an REM form: older readers and records stay as they were.
  if (truth.no_rem_form) {
    out["no_rem_form"] = true;
    out["kernel"] = truth.kernel;
    out["reach"] = std::isfinite(truth.reach) ? json(truth.reach) : json();
  }
  return out;
}

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + "." + what);
}

std::string text(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return {};
  if (!j[key].is_string()) fail(where, std::string(key) + " must be a string");
  return j[key].get<std::string>();
}

double number(const json& j, const char* key, const std::string& where, double absent) {
  if (!j.contains(key) || j[key].is_null()) return absent;
  if (!j[key].is_number()) fail(where, std::string(key) + " must be a number or null");
  return j[key].get<double>();
}

}  // namespace

GroundTruth groundTruthFromJson(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::runtime_error(where + " must be a JSON object");
  GroundTruth truth;
  truth.description = text(j, "description", where);
  truth.meaning = text(j, "meaning", where);
  truth.floor_note = text(j, "floor_note", where);
  truth.bayes_floor = number(j, "bayes_floor", where, NAN);
  if (j.contains("no_rem_form")) {
    if (!j["no_rem_form"].is_boolean()) fail(where, "no_rem_form must be a boolean");
    truth.no_rem_form = j["no_rem_form"].get<bool>();
  }
  if (j.contains("floor_is_bound")) {
    if (!j["floor_is_bound"].is_boolean()) fail(where, "floor_is_bound must be a boolean");
    truth.floor_is_bound = j["floor_is_bound"].get<bool>();
  }
  truth.reach = number(j, "reach", where, NAN);
  if (j.contains("kernel")) {
    const json& kernel = j["kernel"];
    if (!kernel.is_array()) fail(where, "kernel must be an array of numbers");
    for (const auto& v : kernel) {
      if (!v.is_number()) fail(where, "kernel must be an array of numbers");
      truth.kernel.push_back(v.get<double>());
    }
  }
  if (j.contains("components")) {
    const json& components = j["components"];
    if (!components.is_array()) fail(where, "components must be an array");
    for (size_t i = 0; i < components.size(); ++i) {
      const std::string at = where + ".components[" + std::to_string(i) + "]";
      if (!components[i].is_object()) throw std::runtime_error(at + " must be a JSON object");
      const auto kind = parseRemKind(text(components[i], "kind", at));
      if (!kind) fail(at, "kind must be regular, cos or sin");
      truth.components.push_back(
          {*kind, number(components[i], "base", at, 0), number(components[i], "theta", at, 0)});
    }
  }
  return truth;
}

}  // namespace rsalab
