#include "engine/training/sweep.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "engine/core/names.h"
#include "engine/flops.h"
#include "engine/training/sweep_references.h"

namespace rsalab {

SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress,
                     TrainingControl* control) {
  struct Job {
    std::string model;
    int64_t size;
    uint64_t seed;
  };
  std::vector<std::string> notes;
  const auto sizes = honestSweepSizes(options, &notes);  // sizes giving the same N run once
  std::vector<Job> jobs;
  for (int64_t s = 0; s < options.seeds; ++s)
    for (int64_t n : sizes)
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
  result.notes = notes;
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
      row.requested_size = requestedSize(options, job.size);
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
        auto test = trainer.evaluate(splitName(Split::Test));
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
  appendReferenceRows(options, datasets, result);
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

}  // namespace rsalab
