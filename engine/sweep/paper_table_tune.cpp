// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/sweep/paper_table_tune.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "engine/tasks/long_horizon_task.h"
#include "engine/training/tune_run.h"

namespace rsalab {

std::vector<TunedModel> runPaperTune(const PaperTableOptions& o, const PaperTuneOptions& t) {
  if (t.out_dir.empty()) throw std::invalid_argument("paper-table --tune-out needs a folder");
  const auto& hs = o.horizons;
  if (std::find(hs.begin(), hs.end(), t.horizon) == hs.end())
    throw std::invalid_argument("paper-table: the tuning horizon " + std::to_string(t.horizon) +
                                " is not one of the table's --horizons");
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::vector<TunedModel> out;
  // One group per run config: the table's models share one, the pair another (its own size,
  // input length and budget).
  const std::vector<std::pair<std::string, std::vector<std::string>>> groups = {
      {"table", o.models}, {"informer", o.informer_models}};
  for (const auto& [name, models] : groups) {
    if (models.empty()) continue;
    const bool forecaster = name == "informer";
    LongHorizonTaskOptions task;
    task.series = o.series;
    task.input_length =
        forecaster ? informerSetting(o, t.horizon, o.informer_size).input_length : o.input_length;
    task.horizon = t.horizon;
    task.features = o.features;
    const auto data = makeLongHorizonTask(task).data;
    const int64_t N = data->train.size();
    TuneRequest q;
    q.base = paperRunConfig(o, models.front(), t.horizon, N, t.seed);
    q.models = models;
    q.trials = t.trials;
    q.workers = t.workers > 0 ? t.workers : cores;
    q.out_dir = t.out_dir + "/" + name;
    q.data = data;
    q.progress = t.progress;
    for (auto& m : runTune(q)) out.push_back(std::move(m));
  }
  return out;
}

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
bool has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

void requirePaperTuned(const PaperTableOptions& o) {
  if (o.tuned.empty()) return;
  if (o.univariate_horizon > 0 || !o.norms.empty() || !o.efficiency_fractions.empty())
    throw std::invalid_argument(
        "--tuned: a tuned table has the M rows only (give --univariate-horizon 0, no --norms and "
        "no --sample-efficiency)");
  for (int64_t h : o.horizons)
    for (const auto& m : o.models) requireTunedFor(o.tuned, {m}, paperRunConfig(o, m, h, 1, 0));
  for (int64_t h : o.informer_horizons)
    for (const auto& m : o.informer_models)
      requireTunedFor(o.tuned, {m}, paperRunConfig(o, m, h, 1, 0));
}

std::vector<PaperRun> besidePaperRuns(const PaperTableOptions& o, const std::string& text,
                                      const std::string& what) {
  const auto j = nlohmann::json::parse(text);
  const auto& s = j.at("settings");
  const auto differs = [&](const char* key, const nlohmann::json& mine) {
    if (s.at(key) != mine)
      throw std::invalid_argument("--beside " + what + ": its " + key + " is " + s.at(key).dump() +
                                  ", this table's " + mine.dump() +
                                  ": the shared defaults must be this table's own");
  };
  differs("series", o.series);
  differs("input_length", o.input_length);
  differs("d_model", o.d_model);
  differs("heads", o.heads);
  differs("layers", o.layers);
  differs("epochs", o.epochs);
  differs("patience", o.patience);
  differs("batch_size", o.batch_size);
  differs("learning_rate", o.learning_rate);
  if (!o.informer_models.empty() && s.contains("informer") &&
      s.at("informer").at("size") != o.informer_size)
    throw std::invalid_argument("--beside " + what + ": its pair is of another size");
  std::vector<PaperRun> out;
  for (const auto& r : paperRunsFromJson(text)) {
    if (r.features != "M" || r.train_fraction != 1.0 || r.norm != "global") continue;
    const bool table = has(o.models, r.model) && has(o.horizons, r.horizon) &&
                       r.seed < static_cast<uint64_t>(o.seeds);
    const bool pair = has(o.informer_models, r.model) && has(o.informer_horizons, r.horizon) &&
                      r.seed < static_cast<uint64_t>(o.informer_seeds);
    if (table || pair) out.push_back(r);
  }
  return out;
}

std::string sharedDefaultsJson(const PaperTableOptions& o) {
  using nlohmann::ordered_json;
  const auto verdicts = [&](const std::string& better, const std::string& than,
                            const std::vector<int64_t>& horizons) {
    ordered_json out = ordered_json::array();
    for (int64_t h : horizons) {
      const auto v = horizonVerdict(o.beside, better, than, h, "M");
      out.push_back(
          {{"horizon", h}, {"claim", v.claim}, {"verdict", verdictWord(v)}, {"detail", v.detail}});
    }
    return out;
  };
  ordered_json j;
  j["sources"] = o.beside_sources;
  j["rows"] = ordered_json::parse(paperRowsJson(o.beside, {}));
  if (has(o.models, "rsa") && has(o.models, "transformer"))
    j["verdicts"] = verdicts("rsa", "transformer", o.horizons);
  if (has(o.informer_models, "informer") && has(o.informer_models, "rsa-informer"))
    j["informer_verdicts"] = verdicts("rsa-informer", "informer", o.informer_horizons);
  return j.dump();
}

}  // namespace rsalab
