// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "app/cli/cli_command.h"
#include "app/cli/cli_progress.h"
#include "engine/core/forecast/skill_interval.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/marked_block.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/core/verdicts/real_series_report.h"
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

std::vector<std::string> seriesList(const std::vector<std::string>& asked) {
  std::vector<std::string> out;
  for (const auto& name : asked) {
    if (name == "all") {
      // The classic series; the paper table's (ETTh1, ETTh2) have their own protocol and command
      // (rsalab-cli paper-table) and are named to be included.
      for (const auto& n : bundledSeriesNames()) {
        bool paper = false;
        for (const auto& p : publishedResults()) paper = paper || n == p.series;
        if (!paper) out.push_back(n);
      }
      continue;
    }
    const auto* row = findTask(name);
    if (!row || !row->series_file) {
      const std::string all = joined(bundledSeriesNames());
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
  if (!command.norm.empty()) {
    const auto norm = parseNormMode(command.norm);
    if (!norm) {
      throw std::invalid_argument("--norm '" + command.norm + "' is unknown: use " +
                                  enumChoices<NormMode>());
    }
    c.task.norm = *norm;
  }
  return c;
}

int runReport(const ReportCommand& command, std::ostream& out) {
  const auto series = seriesList(command.series);
  const RunConfig base = reportConfig(command);
  const bool test = !command.validation_only;
  bool failed = false;
  std::ostringstream notes;
  nlohmann::ordered_json json_series = nlohmann::ordered_json::array();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  // The fields every row with an interval carries (the renderer's SkillInterval::text).
  auto withInterval = [&](nlohmann::ordered_json& row, const SkillInterval& ci) {
    row["skill_vs_best_anchor"] = num(ci.skill);
    row["ci95"] = {num(ci.low), num(ci.high)};
    row["dm_p"] = num(ci.dm_p);
    row["verdict"] = skillVerdictName(ci.verdict());
  };
  for (const auto& name : series) {
    SweepOptions options;
    options.base = base;
    options.base.task.name = name;
    // Default: every sequence model that trains on a series, the networks and the linear
    // forecasters (dlinear, nlinear) that the field reports beside them.
    if (command.models.empty()) {
      options.models.clear();
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
      progress.update(done, row.model + (test ? " test " + fixedNumber(row.test_loss, 4) : ""));
    });
    progress.finish("");
    const auto* best = bestAnchor(data.references);
    const int64_t season = std::max<int64_t>(1, data.season.period);
    nlohmann::ordered_json js{{"series", name},
                              {"length", data.length},
                              {"train_windows", data.train.size()},
                              {"test_targets", data.test.size()},
                              {"season", season},
                              {"best_anchor", best ? best->label : ""},
                              {"best_anchor_validation", num(best ? best->validation_loss : NAN)},
                              {"models", nlohmann::ordered_json::array()}};
    auto ratio = [&](double v) { return best ? v / best->validation_loss : NAN; };
    auto interval = [&](const std::vector<double>& errors) {
      return skillIntervalVersusBest(errors, data.references, data.horizon);
    };
    auto persistence = [&](double loss) {
      return skillVersus(loss, data.references, baselineName(Baseline::Persistence));
    };
    // The model chosen like the best reference: the lowest validation MSE (a seed mean or an
    // ensemble).
    nlohmann::ordered_json chosen;
    double chosen_validation = INFINITY;
    auto choose = [&](const std::string& label, double v, const SkillInterval& ci) {
      if (!std::isfinite(v) || v >= chosen_validation) return;
      chosen_validation = v;
      chosen = {{"model", label}, {"validation", v}};
      withInterval(chosen, ci);
    };
    auto ensembleRow = [&](const std::string& label, const std::vector<const SweepRow*>& runs) {
      std::vector<const std::vector<float>*> validation, tested;
      for (const auto* r : runs) {
        validation.push_back(&r->validation_forecasts);
        tested.push_back(&r->test_forecasts);
      }
      const double v = ensembleScore(validation, data.validation.y, {}).mse;
      const auto t = ensembleScore(tested, data.test.y, data.mase_scale);
      const auto ci = interval(t.errors);
      choose(label, v, ci);
      nlohmann::ordered_json row{{"model", label}, {"ensemble", true}, {"validation", num(v)}};
      if (test) {
        row["test"] = num(t.mse);
        row["test_mase"] = num(t.mase);
        withInterval(row, ci);
        row["skill_vs_persistence"] = num(persistence(t.mse));
      } else {
        row["validation_ratio"] = num(ratio(v));
      }
      js["models"].push_back(row);
      return ci;
    };
    std::vector<const SweepRow*> all_runs;
    for (const auto& model : options.models) {
      std::vector<double> validation;
      int verdicts[4] = {0, 0, 0, 0};  // beats, ties, loses, too few (SkillVerdict's order)
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
        validation.push_back(r.best_validation);
        const auto ci = interval(r.test_errors);
        verdicts[static_cast<int>(ci.verdict())] += 1;
        nlohmann::ordered_json run{
            {"seed", r.seed}, {"validation", num(r.best_validation)}, {"steps", r.steps}};
        if (test) {
          run["test"] = num(r.test_loss);
          run["test_mase"] = num(metric(r, "mase"));
          withInterval(run, ci);
          run["skill_vs_best_anchor"] = num(skillVersusBest(r.test_loss, data.references));
          run["skill_vs_persistence"] = num(persistence(r.test_loss));
        }
        runs_json.push_back(run);
      }
      const auto v = stats(validation);
      choose(model, v.mean,
             runs.size() == 1 ? interval(runs.front()->test_errors) : SkillInterval{});
      const size_t at = js["models"].size();
      nlohmann::ordered_json row{
          {"model", model}, {"validation", num(v.mean)}, {"runs", runs_json}};
      if (test) {
        row["beats"] = verdicts[0];
        row["ties"] = verdicts[1];
        row["loses"] = verdicts[2];
        row["too_few"] = verdicts[3];
      } else {
        row["validation_ratio"] = num(ratio(v.mean));
      }
      js["models"].push_back(row);
      all_runs.insert(all_runs.end(), runs.begin(), runs.end());
      // The model's word on this series: its seed ensemble's, or its single run's.
      SkillInterval word;
      if (runs.size() > 1)
        word = ensembleRow(model + ", mean of its " + std::to_string(runs.size()) + " seeds", runs);
      else if (runs.size() == 1)
        word = interval(runs.front()->test_errors);
      if (test && !runs.empty()) js["models"][at]["word"] = skillVerdictName(word.verdict());
    }
    if (options.models.size() > 1 && !all_runs.empty())
      ensembleRow("all models, mean of " + std::to_string(all_runs.size()) + " runs", all_runs);
    nlohmann::ordered_json refs = nlohmann::ordered_json::array();
    for (const auto& r : data.references) {
      nlohmann::ordered_json ref{{"name", r.name},
                                 {"label", r.label},
                                 {"best", &r == best},
                                 {"validation", num(r.validation_loss)}};
      if (test) {
        ref["test"] = num(r.test_loss);
        ref["test_mase"] = num(r.test_mase);
        withInterval(ref, interval(r.test_errors));
        ref["skill_vs_persistence"] = num(persistence(r.test_loss));
      } else {
        ref["validation_ratio"] = num(ratio(r.validation_loss));
      }
      refs.push_back(ref);
    }
    js["references"] = refs;
    if (!chosen.is_null() && best && test) js["chosen_on_validation"] = chosen;
    json_series.push_back(js);
  }
  const nlohmann::ordered_json j{{"settings",
                                  {{"skip_lags", base.model.skip_lags},
                                   {"max_steps", base.trainer.max_steps},
                                   {"patience", base.trainer.patience},
                                   {"eval_every", base.trainer.eval_every},
                                   {"norm", normModeName(base.task.norm)},
                                   {"seeds", command.seeds},
                                   {"validation_only", command.validation_only}}},
                                 {"series", json_series}};
  const std::string json_text = j.dump(2) + "\n";
  // The one renderer (engine/core/verdicts/real_series_report.h): what is printed is what the docs
  // hold.
  const std::string text =
      realSeriesReportMarkdown(json_text) + (notes.str().empty() ? "" : "\nNotes:\n" + notes.str());
  out << text;
  if (!command.markdown.empty()) writeFileAtomically(command.markdown, text);
  if (!command.json.empty()) writeFileAtomically(command.json, json_text);
  if (!command.docs.empty()) {
    const std::string doc = readTextFile(command.docs, size_t{16} << 20);
    writeFileAtomically(command.docs,
                        replaceMarkedBlock(doc, realSeriesReportBlock(json_text), kReportBlockBegin,
                                           kReportBlockEnd, command.docs));
    std::cerr << "report: wrote its block into " << command.docs << "\n";
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
  report->add_option("--docs", report_command.docs,
                     "replace the generated block of this Markdown file (docs/REAL_SERIES.md)");
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
