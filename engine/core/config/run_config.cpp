// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/run_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <vector>

#include "engine/core/config/model_variant.h"
#include "engine/core/config/task_validation.h"
#include "engine/core/io/json_limits.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"

namespace rsalab {

using nlohmann::json;

namespace {

// Whether a JSON value has exactly the kind a field needs: nlohmann would otherwise truncate
// 3.7 into an integer field or wrap -1 into an unsigned one.
template <typename T>
bool hasKind(const json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean();
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return v.is_number_unsigned();
  } else if constexpr (std::is_integral_v<T>) {
    return v.is_number_integer() &&
           (!v.is_number_unsigned() || v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX));
  } else if constexpr (std::is_floating_point_v<T>) {
    return v.is_number();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string();
  } else {  // std::vector<E>
    if (!v.is_array()) return false;
    for (const auto& e : v) {
      if (!hasKind<typename T::value_type>(e)) return false;
    }
    return true;
  }
}

const char* kindName(const bool*) { return "a boolean"; }
const char* kindName(const uint64_t*) { return "an integer >= 0"; }
const char* kindName(const int64_t*) { return "an integer"; }
const char* kindName(const double*) { return "a number"; }
const char* kindName(const std::string*) { return "a string"; }
const char* kindName(const std::vector<double>*) { return "an array of numbers"; }
const char* kindName(const std::vector<int64_t>*) { return "an array of integers"; }

// A list of an option enum (TaskOptions::teacher_kinds).
template <typename T>
struct IsEnumVector : std::false_type {};
template <typename E>
struct IsEnumVector<std::vector<E>> : std::is_enum<E> {};

// `v` into `field`, with an error naming `where` ("model.d_model") for a wrong type or, for an
// enum, a name its table does not have.
template <typename T>
void readValue(const json& v, const std::string& where, T& field) {
  if constexpr (std::is_enum_v<T>) {
    if (!v.is_string()) {
      throw std::invalid_argument(where + " has the wrong type (" + v.type_name() +
                                  "): it must be a string: " + enumChoices<T>());
    }
    const auto value = parseEnum<T>(v.get<std::string>());
    if (!value) {
      throw std::invalid_argument(where + " = '" + v.get<std::string>() + "' is unknown: use " +
                                  enumChoices<T>());
    }
    field = *value;
  } else if constexpr (IsEnumVector<T>::value) {
    if (!v.is_array()) {
      throw std::invalid_argument(where + " has the wrong type (" + v.type_name() +
                                  "): it must be an array of strings");
    }
    T out;
    for (size_t i = 0; i < v.size(); ++i) {
      out.emplace_back();
      readValue(v[i], where + "[" + std::to_string(i) + "]", out.back());
    }
    field = std::move(out);
  } else {
    if (!hasKind<T>(v)) {
      throw std::invalid_argument(where + " has the wrong type (" + v.type_name() +
                                  "): it must be " + kindName(static_cast<const T*>(nullptr)));
    }
    try {
      field = v.get<T>();
    } catch (const json::exception&) {
      throw std::invalid_argument(where + " has the wrong type (" + v.type_name() + ")");
    }
  }
}

// `value` as JSON: enums (and lists of them) by their names, the rest as they are.
template <typename T>
json jsonValue(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return enumName(value);
  } else if constexpr (IsEnumVector<T>::value) {
    json out = json::array();
    for (const auto& e : value) out.push_back(enumName(e));
    return out;
  } else {
    return value;
  }
}

// Reads key into field if present, with a typed, named error on mismatch.
template <typename T>
void readField(const json& object, const char* section, const char* key, T& field) {
  auto it = object.find(key);
  if (it == object.end()) return;
  readValue(*it, std::string(section) + "." + key, field);
}

// One JSON object per option table: one key per row, named by the row.
template <typename S>
json sectionJson(const std::vector<OptionInfo<S>>& rows, const S& value) {
  json out = json::object();
  for (const auto& row : rows)
    std::visit([&](auto member) { out[row.name] = jsonValue(value.*member); }, row.member);
  return out;
}

// The keys of `j` present in `rows` into `value`; any other key is an error unless it is one of
// `nested` (read by the caller).
template <typename S>
void readSection(const json& j, const std::string& section, const std::vector<OptionInfo<S>>& rows,
                 S& value, std::initializer_list<const char*> nested = {}) {
  if (!j.is_object()) throw std::invalid_argument(section + " must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = findOption(rows, it.key()) != nullptr;
    for (const char* k : nested) known = known || it.key() == k;
    if (!known) throw std::invalid_argument("unknown key " + section + "." + it.key());
  }
  for (const auto& row : rows) {
    auto it = j.find(row.name);
    if (it == j.end()) continue;
    std::visit([&](auto member) { readValue(*it, section + "." + row.name, value.*member); },
               row.member);
  }
}

