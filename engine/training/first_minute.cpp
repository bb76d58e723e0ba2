// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/first_minute.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <thread>

#include "engine/training/trainer.h"

namespace rsalab {

std::vector<FirstMinuteRun> runFirstMinute(const RunConfig& config,
                                           const std::vector<std::string>& models, int64_t seeds,
                                           int64_t steps, int64_t parallel,
                                           const std::map<std::string, RunConfig>& per_model) {
  std::vector<FirstMinuteRun> runs;
  for (int64_t s = 0; s < seeds; ++s) {
    for (const auto& m : models) {
      FirstMinuteRun r;
      r.model = m;
      r.seed = config.trainer.seed + static_cast<uint64_t>(s);
      runs.push_back(r);
    }
  }
  if (runs.empty()) return runs;
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t workers =
      std::clamp<int64_t>(parallel > 0 ? parallel : cores, 1, static_cast<int64_t>(runs.size()));
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(1);  // the GUI's worker on 2 cores: one intra-op thread per run
  std::mutex mutex;
  size_t next = 0;
  std::string error;
  auto work = [&] {
    for (;;) {
      size_t k;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= runs.size() || !error.empty()) return;
        k = next++;
      }
      FirstMinuteRun& r = runs[k];
      try {
        const auto own = per_model.find(r.model);
        RunConfig c = own != per_model.end() ? own->second : config;
        c.model.model = r.model;
        c.trainer.seed = r.seed;
        Trainer trainer(c);
        double last = std::numeric_limits<double>::quiet_NaN();
        trainer.onEval = [&last](const EvalMetrics& m) { last = m.loss; };
        while (!trainer.done() && trainer.stepsDone() < steps) trainer.advance();
        r.steps = trainer.stepsDone();
        r.stop = trainer.done() ? stopReasonName(trainer.stopReason()) : "";
        r.validation = last;
        r.best_validation = trainer.bestValidationLoss();
        r.test = trainer.evaluate("test").loss;  // at the weights the last evaluation saw
        r.bayes_floor = trainer.data().truth.bayes_floor;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        error = r.model + " seed " + std::to_string(r.seed) + ": " + e.what();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  torch::set_num_threads(previous_threads);
  if (!error.empty()) throw std::runtime_error("first minute: " + error);
  return runs;
}

}  // namespace rsalab
