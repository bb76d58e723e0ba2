#include "app/cli_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "app/cli_progress.h"
#include "engine/atomic_file.h"
#include "engine/core/model_registry.h"
#include "engine/core/task_registry.h"
#include "engine/training/sweep.h"

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
  table << "| series | T | N | model | test MSE (mean ± sd) | skill vs persistence | "
           "skill vs AR(p) |\n|---|---|---|---|---|---|---|\n";
  std::map<std::string, int> wins, counted;  // model → series with mean skill vs persistence > 0
  std::map<std::string, int> ar_wins;
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
    // The task once, for what the table says about it (T, N, the baselines' labels).
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
    const std::string lead = "| " + name + " | " + std::to_string(data.length) + " | " +
                             std::to_string(data.train.size()) + " | ";
    for (const auto& model : options.models) {
      std::vector<double> loss, vs_persistence, vs_ar;
      for (const auto& r : result.rows) {
        if (r.reference || r.model != model) continue;
        if (!r.error.empty()) {
          failed = true;
          std::cerr << "error: " << name << " " << model << " seed " << r.seed << ": " << r.error
                    << "\n";
          continue;
        }
        loss.push_back(r.test_loss);
        vs_persistence.push_back(skillVersus(r.test_loss, data.references, "persistence"));
        vs_ar.push_back(skillVersus(r.test_loss, data.references, "ar_lsq"));
      }
      const auto l = stats(loss), p = stats(vs_persistence), a = stats(vs_ar);
      counted[model] += 1;
      if (p.count > 0 && p.mean > 0) wins[model] += 1;
      if (a.count > 0 && a.mean > 0) ar_wins[model] += 1;
      table << lead << model << " | " << fixed(l.mean, 4) << " ± " << fixed(l.sd, 4) << " | "
            << skill(p) << " | " << skill(a) << " |\n";
    }
    for (const auto& r : data.references) {
      const double vp = skillVersus(r.test_loss, data.references, "persistence");
      const double va = skillVersus(r.test_loss, data.references, "ar_lsq");
      table << lead << "*" << r.label << "* | " << fixed(r.test_loss, 4) << " | "
            << (r.name == "persistence" ? "0" : skill(stats({vp}))) << " | "
            << (r.name == "ar_lsq" ? "0" : skill(stats({va}))) << " |\n";
    }
  }
  std::ostringstream summary;
  summary << "\nSeries on which the model beats persistence / AR(p) (mean skill over seeds > 0):\n";
  for (const auto& [model, n] : counted) {
    summary << "- " << model << ": " << wins[model] << " of " << n << " vs persistence, "
            << ar_wins[model] << " of " << n << " vs AR(p)\n";
  }
  const std::string text =
      table.str() + summary.str() + (notes.str().empty() ? "" : "\nNotes:\n" + notes.str());
  out << text;
  if (!command.markdown.empty()) writeFileAtomically(command.markdown, text);
  return failed ? 1 : 0;
}

}  // namespace rsalab
