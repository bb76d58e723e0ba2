// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/tune_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/core/config/flops.h"
#include "engine/core/config/search_space.h"
#include "engine/core/io/atomic_file.h"
#include "engine/models/model_factory.h"
#include "engine/training/trainer.h"

namespace rsalab {

namespace fs = std::filesystem;
using nlohmann::json;

int64_t countParameters(const RunConfig& config, const ModelIO& io) {
  std::lock_guard<std::mutex> lock(globalGeneratorMutex());  // initialisation draws from it
  if (modelInfo(config.model.model).family == ModelFamily::Seq2Seq)
    return makeEncoderDecoder(config.model, io.vocab, io.output_dim)->parameterCount();
  return makeSequenceModel(config.model, io)->parameterCount();
}

double trainingFlopsPerStep(const RunConfig& config, const ModelIO& io, int64_t length) {
  const double tokens = static_cast<double>(config.trainer.batch_size * length);
  return 3 * forwardFlopsPerToken(config.model, io, length) * tokens;
}

namespace {

// One run to the end of a rung: starts from `load` (none: fresh), trains to `steps`, writes
// `save` (none: not kept) and then its result file.
struct Job {
  RunConfig config;
  int64_t steps = 0;
  std::string load, save, result;
  double best_before = HUGE_VAL;
};

struct JobResult {
  double loss = HUGE_VAL;  // the best validation loss so far; +inf after a divergence
  std::string stop;
};

JobResult readResult(const std::string& path) {
  const json j = json::parse(readTextFile(path, 1 << 16));
  JobResult r;
  r.loss = j.at("validation").is_null() ? HUGE_VAL : j.at("validation").get<double>();
  r.stop = j.at("stop").get<std::string>();
  return r;
}

void runJob(const Job& job, const std::shared_ptr<const TaskData>& data) {
  Trainer trainer(job.config, data);
  if (!job.load.empty()) trainer.loadCheckpoint(job.load);
  while (!trainer.done() && trainer.stepsDone() < job.steps) trainer.advance();
  JobResult r;
  if (trainer.stopReason() == StopReason::Diverged) {
    r.stop = "diverged";
  } else {
    const double last = trainer.evaluate("validation").loss;
    r.loss = std::min({job.best_before, trainer.bestValidationLoss(), last});
    if (!std::isfinite(r.loss)) r.loss = HUGE_VAL;
    if (!job.save.empty()) trainer.saveCheckpoint(job.save);
  }
  json j = {{"steps", trainer.stepsDone()},
            {"validation", std::isfinite(r.loss) ? json(r.loss) : json(nullptr)},
            {"stop", r.stop}};
  writeFileAtomically(job.result, j.dump(2) + "\n");
}

// Runs the jobs whose result file is missing, `workers` at a time, one intra-op thread each.
void runJobs(const std::vector<Job>& all, const std::shared_ptr<const TaskData>& data,
             int64_t workers) {
  std::vector<const Job*> jobs;
  for (const auto& j : all)
    if (!fs::exists(j.result)) jobs.push_back(&j);
  if (jobs.empty()) return;
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(1);
  std::mutex mutex;
  size_t next = 0;
  std::string error;
  auto work = [&] {
    for (;;) {
      const Job* job;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= jobs.size() || !error.empty()) return;
        job = jobs[next++];
      }
      try {
        runJob(*job, data);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        error = job->result + ": " + e.what();
      }
    }
  };
  std::vector<std::thread> threads;
  const int64_t n = std::clamp<int64_t>(workers, 1, static_cast<int64_t>(jobs.size()));
  for (int64_t w = 1; w < n; ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  torch::set_num_threads(previous_threads);
  if (!error.empty()) throw std::runtime_error("tune: " + error);
}

std::string trialDir(const std::string& model_dir, int64_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "trial-%03lld", static_cast<long long>(index));
  return model_dir + "/" + name;
}

// The settings a folder was tuned with; a second run with the same --out must match them.
void claimFolder(const TuneRequest& q, const RunConfig& base, int64_t budget) {
  fs::create_directories(q.out_dir);
  const json manifest = {{"base_config", json::parse(toJson(base))},
                         {"trials", q.trials},
                         {"budget_steps", budget},
                         {"eta", q.eta},
                         {"cap_factor", q.cap_factor}};
  const std::string path = q.out_dir + "/tune.json";
  if (fs::exists(path)) {
    if (json::parse(readTextFile(path, 1 << 20)) != manifest)
      throw std::invalid_argument(q.out_dir +
                                  " was tuned with other settings (task, trials, budget, seed): "
                                  "give another --out, or the same settings to resume it");
    return;
  }
  writeFileAtomically(path, manifest.dump(2) + "\n");
}