void rejectUnknown(const json& object, const char* section,
                   std::initializer_list<const char*> keys) {
  if (!object.is_object()) throw std::invalid_argument(std::string(section) + " must be an object");
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known = known || it.key() == k;
    if (!known) throw std::invalid_argument(std::string("unknown key ") + section + "." + it.key());
  }
}

json toJsonObject(const ModelOptions& value) {
  json out = sectionJson(modelOptionTable(), value);
  out["rem"] = sectionJson(remHeadTable(), value.rem);
  out["rem_init"] = sectionJson(remInitTable(), value.rem_init);
  return out;
}

void overlay(const json& j, ModelOptions& value) {
  readSection(j, "model", modelOptionTable(), value, {"rem", "rem_init"});
  if (j.contains("rem")) readSection(j["rem"], "model.rem", remHeadTable(), value.rem);
  if (j.contains("rem_init"))
    readSection(j["rem_init"], "model.rem_init", remInitTable(), value.rem_init);
}

}  // namespace

void validate(const RunConfig& c) {
  validate(c.model);
  validate(c.trainer);
  validate(c.task, c.train_size);
  // A bidirectional model on a next-step task sees, at position t, the input at t + 1 — the
  // value it must predict — and reports a loss no causal model can reach. (Recurrent models
  // ignore `causal`: they are causal whatever it says.)
  const auto* task = findTask(c.task.name);
  const auto* model = findModel(c.model.model);
  if (task && task->next_step && !withVariant(c.model).causal && model && !model->causalOnly()) {
    throw std::invalid_argument("task '" + c.task.name +
                                "' predicts the next value: a bidirectional model would see it; "
                                "use a causal model");
  }
  // A series-only model (the linear family) forecasts real values at every position; other
  // objectives have token inputs or pooled outputs (the factory refuses such an IO as well).
  if (task && model && model->has(SeriesOnly) && task->objective != Objective::Regression) {
    throw std::invalid_argument("model '" + c.model.model +
                                "' forecasts a real-valued series: task '" + c.task.name + "' is " +
                                objectiveName(task->objective) +
                                "; use a series task (seasonal, ar, csv or a bundled series)");
  }
  // A whole-window forecaster (Informer) reads the window's calendar marks and gives one output
  // position: the long-horizon protocol's task alone builds both.
  if (model && model->has(LongHorizonOnly) && !usesLongHorizonProtocol(c.task)) {
    throw std::invalid_argument("model '" + c.model.model +
                                "' forecasts a dated window's H steps at once: use the "
                                "long-horizon protocol (--series etth1 or etth2 --protocol "
                                "long-horizon, or rsalab-cli paper-table)");
  }
  if (model && model->has(LongHorizonOnly) && c.model.label_length > c.task.length &&
      c.task.length > 0) {
    throw std::invalid_argument("model.label_length " + std::to_string(c.model.label_length) +
                                " is longer than the input length " +
                                std::to_string(c.task.length) + ": at most the input's steps");
  }
  const auto& d = c.device;
  const bool cuda_index = d.size() > 5 && d.size() <= 8 && d.rfind("cuda:", 0) == 0 &&
                          d.find_first_not_of("0123456789", 5) == std::string::npos;
  if (!(d == "cpu" || d == "auto" || d == "cuda" || cuda_index)) {
    throw std::invalid_argument("device '" + d + "' is unknown: use cpu, cuda, cuda:N or auto");
  }
}

std::string toJson(const RunConfig& c) {
  json out;
  out["task"] = sectionJson(taskOptionTable(), c.task);
  out["model"] = toJsonObject(c.model);
  out["trainer"] = sectionJson(trainerHyperParameters(), c.trainer);
  out["train_size"] = c.train_size;
  out["device"] = c.device;
  return out.dump(2);
}

RunConfig mergeRunConfigJson(const RunConfig& base, const std::string& text) {
  const json j = parseJsonLimited(text, "config");
  RunConfig c = base;
  rejectUnknown(j, "config", {"task", "model", "trainer", "train_size", "device"});
  if (j.contains("task")) readSection(j["task"], "task", taskOptionTable(), c.task);
  if (j.contains("model")) overlay(j["model"], c.model);
  if (j.contains("trainer"))
    readSection(j["trainer"], "trainer", trainerHyperParameters(), c.trainer);
  readField(j, "config", "train_size", c.train_size);
  readField(j, "config", "device", c.device);
  validate(c);
  return c;
}

namespace {

// The numeric fields of TaskOptions, from its table (the axes a sweep can take).
std::vector<std::string> numericTaskKeys() {
  std::vector<std::string> keys;
  for (const auto& row : taskOptionTable())
    if (row.numeric()) keys.push_back(row.name);
  return keys;
}

}  // namespace

std::string taskParameterKey(const std::string& name) {
  std::string key = name.rfind("task.", 0) == 0 ? name.substr(5) : name;
  for (char& c : key)
    if (c == '.') c = '_';
  const auto keys = numericTaskKeys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
    throw std::invalid_argument("'" + name + "' is not a numeric task parameter: use one of " +
                                joined(keys) + " (mix_share may be written mix.share)");
  }
  return key;
}

