// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/cli_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cli/cli_command.h"
#include "cli/cli_progress.h"
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

// The MSE of the element-wise mean of several runs' forecasts against the targets `y` (a split's
// y, flattened the same way): an ensemble of the runs. NaN without forecasts.
double ensembleLoss(const std::vector<const std::vector<float>*>& forecasts,
                    const torch::Tensor& y) {
  const auto target = y.to(torch::kFloat32).contiguous();
  const auto n = static_cast<size_t>(target.numel());
  if (forecasts.empty()) return NAN;
  for (const auto* f : forecasts)
    if (f->size() != n) return NAN;
  const float* t = target.data_ptr<float>();
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    double mean = 0;
    for (const auto* f : forecasts) mean += (*f)[i];
    const double e = mean / static_cast<double>(forecasts.size()) - t[i];
    sum += e * e;
  }
  return n > 0 ? sum / static_cast<double>(n) : NAN;
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

int runReport(const ReportCommand& command, std::ostream& out) {
  const auto series = seriesList(command.series);
  std::ostringstream table;
  table << "| series | T | N | model | validation MSE | test MSE (mean ± sd) | "
           "skill vs best anchor [seeds' range] | skill vs persistence |\n"
           "|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, int> wins, counted;  // model → series with mean skill vs best anchor > 0
  std::vector<std::string> anchor_wins, model_wins;  // series, in plain words for the summary
  bool failed = false;
  std::ostringstream notes;
  for (const auto& name : series) {
    SweepOptions options;
    options.base = realSeriesDefaults(defaultRunConfig());
    options.base.task.name = name;
    if (command.steps > 0) options.base.trainer.max_steps = command.steps;
    options.models = command.models.empty() ? defaultModelNames() : command.models;
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
      progress.update(done, row.model + " test " + fixed(row.test_loss, 4));
    });
    progress.finish("");
    const auto* best = bestAnchor(data.references);
    const std::string lead = "| " + name + " | " + std::to_string(data.length) + " | " +
                             std::to_string(data.train.size()) + " | ";
    std::string chosen;  // the model with the lowest mean validation loss: chosen like an anchor
    double chosen_validation = INFINITY, chosen_skill = NAN;
    // Ensembles, each its own row: every model's seeds averaged, and every run of the series.
    auto ensembleRow = [&](const std::string& label, const std::vector<const SweepRow*>& runs) {
      std::vector<const std::vector<float>*> validation, test;
      for (const auto* r : runs) {
        validation.push_back(&r->validation_forecasts);
        test.push_back(&r->test_forecasts);
      }
      const double v = ensembleLoss(validation, data.validation.y);
      const double t = ensembleLoss(test, data.test.y);
      const double b = skillVersusBest(t, data.references);
      counted[label] += 1;
      if (b > 0) wins[label] += 1;
      if (v < chosen_validation) chosen = label, chosen_validation = v, chosen_skill = b;
      table << lead << label << " | " << fixed(v, 4) << " | " << fixed(t, 4) << " | "
            << skill(stats({b})) << " | "
            << skill(stats({skillVersus(t, data.references, baselineName(Baseline::Persistence))}))
            << " |\n";
    };
    std::vector<const SweepRow*> all_runs;
    for (const auto& model : options.models) {
      std::vector<double> loss, validation, vs_best, vs_persistence;
      for (const auto& r : result.rows) {
        if (r.reference || r.model != model) continue;
        if (!r.error.empty()) {
          failed = true;
          std::cerr << "error: " << name << " " << model << " seed " << r.seed << ": " << r.error
                    << "\n";
          continue;
        }
        loss.push_back(r.test_loss);
        validation.push_back(r.best_validation);
        vs_best.push_back(skillVersusBest(r.test_loss, data.references));
        vs_persistence.push_back(
            skillVersus(r.test_loss, data.references, baselineName(Baseline::Persistence)));
      }
      const auto l = stats(loss), v = stats(validation), b = stats(vs_best),
                 p = stats(vs_persistence);
      counted[model] += 1;
      if (b.count > 0 && b.mean > 0) wins[model] += 1;
      if (v.count > 0 && v.mean < chosen_validation) {
        chosen = model;
        chosen_validation = v.mean;
        chosen_skill = b.mean;
      }
      table << lead << model << " | " << fixed(v.mean, 4) << " | " << fixed(l.mean, 4) << " ± "
            << fixed(l.sd, 4) << " | " << skill(b) << " | " << skill(p) << " |\n";
      std::vector<const SweepRow*> runs;
      for (const auto& r : result.rows)
        if (!r.reference && r.model == model && r.error.empty()) runs.push_back(&r);
      all_runs.insert(all_runs.end(), runs.begin(), runs.end());
      if (runs.size() > 1)
        ensembleRow(model + ", mean of its " + std::to_string(runs.size()) + " seeds", runs);
    }
    if (options.models.size() > 1 && !all_runs.empty())
      ensembleRow("all models, mean of " + std::to_string(all_runs.size()) + " runs", all_runs);
    for (const auto& r : data.references) {
      const double vb = skillVersusBest(r.test_loss, data.references);
      const double vp =
          skillVersus(r.test_loss, data.references, baselineName(Baseline::Persistence));
      const std::string mark = &r == best ? "**" : "*";
      table << lead << mark << r.label << mark << " | " << fixed(r.validation_loss, 4) << " | "
            << fixed(r.test_loss, 4) << " | "
            << (&r == best ? "0 (best anchor)" : skill(stats({vb}))) << " | "
            << (r.name == baselineName(Baseline::Persistence) ? "0" : skill(stats({vp}))) << " |\n";
    }
    if (!chosen.empty() && best) {
      (chosen_skill > 0 ? model_wins : anchor_wins)
          .push_back(name + " (" + chosen + " " + fixed(chosen_skill, 2) + " vs " + best->label +
                     ")");
    }
  }
  std::ostringstream summary;
  summary << "\nThe best anchor of a series is the reference (statistical method or baseline) "
             "with the lowest validation loss, in bold; skill = 1 − MSE_model / MSE_best anchor "
             "on test (> 0: the model is better). A \"mean of\" row is an ensemble: the runs' "
             "forecasts averaged, then scored.\n"
          << "\nSeries on which the model beats the best anchor (mean skill over seeds > 0):\n";
  for (const auto& [model, n] : counted)
    summary << "- " << model << ": " << wins[model] << " of " << n << "\n";
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s.empty() ? std::string("none") : s;
  };
  summary << "\nWith the model chosen on validation (lowest mean validation MSE over the seeds):\n"
          << "- the statistical methods win on " << anchor_wins.size() << ": " << list(anchor_wins)
          << "\n"
          << "- RSA Lab's models win on " << model_wins.size() << ": " << list(model_wins) << "\n";
  const std::string text =
      table.str() + summary.str() + (notes.str().empty() ? "" : "\nNotes:\n" + notes.str());
  out << text;
  if (!command.markdown.empty()) writeFileAtomically(command.markdown, text);
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
      ->add_option("--models", report_command.models,
                   "comma-separated models (default: the default launch's)")
      ->delimiter(',');
  report->add_option("--seeds", report_command.seeds, "seeds per (series, model)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  report->add_option("--steps", report_command.steps,
                     "step budget per run (default: the real-series defaults')");
  report->add_option("--parallel", report_command.parallel, "concurrent runs (0 = one per core)")
      ->capture_default_str();
  report->add_option("--markdown", report_command.markdown, "also write the table to this file");

  return {report, [command] { return runReport(*command, std::cout); }};
}

}  // namespace rsalab