TunedModel tuneModel(const TuneRequest& q, const RunConfig& base, int64_t budget,
                     const std::shared_ptr<const TaskData>& data) {
  const auto start = std::chrono::steady_clock::now();
  TunedModel t;
  const RunConfig& def = base;  // the shared default of this model
  t.model = def.model.model;
  t.base_config = toJson(base);
  t.seed = base.trainer.seed;
  t.trials = q.trials;
  t.budget = budget;
  t.eta = q.eta;
  t.cap_factor = q.cap_factor;
  const ModelIO& io = data->io;
  const int64_t length = data->train.x.size(1);
  t.default_parameters = countParameters(def, io);
  t.default_flops_per_step = trainingFlopsPerStep(def, io, length);
  t.parameter_cap = static_cast<int64_t>(std::floor(q.cap_factor * t.default_parameters));
  t.rungs = successiveHalvingRungs(q.trials, budget, q.eta);
  const std::string dir = q.out_dir + "/" + t.model;
  fs::create_directories(dir + "/default");

  SearchRng rng(modelSearchSeed(base.trainer.seed, t.model));
  const auto knobs = searchKnobs(t.model);
  std::vector<RunConfig> configs;
  for (int64_t i = 0; i < q.trials; ++i) {
    RunConfig c = drawConfig(
        base, t.model, rng, [&](const RunConfig& x) { return countParameters(x, io); },
        t.parameter_cap);
    TunedTrial tr;
    tr.index = i;
    for (const auto& k : knobs) tr.knobs[k.key] = k.get(c);
    tr.parameters = countParameters(c, io);
    tr.flops_per_step = trainingFlopsPerStep(c, io, length);
    t.trial_list.push_back(tr);
    fs::create_directories(trialDir(dir, i));
    writeFileAtomically(trialDir(dir, i) + "/config.json", toJson(c));
    configs.push_back(c);
  }

  std::vector<int64_t> alive(static_cast<size_t>(q.trials));
  for (int64_t i = 0; i < q.trials; ++i) alive[static_cast<size_t>(i)] = i;
  std::vector<double> best(static_cast<size_t>(q.trials), HUGE_VAL);
  for (size_t k = 0; k < t.rungs.size(); ++k) {
    std::vector<Job> jobs;
    if (k == 0) jobs.push_back({def, budget, "", "", dir + "/default/result.json", HUGE_VAL});
    const bool last = k + 1 == t.rungs.size();
    for (int64_t i : alive) {
      const std::string td = trialDir(dir, i);
      Job j{configs[static_cast<size_t>(i)],
            t.rungs[k].steps,
            k == 0 ? "" : td + "/rung-" + std::to_string(k - 1) + ".ckpt",
            last ? "" : td + "/rung-" + std::to_string(k) + ".ckpt",
            td + "/rung-" + std::to_string(k) + ".json",
            best[static_cast<size_t>(i)]};
      if (!std::isfinite(j.best_before) && k > 0) continue;  // diverged earlier: stays out
      jobs.push_back(j);
    }
    runJobs(jobs, data, q.workers);
    std::vector<double> losses;
    for (int64_t i : alive) {
      auto& tr = t.trial_list[static_cast<size_t>(i)];
      const std::string path = trialDir(dir, i) + "/rung-" + std::to_string(k) + ".json";
      const JobResult r = fs::exists(path) ? readResult(path) : JobResult{HUGE_VAL, tr.stop};
      best[static_cast<size_t>(i)] = r.loss;
      tr.losses.push_back(r.loss);
      if (tr.stop.empty()) tr.stop = r.stop;
      t.total_flops += tr.flops_per_step *
                       static_cast<double>(t.rungs[k].steps - (k ? t.rungs[k - 1].steps : 0));
      losses.push_back(r.loss);
    }
    const int64_t keep = last ? 1 : t.rungs[k + 1].trials;
    alive = survivors(alive, losses, keep);
    if (q.progress) {
      q.progress(t.model + ": rung " + std::to_string(k) + " (" +
                 std::to_string(t.rungs[k].trials) + " trials at " +
                 std::to_string(t.rungs[k].steps) + " steps) done");
    }
  }
  t.chosen = alive.empty() ? -1 : alive.front();
  t.default_validation = readResult(dir + "/default/result.json").loss;
  if (!std::isfinite(t.default_validation)) t.default_validation = NAN;
  for (auto& tr : t.trial_list)
    for (double& l : tr.losses)
      if (!std::isfinite(l)) l = NAN;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writeFileAtomically(q.out_dir + "/" + t.model + ".tuned.json", tunedModelJson(t));
  return t;
}

}  // namespace

std::vector<TunedModel> runTune(const TuneRequest& q) {
  if (q.out_dir.empty()) throw std::invalid_argument("tune needs an output folder (--out)");
  if (q.models.empty()) throw std::invalid_argument("tune: no models given");
  for (const auto& m : q.models) modelInfo(m);  // throws naming the known ones
  RunConfig base = q.base;
  const int64_t budget = q.budget > 0 ? q.budget : base.trainer.max_steps;
  base.trainer.max_steps = budget;
  base.trainer.patience = 0;
  base.trainer.max_seconds = 0;
  validate(base);
  claimFolder(q, base, budget);
  const auto data = q.data ? q.data
                           : std::make_shared<const TaskData>(
                                 makeTask(base.task, base.train_size, base.trainer.seed));
  std::vector<TunedModel> out;
  for (const auto& m : q.models) {
    RunConfig c = base;
    c.model.model = m;
    out.push_back(tuneModel(q, c, budget, data));
  }
  return out;
}

}  // namespace rsalab
