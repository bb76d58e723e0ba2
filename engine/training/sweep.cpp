#include "engine/training/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace rsalab {

namespace {
// Two-sided 97.5% quantile of Student's t for df = 1..30 (then the normal value).
double tQuantile975(int64_t df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                                 2.228,  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
                                 2.093,  2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
                                 2.048,  2.045, 2.042};
  if (df < 1) return NAN;
  return df <= 30 ? table[df - 1] : 1.96;
}
}  // namespace

PowerLawFit fitPowerLaw(const std::vector<double>& sizes, const std::vector<double>& losses) {
  PowerLawFit fit;
  std::vector<double> x, y;
  for (size_t i = 0; i < sizes.size() && i < losses.size(); ++i) {
    if (sizes[i] > 0 && losses[i] > 0 && std::isfinite(losses[i])) {
      x.push_back(std::log(sizes[i]));
      y.push_back(std::log(losses[i]));
    }
  }
  const auto n = static_cast<int64_t>(x.size());
  fit.points = n;
  if (n < 2) return fit;
  double mx = 0, my = 0;
  for (int64_t i = 0; i < n; ++i) { mx += x[i]; my += y[i]; }
  mx /= n; my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (int64_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return fit;
  const double slope = sxy / sxx, intercept = my - slope * mx;
  fit.b = -slope;
  fit.a = std::exp(intercept);
  double ssr = 0;
  for (int64_t i = 0; i < n; ++i) ssr += std::pow(y[i] - (intercept + slope * x[i]), 2);
  fit.r2 = syy > 0 ? 1 - ssr / syy : 1;
  if (n > 2) {
    const double se = std::sqrt(ssr / static_cast<double>(n - 2) / sxx);
    const double half = tQuantile975(n - 2) * se;
    fit.b_low = fit.b - half;
    fit.b_high = fit.b + half;
  } else {
    fit.b_low = fit.b_high = fit.b;
  }
  return fit;
}

SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress,
                     TrainingControl* control) {
  struct Job { std::string model; int64_t size; uint64_t seed; };
  std::vector<Job> jobs;
  for (int64_t s = 0; s < options.seeds; ++s)
    for (int64_t n : options.sizes)
      for (const auto& m : options.models) jobs.push_back({m, n, options.base.trainer.seed + static_cast<uint64_t>(s)});
  if (jobs.empty()) throw std::invalid_argument("the sweep has no runs: give models, sizes and seeds >= 1");
  for (const auto& m : options.models) {  // fail fast on bad configs, before any training
    RunConfig c = options.base;
    c.model.model = m;
    validate(c);
  }

  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  SweepResult result;
  result.parallel = std::clamp<int64_t>(options.parallel > 0 ? options.parallel : cores, 1,
                                        static_cast<int64_t>(jobs.size()));
  result.threads_per_run = std::max<int64_t>(1, cores / result.parallel);
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(static_cast<int>(result.threads_per_run));

  std::mutex mutex;  // guards everything below
  std::map<std::pair<int64_t, uint64_t>, std::shared_ptr<const TaskData>> datasets;
  size_t next = 0;
  int64_t finished = 0;
  result.rows.resize(jobs.size());
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    for (;;) {
      size_t i;
      std::shared_ptr<const TaskData> data;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= jobs.size() || (control && control->stop.load())) return;
        i = next++;
      }
      const Job& job = jobs[i];
      SweepRow row;
      row.model = job.model;
      row.size = job.size;
      row.seed = job.seed;
      const auto run_start = std::chrono::steady_clock::now();
      try {
        {
          std::lock_guard<std::mutex> lock(mutex);
          auto& slot = datasets[{job.size, job.seed}];
          if (!slot) slot = std::make_shared<const TaskData>(makeTask(options.base.task, job.size, job.seed));
          data = slot;
        }
        RunConfig c = options.base;
        c.model.model = job.model;
        c.train_size = job.size;
        c.trainer.seed = job.seed;
        Trainer trainer(c, data);
        row.parameters = trainer.parameterCount();
        if (options.keep_metrics) {
          trainer.onStep = [&row](const StepMetrics& m) { row.step_metrics.push_back(m); };
          trainer.onEval = [&row](const EvalMetrics& m) { row.eval_metrics.push_back(m); };
        }
        trainer.run(control);
        auto test = trainer.evaluate("test");
        row.test_loss = test.loss;
        row.test_metrics = test.values;
        row.best_validation = trainer.bestValidationLoss();
        row.steps = trainer.stepsDone();
        row.stop_reason = stopReasonName(trainer.stopReason());
      } catch (const std::exception& e) {
        row.error = e.what();
      }
      row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
      std::lock_guard<std::mutex> lock(mutex);
      result.rows[i] = row;
      ++finished;
      if (progress) progress(finished, static_cast<int64_t>(jobs.size()), row);
    }
  };
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < result.parallel; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  torch::set_num_threads(previous_threads);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const auto& m : options.models) {
    std::vector<double> n, loss;
    for (const auto& r : result.rows) {
      if (r.model == m && r.error.empty() && r.steps > 0) {
        n.push_back(static_cast<double>(r.size));
        loss.push_back(r.test_loss);
      }
    }
    auto fit = fitPowerLaw(n, loss);
    fit.model = m;
    result.fits.push_back(fit);
  }
  return result;
}

std::string sweepCsv(const SweepResult& result) {
  std::set<std::string> metric_names;
  for (const auto& r : result.rows) for (const auto& [k, v] : r.test_metrics) metric_names.insert(k);
  std::ostringstream s;
  s.precision(9);
  s << "model,size,seed,test_loss";
  for (const auto& k : metric_names) s << ",test_" << k;
  s << ",best_validation,steps,parameters,seconds,stop_reason,error\n";
  for (const auto& r : result.rows) {
    if (r.model.empty()) continue;  // not run (stopped)
    s << r.model << "," << r.size << "," << r.seed << "," << r.test_loss;
    for (const auto& k : metric_names) {
      auto it = r.test_metrics.find(k);
      s << ",";
      if (it != r.test_metrics.end()) s << it->second;
    }
    auto quoted = [](const std::string& t) {
      std::string q = "\"";
      for (char c : t) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      return q + "\"";
    };
    s << "," << r.best_validation << "," << r.steps << "," << r.parameters << "," << r.seconds << ","
      << quoted(r.stop_reason) << "," << quoted(r.error) << "\n";
  }
  return s.str();
}

std::string sweepJson(const SweepResult& result) {
  nlohmann::json j;
  j["wall_seconds"] = result.wall_seconds;
  j["parallel_runs"] = result.parallel;
  j["threads_per_run"] = result.threads_per_run;
  for (const auto& r : result.rows) {
    if (r.model.empty()) continue;
    j["runs"].push_back({{"model", r.model}, {"size", r.size}, {"seed", r.seed},
                         {"test_loss", r.test_loss}, {"test_metrics", r.test_metrics},
                         {"best_validation", r.best_validation}, {"steps", r.steps},
                         {"parameters", r.parameters}, {"seconds", r.seconds}, {"stop_reason", r.stop_reason},
                         {"error", r.error}});
  }
  for (const auto& f : result.fits) {
    j["fits"].push_back({{"model", f.model}, {"a", f.a}, {"b", f.b}, {"b_ci95", {f.b_low, f.b_high}},
                         {"r2", f.r2}, {"points", f.points}});
  }
  return j.dump(2);
}

}  // namespace rsalab
