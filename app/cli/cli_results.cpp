// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_results.h"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/forecast/skill_interval.h"
#include "engine/core/io/enums.h"
#include "engine/core/registry/model_registry.h"
#include "engine/training/trainer.h"

namespace rsalab {
namespace {

// NaN and infinities as null (JSON has no NaN).
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json numbers(const std::vector<double>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

std::string signedSkill(double skill) {
  if (!std::isfinite(skill)) return "n/a";
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(3) << skill;
  return s.str();
}

}  // namespace

std::vector<HeadMatch> remMatches(Trainer& trainer) {
  const GroundTruth& truth = trainer.data().truth;
  if (truth.empty() || !modelInfo(trainer.config().model.model).has(HasRems)) return {};
  return matchRems(trainer.inspect(0), truth, trainer.config().task.length);
}

std::string remTruthLines(const std::vector<HeadMatch>& matches, const TaskData& data,
                          double test_loss) {
  std::ostringstream s;
  s << std::setprecision(6);
  const GroundTruth& truth = data.truth;
  if (truth.hasFloor() && std::isfinite(test_loss)) {
    if (truth.floor_is_bound)
      s << "Bayes floor ≥ " << truth.bayes_floor << " (a lower bound)  excess loss ≤ "
        << test_loss - truth.bayes_floor << "\n";
    else
      s << "Bayes floor " << truth.bayes_floor << " (exact)  excess loss "
        << test_loss - truth.bayes_floor << "\n";
  }
  if (matches.empty()) return s.str();
  s << std::setprecision(5) << "REM truth (" << truth.meaning << "):\n";
  for (const auto& m : matches) {
    const RemMatch& r = m.match;
    s << "  L" << m.layer << " H" << m.head << " " << remKindName(r.kind) << " learned ";
    if (r.kind == RemKind::Regular) {
      s << "λ=" << r.learned_base;
    } else {
      s << "γ=" << r.learned_base << " θ=" << r.learned_theta;
    }
    s << ": " << r.status() << "\n";
  }
  s << (remsRecovered(matches) ? "recovered" : "not recovered") << ": every REM head within |Δ| ≤ "
    << kRecoveryTolerance << " of the true component of its kind\n";
  return s.str();
}

std::string resultJson(const EvalMetrics& m, const Trainer& trainer,
                       const std::vector<HeadMatch>& matches) {
  const TaskData& data = trainer.data();
  nlohmann::ordered_json j;
  j["split"] = splitName(m.split);
  j["step"] = m.step;
  j["loss"] = number(m.loss);
  j["stop_reason"] = stopReasonName(trainer.stopReason());
  j["parameters"] = trainer.parameterCount();
  for (const auto& [k, v] : m.values) j[k] = number(v);
  j["train_size"] = data.train.size();
  j["train_size_requested"] = data.requested_train_size;
  if (data.length > 0) j["length"] = data.length;
  if (trainer.config().trainer.restore_best) j["best_step"] = trainer.bestStep();
  if (!data.references.empty()) {
    j["test_targets"] = data.test.size();
    nlohmann::ordered_json refs = nlohmann::ordered_json::array(), skill;
    for (const auto& r : data.references) {
      refs.push_back({{"name", r.name},
                      {"label", r.label},
                      {"validation_loss", number(r.validation_loss)},
                      {"test_loss", number(r.test_loss)},
                      {"test_mase", number(r.test_mase)},
                      {"test_errors", numbers(r.test_errors)}});
      skill[r.name] = number(skillVersus(m.loss, data.references, r.name));
    }
    j["references"] = refs;
    j["skill"] = skill;
    // The headline: skill against the best reference, the reference best on validation, with its
    // paired bootstrap interval and the Diebold–Mariano p-value
    // (engine/core/forecast/skill_interval.h).
    if (const auto* best = bestAnchor(data.references)) {
      j["best_anchor"] = best->name;
      j["best_anchor_label"] = best->label;
      j["skill_vs_best_anchor"] = number(skillVersusBest(m.loss, data.references));
      const auto ci = skillIntervalVersusBest(m.target_errors, data.references, data.horizon);
      const auto n = static_cast<int64_t>(m.target_errors.size());
      j["skill_vs_best_anchor_ci95"] = {number(ci.low), number(ci.high)};
      j["skill_vs_best_anchor_dm_p"] = number(ci.dm_p);
      // The word: DM at 5 %, or "too few test targets to decide" below N_min; null when the
      // errors give no test at all (a non-finite error).
      j["skill_vs_best_anchor_verdict"] = ci.valid() || (n > 0 && n < skillMinTargets(data.horizon))
                                              ? nlohmann::json(skillVerdictName(ci.verdict()))
                                              : nlohmann::json();
      j["skill_interval"] = {
          {"rule", "Diebold-Mariano (HLN, Bartlett HAC variance) at 5 %, two-sided"},
          {"min_targets", skillMinTargets(data.horizon)},
          {"dm_lags", dieboldMarianoLags(data.horizon, n)},
          {"method", "paired circular block bootstrap, 95 % percentile, shown beside the word"},
          {"block", ci.block},
          {"resamples", ci.resamples},
          {"dm_statistic_hln", number(ci.dm_statistic)}};
    }
    j["test_errors"] = numbers(m.target_errors);
  }
  const GroundTruth& truth = data.truth;
  if (truth.hasFloor()) {
    j["bayes_floor"] = truth.bayes_floor;
    j["excess_loss"] = number(m.loss - truth.bayes_floor);
    j["floor_note"] = truth.floor_note;
    j["floor_is_bound"] = truth.floor_is_bound;
  }
  if (!matches.empty()) {
    nlohmann::ordered_json rems;
    rems["meaning"] = truth.meaning;
    rems["recovered"] = remsRecovered(matches);
    rems["tolerance"] = kRecoveryTolerance;
    rems["heads"] = nlohmann::ordered_json::array();
    for (const auto& h : matches) {
      const RemMatch& r = h.match;
      nlohmann::ordered_json row{{"layer", h.layer},
                                 {"head", h.head},
                                 {"kind", remKindName(r.kind)},
                                 {"learned_base", r.learned_base},
                                 {"learned_theta", r.learned_theta},
                                 {"matched", r.matched}};
      if (r.matched) {
        row["true_base"] = r.truth.base;
        row["true_theta"] = r.truth.theta;
        row["delta_base"] = r.delta_base;
        row["delta_theta"] = r.delta_theta;
        row["rel_frobenius"] = number(r.rel_frobenius);
      }
      rems["heads"].push_back(row);
    }
    j["rem_truth"] = rems;
  }
  return j.dump(2) + "\n";
}

std::string referenceLines(const EvalMetrics& test, const TaskData& data) {
  if (data.references.empty()) return "";
  const double test_loss = test.loss;
  std::ostringstream s;
  s << "baselines on the same " << data.test.size() << " test targets (normalised units):\n";
  size_t width = 0;
  for (const auto& r : data.references) width = std::max(width, r.label.size());
  const auto* best = bestAnchor(data.references);
  for (const auto& r : data.references) {
    s << "  " << std::left << std::setw(static_cast<int>(width)) << r.label << "  val "
      << std::setprecision(4) << std::setw(8) << r.validation_loss << "  test " << std::setw(8)
      << r.test_loss << "  MASE " << std::setw(6) << r.test_mase << "  model skill "
      << signedSkill(skillVersus(test_loss, data.references, r.name))
      << (&r == best ? "   <- best reference (lowest validation loss)" : "") << "\n";
  }
  if (best) {
    const auto ci = skillIntervalVersusBest(test.target_errors, data.references, data.horizon);
    s << "skill vs the best reference, " << best->label << ": "
      << (ci.valid() ? ci.text() : signedSkill(skillVersusBest(test_loss, data.references)));
    if (ci.valid())
      s << " (the word: Diebold-Mariano at 5 %, from " << skillMinTargets(data.horizon)
        << " test targets; beside it the 95 % paired block bootstrap, block " << ci.block << ", "
        << ci.resamples << " resamples)";
  }
  s << (best ? "; " : "") << "vs persistence "
    << signedSkill(skillVersus(test_loss, data.references, baselineName(Baseline::Persistence)))
    << " (1 - MSE_model / MSE_baseline on test; > 0: the model is better)\n";
  return s.str();
}

std::string taskNotes(const TaskData& data) {
  std::string out;
  for (const auto& n : data.notes)
    out += (n.rfind("N capped", 0) == 0 ? "warning: " : "note: ") + n + "\n";
  return out;
}

}  // namespace rsalab