RunConfig withTaskParameter(const RunConfig& config, const std::string& name, double value) {
  const std::string key = taskParameterKey(name);
  json j = json::parse(toJson(config));
  json& field = j["task"][key];
  if (field.is_number_integer()) {
    if (!std::isfinite(value) || value != std::floor(value) || std::abs(value) > 9e15) {
      throw std::invalid_argument("task." + key + " takes whole numbers, not " +
                                  json(value).dump());
    }
    field = static_cast<int64_t>(value);
  } else {
    if (!std::isfinite(value))
      throw std::invalid_argument("task." + key + " = " + json(value).dump() + " is not finite");
    field = value;
  }
  return runConfigFromJson(j.dump());
}

ModelOptions overlayModelJson(const ModelOptions& base, const std::string& text) {
  ModelOptions out = base;
  overlay(parseJsonLimited(text, "model overrides"), out);
  return out;
}

RunConfig runConfigFromJson(const std::string& text) {
  return mergeRunConfigJson(RunConfig{}, text);
}

RunConfig defaultRunConfig() { return RunConfig{}; }  // the members' initialisers

RunConfig defaultLaunchConfig() {
  RunConfig c = defaultRunConfig();
  c.task.name = "mix";
  c.task.mix_share = 0.5;  // the teacher's default kernel λ = 0.8 as the recurrent part
  c.task.length = 32;
  c.train_size = 256;
  // One layer: twice the steps per second of two, and the one-layer models part sooner (at
  // about 350 steps, measured: the Transformer finds the lookup, the RNN and RSA stay near 0.23).
  c.model.layers = 1;
  c.trainer.max_steps = 4000;
  c.trainer.eval_every = 50;
  c.trainer.patience = 8;  // 400 steps without a better validation loss: the run stops
  return c;
}

RunConfig realSeriesDefaults(const RunConfig& base) {
  RunConfig c = base;
  c.task.length = 0;               // auto: a T that fits the series (engine/tasks/csv_series.h)
  c.task.norm = NormMode::Window;  // trends and level shifts leave the train part's range
  // Chosen on the bundled series' VALIDATION parts only (scripts/choose-real-defaults.sh; the
  // figures are in docs/REAL_SERIES.md): the geometric mean over (series × network) of the best
  // validation MSE over the best reference's validation MSE. Stage 1 at 300 steps, patience 5: skip
  // path K = 24 with the window normalisation 1.466, K = 0 1.664, K = 24 global 1.682, K = 0
  // global 2.608. Stage 2 at K = 24, window: 300 steps / patience 5 1.466, 600 / 10 1.397,
  // 1000 / 10 1.387 (early stopping ends most runs well before 1000).
  c.trainer.max_steps = 1000;
  c.trainer.eval_every = 20;
  c.trainer.patience = 10;  // 200 steps without a better validation loss
  c.trainer.restore_best = true;
  // A linear skip path over the last 24 inputs (two years of monthly data) beside every network
  // (the linear forecasters dlinear and nlinear ignore it: they are that path alone).
  c.model.skip_lags = 24;
  return c;
}

bool usesLongHorizonProtocol(const TaskOptions& task) {
  if (!isRealSeriesTask(task.name) || task.protocol == SeriesProtocol::Split) return false;
  if (task.protocol == SeriesProtocol::LongHorizon) return true;
  const auto* row = findTask(task.name);  // auto: the bundled hourly ETT series
  return row && row->series_file && std::string(row->series_file).rfind("ett/", 0) == 0;
}

RunConfig longHorizonDefaults(const RunConfig& base) {
  RunConfig c = realSeriesDefaults(base);
  c.task.norm = NormMode::Global;  // the papers' setting; --norm window | revin read it otherwise
  c.task.anchors = AnchorMode::Fast;
  c.task.epochs = 3;
  c.model.skip_lags = 0;  // the models alone, as in the paper table
  c.trainer.learning_rate = 1e-3;
  c.trainer.batch_size = 32;
  c.trainer.patience = 2;  // epochs: one evaluation per epoch
  c.trainer.max_steps = kLongHorizonStepCap;
  c.trainer.restore_best = true;
  return c;
}

void applyLongHorizonBudget(RunConfig& c, int64_t input_length, int64_t train_windows) {
  const int64_t batch = std::max<int64_t>(1, c.trainer.batch_size);
  const int64_t per_epoch = std::max<int64_t>(1, (train_windows + batch - 1) / batch);
  c.trainer.eval_every = per_epoch;
  c.trainer.max_steps = std::min(c.trainer.max_steps, c.task.epochs * per_epoch);
  c.trainer.restore_best = true;
  c.train_size = train_windows;
  c.model.lookback = input_length;
}

RunConfig defaultSweepConfig() {
  RunConfig c = defaultRunConfig();
  c.task.length = 48;
  c.trainer.max_steps = 300;
  c.trainer.eval_every = 100;
  return c;
}

}  // namespace rsalab
