// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/sweep_comparison.h"

#include <QSet>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/core/registry/model_registry.h"

namespace rsalab {

namespace {

void flatten(const nlohmann::json& j, const std::string& prefix, QMap<QString, QString>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  out[QString::fromStdString(prefix)] =
      QString::fromStdString(j.is_string() ? j.get<std::string>() : j.dump());
}

// Whether a config key means anything for `model`, from its registry row (unknown models: all).
bool appliesTo(const QString& key, const QString& model) {
  const ModelCard* info = findModel(model.toStdString());
  if (!info) return true;
  const bool attention = info->family == ModelFamily::Attention ||
                         info->family == ModelFamily::FixedPoint ||
                         info->family == ModelFamily::Seq2Seq;
  const bool linear = info->family == ModelFamily::Linear;  // a map of the window: no width
  if (key == "model.lookback") return linear;
  if (key == "model.skip_lags" || key == "model.d_model" || key == "model.layers") return !linear;
  // REM settings: RSA, and the encoder-decoder whose encoder attention may be RSA.
  if (key.startsWith("model.rem") || key == "model.dilations")
    return info->has(HasRems) || info->family == ModelFamily::Seq2Seq;
  if (key == "model.heads") return attention || info->family == ModelFamily::StateSpace;
  if (key == "model.ff_mult") return attention;
  if (key == "model.starsaber_gated") return info->family == ModelFamily::FixedPoint;
  if (key == "model.linear_cumulative") return info->attention == attentionKind("linear");
  if (key.startsWith("model.retnet_")) return info->attention == attentionKind("retention");
  if (key == "model.encoder_attention" || key == "model.decoder_layers")
    return info->family == ModelFamily::Seq2Seq;
  if (key == "model.causal") return attention;
  return true;
}

}  // namespace

SampleEfficiencyPoint sampleEfficiencyPoint(const SweepRow& row) {
  SampleEfficiencyPoint p;
  p.model = QString::fromStdString(row.model);
  p.size = static_cast<double>(row.size);
  p.seed = row.seed;
  p.test_loss = row.test_loss;
  p.run_id = row.reference ? -1 : static_cast<int>(row.run);  // a reference opens no run
  p.reference = row.reference;
  p.bayes_floor = row.bayes_floor;
  return p;
}

QMap<QString, QString> flatConfig(const RunConfig& config) {
  QMap<QString, QString> all, out;
  flatten(nlohmann::json::parse(toJson(config)), "", all);
  const QString model = QString::fromStdString(config.model.model);
  for (auto it = all.begin(); it != all.end(); ++it) {
    if (appliesTo(it.key(), model)) out[it.key()] = it.value();
  }
  out.remove("train_size");    // varies within a sweep: the N columns
  out.remove("trainer.seed");  // varies within a sweep: the seeds
  return out;
}

QVector<ComparisonEntry> comparisonEntries(const std::vector<SweepRow>& rows,
                                           const RunConfig& base) {
  QVector<ComparisonEntry> entries;
  std::map<std::string, int> index;
  std::map<std::string, std::map<int64_t, std::pair<double, int>>> losses;  // model → N → (sum, n)
  std::map<std::string, std::pair<double, int>> speed;  // model → (sum steps/s, n)
  for (const auto& r : rows) {
    if (!r.ok()) continue;
    auto it = index.find(r.model);
    if (it == index.end()) {
      it = index.emplace(r.model, static_cast<int>(entries.size())).first;
      ComparisonEntry e;
      e.name = QString::fromStdString(r.model);
      RunConfig c = base;
      c.model.model = r.model;
      e.config = flatConfig(c);
      entries.push_back(e);
    }
    ComparisonEntry& e = entries[it->second];
    e.parameters = r.parameters;
    e.flops_per_token = r.flops_per_token;
    e.wall_seconds += r.seconds;
    e.runs += 1;
    if (r.seconds > 0) {
      speed[r.model].first += static_cast<double>(r.steps) / r.seconds;
      speed[r.model].second += 1;
    }
    if (std::isfinite(r.test_loss)) {
      auto& slot = losses[r.model][r.size];
      slot.first += r.test_loss;
      slot.second += 1;
    }
  }
  for (auto& e : entries) {
    const auto model = e.name.toStdString();
    const auto& s = speed[model];
    e.steps_per_second = s.second > 0 ? s.first / s.second : 0;
    for (const auto& [n, slot] : losses[model]) e.test_loss[n] = slot.first / slot.second;
  }
  return entries;
}

}  // namespace rsalab
