// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/cli_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "cli/cli_command.h"
#include "cli/cli_progress.h"
#include "core/forecast/skill_interval.h"
#include "core/io/atomic_file.h"
#include "core/registry/model_registry.h"
#include "core/registry/task_registry.h"
#include "engine/sweep/sweep.h"

namespace rsalab {
namespace {

struct Stats {
  double mean = NAN, sd = NAN, low = NAN, high = NAN;
  int count = 0;
};

Stats stats(const std::vector<double>& v) {
  Stats s;
  std::vector<double> ok;
  for (double x : v)
    if (std::isfinite(x)) ok.push_back(x);
  s.count = static_cast<int>(ok.size());
  if (ok.empty()) return s;
  double sum = 0;
  for (double x : ok) sum += x;
  s.mean = sum / static_cast<double>(ok.size());
  double ss = 0;
  for (double x : ok) ss += (x - s.mean) * (x - s.mean);
  s.sd = ok.size() > 1 ? std::sqrt(ss / static_cast<double>(ok.size() - 1)) : 0.0;
  s.low = *std::min_element(ok.begin(), ok.end());
  s.high = *std::max_element(ok.begin(), ok.end());
  return s;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string skill(const Stats& s) {
  if (s.count == 0) return "n/a";
  std::ostringstream o;
  o << std::showpos << std::fixed << std::setprecision(2) << s.mean << std::noshowpos;
  if (s.count > 1) o << " [" << fixed(s.low, 2) << ", " << fixed(s.high, 2) << "]";
  return o.str();
}

// The element-wise mean of several runs' forecasts scored against the targets `y` (a split's y,
// flattened the same way): an ensemble of the runs, scored per target (the mean e² over the
// target's entries) and by MASE (|e| / the column's scale; outputs are h·C + c). Empty errors
// without forecasts.
struct EnsembleScore {
  std::vector<double> errors;
  double mse = NAN, mase = NAN;
};

EnsembleScore ensembleScore(const std::vector<const std::vector<float>*>& forecasts,
                            const torch::Tensor& y, const std::vector<double>& mase_scale) {
  EnsembleScore out;
  const auto target = y.to(torch::kFloat32).contiguous();
  const auto n = static_cast<size_t>(target.numel());
  const auto targets = static_cast<size_t>(target.size(0));
  if (forecasts.empty() || targets == 0) return out;
  for (const auto* f : forecasts)
    if (f->size() != n) return out;
  const size_t per = n / targets, C = mase_scale.size();
  const float* t = target.data_ptr<float>();
  double total = 0, scaled = 0;
  for (size_t k = 0; k < targets; ++k) {
    double sum = 0;
    for (size_t i = k * per; i < (k + 1) * per; ++i) {
      double mean = 0;
      for (const auto* f : forecasts) mean += (*f)[i];
      const double e = mean / static_cast<double>(forecasts.size()) - t[i];
      sum += e * e;
      if (C > 0) scaled += std::fabs(e) / mase_scale[(i - k * per) % C];
    }
    out.errors.push_back(sum / static_cast<double>(per));
    total += sum;
  }
  out.mse = total / static_cast<double>(n);
  if (C > 0 && per % C == 0) out.mase = scaled / static_cast<double>(n);
  return out;
}

double metric(const SweepRow& r, const char* key) {
  const auto it = r.test_metrics.find(key);
  return it == r.test_metrics.end() ? NAN : it->second;
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::vector<std::string> seriesList(const std::vector<std::string>& asked) {
  std::vector<std::string> out;
  for (const auto& name : asked) {
    if (name == "all") {
      for (const auto& n : bundledSeriesNames()) out.push_back(n);
      continue;
    }
    const auto* row = findTask(name);
    if (!row || !row->series_file) {
      std::string all;
      for (const auto& n : bundledSeriesNames()) all += (all.empty() ? "" : ", ") + n;
      throw std::invalid_argument("'" + name + "' is not a bundled series: use all, " + all);
    }
    out.push_back(name);
  }
  return out;
}

}  // namespace

RunConfig reportConfig(const ReportCommand& command) {
  RunConfig c = realSeriesDefaults(defaultRunConfig());
  if (command.steps > 0) c.trainer.max_steps = command.steps;
  if (command.skip_lags >= 0) c.model.skip_lags = command.skip_lags;
  if (command.patience >= 0) c.trainer.patience = command.patience;
  if (!command.norm.empty()) c.task.norm = command.norm;
  return c;
}

int runReport(const ReportCommand& command, std::ostream& out) {
  const auto series = seriesList(command.series);
  const RunConfig base = reportConfig(command);
  const bool test = !command.validation_only;
  std::ostringstream table;
  if (test) {
    table << "| series | T | N | model | validation MSE | test MSE (mean ± sd) | test MASE | "
             "skill vs best anchor: mean [seeds' range] | beats / ties / loses | skill vs "
             "persistence |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n";
  } else {
    table << "| series | T | N | model | validation MSE (mean over seeds) | ÷ best anchor's "
             "validation MSE |\n|---|---|---|---|---|---|\n";
  }
  // model → per series: the seed ensemble's word (test), the validation ratio (both)
  std::map<std::string, std::map<std::string, int>> words;
  std::map<std::string, std::vector<double>> ratios;
  std::vector<std::string> anchor_wins, model_wins, ties;  // the model chosen on validation
  bool failed = false;
  std::ostringstream notes;
  nlohmann::ordered_json json_series = nlohmann::ordered_json::array();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  for (const auto& name : series) {
    SweepOptions options;
    options.base = base;
    options.base.task.name = name;
    // Default: every sequence model that trains on a series, the networks and the linear
    // forecasters (dlinear, nlinear) that the field reports beside them.
    options.models.clear();
    if (command.models.empty()) {
      for (const auto& m : modelNames(/*sequence_only=*/true))
        if (modelFitsObjective(modelInfo(m), Objective::Regression)) options.models.push_back(m);
    } else {
      options.models = command.models;
    }
    options.sizes = {options.base.train_size};
    options.seeds = command.seeds;
    options.parallel = command.parallel;
    options.keep_forecasts = true;  // the seed ensembles below
    // The task once, for what the table says about it (T, N, the references and anchors).
    const TaskData data =
        makeTask(options.base.task, options.base.train_size, options.base.trainer.seed);
    for (const auto& n : data.notes) notes << "- " << name << ": " << n << "\n";
    const auto total = static_cast<int64_t>(options.models.size()) * options.seeds;
    std::cerr << "report: " << name << " (" << data.summary << ")\n";
    ProgressLine progress("report " + name, total);
    const auto result = runSweep(options, [&](int64_t done, int64_t, const SweepRow& row) {
      progress.update(done, row.model + (test ? " test " + fixed(row.test_loss, 4) : ""));
    });
    progress.finish("");
    const auto* best = bestAnchor(data.references);
    const int64_t season = std::max<int64_t>(1, data.season.period);
    const std::string lead = "| " + name + " | " + std::to_string(data.length) + " | " +
                             std::to_string(data.train.size()) + " | ";
    nlohmann::ordered_json js{{"series", name},
                              {"length", data.length},
                              {"train_windows", data.train.size()},
                              {"test_targets", data.test.size()},
                              {"season", season},
                              {"best_anchor", best ? best->label : ""},
                              {"best_anchor_validation", num(best ? best->validation_loss : NAN)},
                              {"models", nlohmann::ordered_json::array()}};
    auto ratio = [&](double v) { return best ? v / best->validation_loss : NAN; };
    // The model chosen like an anchor: the lowest validation MSE (a seed mean or an ensemble).
    std::string chosen;
    double chosen_validation = INFINITY;
    SkillInterval chosen_ci;
    auto interval = [&](const std::vector<double>& errors) {
      return skillIntervalVersusBest(errors, data.references, data.horizon, season);
    };
    auto choose = [&](const std::string& label, double v, const SkillInterval& ci) {
      if (std::isfinite(v) && v < chosen_validation)
        chosen = label, chosen_validation = v, chosen_ci = ci;
    };
    auto ensembleRow = [&](const std::string& label, const std::vector<const SweepRow*>& runs,
                           const std::string& model) {
      std::vector<const std::vector<float>*> validation, tested;
      for (const auto* r : runs) {
        validation.push_back(&r->validation_forecasts);
        tested.push_back(&r->test_forecasts);
      }
      const double v = ensembleScore(validation, data.validation.y, {}).mse;
      const auto t = ensembleScore(tested, data.test.y, data.mase_scale);
      const auto ci = interval(t.errors);
      choose(label, v, ci);
      if (!model.empty()) words[model][skillVerdictName(ci.verdict())] += 1;
      nlohmann::ordered_json row{{"model", label}, {"ensemble", true}, {"validation", num(v)}};
      if (test) {
        row["test"] = num(t.mse);
        row["test_mase"] = num(t.mase);
        row["skill_vs_best_anchor"] = num(ci.skill);
        row["ci95"] = {num(ci.low), num(ci.high)};
        row["dm_p"] = num(ci.dm_p);
        row["verdict"] = skillVerdictName(ci.verdict());
        table << lead << label << " | " << fixed(v, 4) << " | " << fixed(t.mse, 4) << " | "
              << fixed(t.mase, 3) << " | " << ci.text(2) << " | " << skillVerdictName(ci.verdict())
              << " | "
              << skill(stats(
                     {skillVersus(t.mse, data.references, baselineName(Baseline::Persistence))}))
              << " |\n";
      } else {
        row["validation_ratio"] = num(ratio(v));
        table << lead << label << " | " << fixed(v, 4) << " | " << fixed(ratio(v), 3) << " |\n";
      }
      js["models"].push_back(row);
    };
    std::vector<const SweepRow*> all_runs;
    for (const auto& model : options.models) {
      std::vector<double> loss, validation, mase, vs_best, vs_persistence;
      int verdicts[3] = {0, 0, 0};
      nlohmann::ordered_json runs_json = nlohmann::ordered_json::array();
      std::vector<const SweepRow*> runs;
      for (const auto& r : result.rows) {
        if (r.reference || r.model != model) continue;
        if (!r.error.empty()) {
          failed = true;
          std::cerr << "error: " << name << " " << model << " seed " << r.seed << ": " << r.error
                    << "\n";
          continue;
        }
        runs.push_back(&r);
        loss.push_back(r.test_loss);
        validation.push_back(r.best_validation);
        mase.push_back(metric(r, "mase"));
        const auto ci = interval(r.test_errors);
        vs_best.push_back(skillVersusBest(r.test_loss, data.references));
        vs_persistence.push_back(
            skillVersus(r.test_loss, data.references, baselineName(Baseline::Persistence)));
        verdicts[static_cast<int>(ci.verdict())] += 1;
        nlohmann::ordered_json run{
            {"seed", r.seed}, {"validation", num(r.best_validation)}, {"steps", r.steps}};
        if (test) {
          run["test"] = num(r.test_loss);
          run["test_mase"] = num(metric(r, "mase"));
          run["skill_vs_best_anchor"] = num(ci.skill);
          run["ci95"] = {num(ci.low), num(ci.high)};
          run["dm_p"] = num(ci.dm_p);
          run["verdict"] = skillVerdictName(ci.verdict());
        }
        runs_json.push_back(run);
      }
      const auto l = stats(loss), v = stats(validation), b = stats(vs_best),
                 p = stats(vs_persistence);
      choose(model, v.mean,
             runs.size() == 1 ? interval(runs.front()->test_errors) : SkillInterval{});
      ratios[model].push_back(ratio(v.mean));
      nlohmann::ordered_json row{
          {"model", model}, {"validation", num(v.mean)}, {"runs", runs_json}};
      if (test) {
        row["test_mean"] = num(l.mean);
        row["test_sd"] = num(l.sd);
        row["test_mase_mean"] = num(stats(mase).mean);
        row["beats"] = verdicts[0];
        row["ties"] = verdicts[1];
        row["loses"] = verdicts[2];
        table << lead << model << " | " << fixed(v.mean, 4) << " | " << fixed(l.mean, 4) << " ± "
              << fixed(l.sd, 4) << " | " << fixed(stats(mase).mean, 3) << " | " << skill(b) << " | "
              << verdicts[0] << " / " << verdicts[1] << " / " << verdicts[2] << " | " << skill(p)
              << " |\n";
      } else {
        row["validation_ratio"] = num(ratio(v.mean));
        table << lead << model << " | " << fixed(v.mean, 4) << " | " << fixed(ratio(v.mean), 3)
              << " |\n";
      }
      js["models"].push_back(row);
      all_runs.insert(all_runs.end(), runs.begin(), runs.end());
      if (runs.size() > 1)
        ensembleRow(model + ", mean of its " + std::to_string(runs.size()) + " seeds", runs, model);
      else if (runs.size() == 1)
        words[model][skillVerdictName(interval(runs.front()->test_errors).verdict())] += 1;
    }
    if (options.models.size() > 1 && !all_runs.empty())
      ensembleRow("all models, mean of " + std::to_string(all_runs.size()) + " runs", all_runs, "");
    nlohmann::ordered_json refs = nlohmann::ordered_json::array();
    for (const auto& r : data.references) {
      const std::string mark = &r == best ? "**" : "*";
      nlohmann::ordered_json ref{
          {"name", r.name}, {"label", r.label}, {"validation", num(r.validation_loss)}};
      if (test) {
        const auto ci = interval(r.test_errors);
        const double vp =
            skillVersus(r.test_loss, data.references, baselineName(Baseline::Persistence));
        ref["test"] = num(r.test_loss);
        ref["test_mase"] = num(r.test_mase);
        ref["skill_vs_best_anchor"] = num(ci.skill);
        ref["ci95"] = {num(ci.low), num(ci.high)};
        table << lead << mark << r.label << mark << " | " << fixed(r.validation_loss, 4) << " | "
              << fixed(r.test_loss, 4) << " | " << fixed(r.test_mase, 3) << " | "
              << (&r == best ? "0 (best anchor)" : ci.text(2)) << " | "
              << (&r == best ? "" : skillVerdictName(ci.verdict())) << " | "
              << (r.name == baselineName(Baseline::Persistence) ? "0" : skill(stats({vp})))
              << " |\n";
      } else {
        ref["validation_ratio"] = num(ratio(r.validation_loss));
        table << lead << mark << r.label << mark << " | " << fixed(r.validation_loss, 4) << " | "
              << fixed(ratio(r.validation_loss), 3) << " |\n";
      }
      refs.push_back(ref);
    }
    js["references"] = refs;
    if (!chosen.empty() && best) {
      js["chosen_on_validation"] = chosen;
      if (test) {
        const std::string line =
            name + " (" + chosen + " " + chosen_ci.text(2) + " vs " + best->label + ")";
        (chosen_ci.verdict() == SkillVerdict::Beats   ? model_wins
         : chosen_ci.verdict() == SkillVerdict::Loses ? anchor_wins
                                                      : ties)
            .push_back(line);
      }
    }
    json_series.push_back(js);
  }
  std::ostringstream summary;
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s.empty() ? std::string("none") : s;
  };
  if (test) {
    summary << "\nThe best anchor of a series is the reference (statistical method or baseline) "
               "with the lowest validation loss, in bold; skill = 1 − MSE_model / MSE_best anchor "
               "on test (> 0: the model is better), with its 95 % paired moving-block bootstrap "
               "interval (blocks of max(horizon, season) targets, "
            << kSkillResamples
            << " resamples) and the Diebold–Mariano p-value (Harvey–Leybourne–Newbold). A "
               "model beats the anchor only when the interval lies above 0, loses when it lies "
               "below, and otherwise ties. \"beats / ties / loses\" counts a model's seeds, each "
               "its own run and interval. A \"mean of\" row is an ensemble: the runs' forecasts "
               "averaged, then scored, with its own interval. MASE: MAE over the train part's "
               "in-sample seasonal-naive MAE.\n"
            << "\nSeed ensembles (or the single run) against the best anchor, by their intervals "
               "(series beaten / tied / lost):\n";
    for (const auto& [model, w] : words) {
      auto at = [&](const char* k) {
        const auto it = w.find(k);
        return it == w.end() ? 0 : it->second;
      };
      summary << "- " << model << ": " << at("beats") << " / " << at("ties") << " / " << at("loses")
              << "\n";
    }
    summary << "\nWith the model chosen on validation (lowest mean validation MSE over the seeds, "
               "or an ensemble's):\n"
            << "- it beats the best anchor on " << model_wins.size() << ": " << list(model_wins)
            << "\n"
            << "- it ties on " << ties.size() << ": " << list(ties) << "\n"
            << "- it loses on " << anchor_wins.size() << ": " << list(anchor_wins) << "\n";
  } else {
    summary << "\nValidation only (no test number is computed into this table): each model's "
               "best validation MSE (mean over seeds) over the best anchor's validation MSE, "
               "median over the series:\n";
    std::vector<double> all;
    for (const auto& [model, r] : ratios) {
      summary << "- " << model << ": " << fixed(median(r), 3) << "\n";
      all.insert(all.end(), r.begin(), r.end());
    }
    summary << "- every model and series: " << fixed(median(all), 3) << "\n";
  }
  const std::string text =
      table.str() + summary.str() + (notes.str().empty() ? "" : "\nNotes:\n" + notes.str());
  out << text;
  if (!command.markdown.empty()) writeFileAtomically(command.markdown, text);
  if (!command.json.empty()) {
    nlohmann::ordered_json j{{"settings",
                              {{"skip_lags", base.model.skip_lags},
                               {"max_steps", base.trainer.max_steps},
                               {"patience", base.trainer.patience},
                               {"eval_every", base.trainer.eval_every},
                               {"norm", base.task.norm},
                               {"seeds", command.seeds},
                               {"validation_only", command.validation_only}}},
                             {"series", json_series}};
    writeFileAtomically(command.json, j.dump(2) + "\n");
  }
  return failed ? 1 : 0;
}

CliCommand addReportCommand(CLI::App& app) {
  auto command = std::make_shared<ReportCommand>();
  ReportCommand& report_command = *command;
  auto* report = app.add_subcommand(
      "report", "Real-series report: the default models on the bundled series, with baselines");
  report->add_option("--series", report_command.series, "bundled series, comma-separated, or all")
      ->delimiter(',')
      ->capture_default_str();
  report
      ->add_option(
          "--models", report_command.models,
          "comma-separated models (default: every sequence model, dlinear and nlinear included)")
      ->delimiter(',');
  report->add_option("--seeds", report_command.seeds, "seeds per (series, model)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  report->add_option("--steps", report_command.steps,
                     "step budget per run (default: the real-series defaults')");
  report->add_option("--parallel", report_command.parallel, "concurrent runs (0 = one per core)")
      ->capture_default_str();
  report->add_option("--markdown", report_command.markdown, "also write the table to this file");
  report->add_option("--json", report_command.json, "also write every number as JSON here");
  report->add_option("--skip-lags", report_command.skip_lags,
                     "override the defaults' skip path K (0: none)");
  report->add_option("--patience", report_command.patience,
                     "override the defaults' patience (evaluations without improvement)");
  report->add_option("--norm", report_command.norm, "override the defaults' normalisation");
  report->add_flag("--validation-only", report_command.validation_only,
                   "print validation losses only (for choosing defaults; no test column)");

  return {report, [command] { return runReport(*command, std::cout); }};
}

}  // namespace rsalab
