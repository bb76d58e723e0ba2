#include "engine/training/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "engine/flops.h"

namespace rsalab {

SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress,
                     TrainingControl* control) {
  struct Job {
    std::string model;
    int64_t size;
    uint64_t seed;
  };
  std::vector<Job> jobs;
  for (int64_t s = 0; s < options.seeds; ++s)
    for (int64_t n : options.sizes)
      for (const auto& m : options.models)
        jobs.push_back({m, n, options.base.trainer.seed + static_cast<uint64_t>(s)});
  if (jobs.empty())
    throw std::invalid_argument("the sweep has no runs: give models, sizes and seeds >= 1");
  for (const auto& m : options.models) {  // fail fast on bad configs, before any training
    RunConfig c = options.base;
    c.model.model = m;
    validate(c);
  }

  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  SweepResult result;
  result.base = options.base;
  result.base.model.model = options.models.front();
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
      row.run = static_cast<int64_t>(i);
      row.model = job.model;
      row.size = job.size;
      row.seed = job.seed;
      const auto run_start = std::chrono::steady_clock::now();
      try {
        {
          std::lock_guard<std::mutex> lock(mutex);
          auto& slot = datasets[{job.size, job.seed}];
          if (!slot)
            slot =
                std::make_shared<const TaskData>(makeTask(options.base.task, job.size, job.seed));
          data = slot;
        }
        RunConfig c = options.base;
        c.model.model = job.model;
        c.train_size = job.size;
        c.trainer.seed = job.seed;
        Trainer trainer(c, data);
        row.parameters = trainer.parameterCount();
        row.flops_per_token = forwardFlopsPerToken(c.model, data->io, c.task.length);
        if (options.keep_curves) {
          trainer.onStep = [&row](const StepMetrics& m) { row.train_curve.push_back(m); };
          trainer.onEval = [&row](const EvalMetrics& m) { row.validation_curve.push_back(m); };
        }
        trainer.run(control);
        trainer.onEval = nullptr;  // the test evaluation below is not part of the curve
        auto test = trainer.evaluate("test");
        row.test_loss = test.loss;
        row.test_metrics = test.values;
        row.best_validation = trainer.bestValidationLoss();
        row.steps = trainer.stepsDone();
        row.stop_reason = stopReasonName(trainer.stopReason());
        if (options.keep_inspection) {
          row.inspection = trainer.inspect(0);
          row.has_inspection = true;
        }
      } catch (const std::exception& e) {
        row.error = e.what();
      }
      row.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
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
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const auto& m : options.models) {
    std::vector<double> n, loss;
    for (const auto& r : result.rows) {
      if (r.model == m && r.ok()) {
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
  for (const auto& r : result.rows)
    for (const auto& [k, v] : r.test_metrics) metric_names.insert(k);
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
    s << "," << r.best_validation << "," << r.steps << "," << r.parameters << "," << r.seconds
      << "," << quoted(r.stop_reason) << "," << quoted(r.error) << "\n";
  }
  return s.str();
}

std::string sweepJson(const SweepResult& result) {
  nlohmann::json j;
  j["wall_seconds"] = result.wall_seconds;
  j["parallel_runs"] = result.parallel;
  j["threads_per_run"] = result.threads_per_run;
  j["config"] = nlohmann::json::parse(toJson(result.base));
  for (const auto& r : result.rows) {
    if (r.model.empty()) continue;
    j["runs"].push_back({{"model", r.model},
                         {"size", r.size},
                         {"seed", r.seed},
                         {"test_loss", r.test_loss},
                         {"test_metrics", r.test_metrics},
                         {"best_validation", r.best_validation},
                         {"steps", r.steps},
                         {"parameters", r.parameters},
                         {"flops_per_token", r.flops_per_token},
                         {"seconds", r.seconds},
                         {"stop_reason", r.stop_reason},
                         {"run", r.run},
                         {"error", r.error}});
  }
  for (const auto& f : result.fits) {
    j["fits"].push_back({{"model", f.model},
                         {"a", f.a},
                         {"b", f.b},
                         {"b_ci95", {f.b_low, f.b_high}},
                         {"r2", f.r2},
                         {"points", f.points}});
  }
  return j.dump(2);
}

SweepResult sweepResultFromJson(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("sweep JSON: not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw std::runtime_error("sweep JSON: the top level must be an object");
  SweepResult result;
  std::string where;
  // Numbers may be null where sweepJson wrote a NaN (a diverged run).
  auto number = [](const nlohmann::json& o, const char* key, double fallback) {
    if (!o.contains(key)) return fallback;
    const auto& v = o.at(key);
    if (v.is_null()) return static_cast<double>(NAN);
    return v.get<double>();
  };
  try {
    where = "config";
    if (j.contains("config")) result.base = runConfigFromJson(j["config"].dump());
    where = "wall_seconds";
    result.wall_seconds = j.value("wall_seconds", 0.0);
    where = "parallel_runs";
    result.parallel = j.value("parallel_runs", int64_t{1});
    where = "threads_per_run";
    result.threads_per_run = j.value("threads_per_run", int64_t{1});
    if (j.contains("runs")) {
      int64_t index = 0;
      for (const auto& r : j.at("runs")) {
        where = "runs[" + std::to_string(index) + "]";
        SweepRow row;
        row.run = r.value("run", index);
        row.model = r.at("model").get<std::string>();
        row.size = r.at("size").get<int64_t>();
        row.seed = r.value("seed", uint64_t{0});
        row.test_loss = number(r, "test_loss", NAN);
        if (r.contains("test_metrics")) {
          for (const auto& [k, v] : r.at("test_metrics").items()) {
            row.test_metrics[k] = v.is_number() ? v.get<double>() : NAN;
          }
        }
        row.best_validation = number(r, "best_validation", 0.0);
        row.steps = r.value("steps", int64_t{0});
        row.seconds = number(r, "seconds", 0.0);
        row.parameters = r.value("parameters", int64_t{0});
        row.flops_per_token = number(r, "flops_per_token", 0.0);
        row.stop_reason = r.value("stop_reason", std::string());
        row.error = r.value("error", std::string());
        result.rows.push_back(std::move(row));
        ++index;
      }
    }
    if (j.contains("fits")) {
      int64_t index = 0;
      for (const auto& f : j.at("fits")) {
        where = "fits[" + std::to_string(index++) + "]";
        PowerLawFit fit;
        fit.model = f.at("model").get<std::string>();
        fit.a = number(f, "a", 0.0);
        fit.b = number(f, "b", 0.0);
        if (f.contains("b_ci95") && f.at("b_ci95").size() == 2) {
          const auto& ci = f.at("b_ci95");
          fit.b_low = ci[0].is_null() ? NAN : ci[0].get<double>();
          fit.b_high = ci[1].is_null() ? NAN : ci[1].get<double>();
        }
        fit.r2 = number(f, "r2", 0.0);
        fit.points = f.value("points", int64_t{0});
        result.fits.push_back(fit);
      }
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("sweep JSON: bad " + where + ": " + e.what());
  }
  return result;
}

}  // namespace rsalab
