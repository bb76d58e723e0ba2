// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/sweep/sweep.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "engine/core/config/flops.h"
#include "engine/core/io/enums.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/sweep/sweep_references.h"

namespace rsalab {

namespace {

// Trains one cell on `data` (the task's dataset for the cell's N and seed).
SweepRow trainCell(const SweepPlan& plan, const SweepCell& cell,
                   const std::shared_ptr<const TaskData>& data, const SweepCellsOptions& options,
                   std::string& device, TrainingControl* control) {
  SweepRow row;
  row.run = cell.index;
  row.model = cell.model;
  row.size = cell.size;
  row.seed = cell.seed;
  if (!plan.axis.empty()) row.axis_value = cell.axis_value;
  const RunConfig c = cellConfig(plan, cell);
  Trainer trainer(c, data);
  device = trainer.deviceName();
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
  row.bayes_floor = data->truth.bayes_floor;
  row.test_metrics = test.values;
  row.test_errors = test.target_errors;
  row.horizon = data->horizon;
  row.season = std::max<int64_t>(1, data->season.period);
  row.best_validation = trainer.bestValidationLoss();
  row.steps = trainer.stepsDone();
  row.stop_reason = trainer.stopReason();
  if (options.keep_forecasts) {
    row.validation_forecasts = trainer.forecasts(splitName(Split::Validation));
    row.test_forecasts = trainer.forecasts(splitName(Split::Test));
  }
  if (options.keep_inspection) {
    row.inspection = trainer.inspect(0);
    row.has_inspection = true;
  }
  return row;
}

}  // namespace

SweepCellsTiming runSweepCells(const SweepPlan& plan, const std::vector<int64_t>& indices,
                               const SweepCellsOptions& options,
                               const std::function<void(SweepCellResult&&)>& done,
                               TrainingControl* control) {
  for (int64_t i : indices) {
    if (i < 0 || i >= plan.cellCount()) {
      throw std::invalid_argument("cell index " + std::to_string(i) + " is outside the plan (0.." +
                                  std::to_string(plan.cellCount() - 1) + ")");
    }
  }
  SweepCellsTiming timing;
  if (indices.empty()) return timing;
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  timing.parallel = std::clamp<int64_t>(options.parallel > 0 ? options.parallel : cores, 1,
                                        static_cast<int64_t>(indices.size()));
  timing.threads_per_run =
      options.threads > 0 ? options.threads : std::max<int64_t>(1, cores / timing.parallel);
  const int previous_threads = torch::get_num_threads();
  torch::set_num_threads(static_cast<int>(timing.threads_per_run));

  std::mutex mutex;  // guards everything below
  std::map<std::tuple<double, int64_t, uint64_t>, std::shared_ptr<const TaskData>> datasets;
  size_t next = 0;
  const std::string host = hostName();
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    for (;;) {
      size_t k;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= indices.size() || (control && control->stop.load())) return;
        k = next++;
      }
      const SweepCell& cell = plan.cells[static_cast<size_t>(indices[k])];
      SweepCellResult result;
      result.plan_hash = plan.hash;
      result.index = cell.index;
      result.host = host;
      result.threads = timing.threads_per_run;
      result.started_at = unixTimeNow();
      const auto run_start = std::chrono::steady_clock::now();
      try {
        std::shared_ptr<const TaskData> data;
        {
          std::lock_guard<std::mutex> lock(mutex);
          auto& slot = datasets[{cell.axis_value, cell.size, cell.seed}];
          if (!slot) {
            slot = std::make_shared<const TaskData>(
                makeTask(cellConfig(plan, cell).task, cell.size, cell.seed));
          }
          data = slot;
        }
        result.row = trainCell(plan, cell, data, options, result.device, control);
      } catch (const std::exception& e) {
        result.row.run = cell.index;
        result.row.model = cell.model;
        result.row.size = cell.size;
        result.row.seed = cell.seed;
        if (!plan.axis.empty()) result.row.axis_value = cell.axis_value;
        result.row.error = e.what();
      }
      result.row.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
      result.finished_at = unixTimeNow();
      std::lock_guard<std::mutex> lock(mutex);
      if (done) done(std::move(result));
    }
  };
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < timing.parallel; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  torch::set_num_threads(previous_threads);
  timing.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return timing;
}

SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int64_t, int64_t, const SweepRow&)>& progress,
                     TrainingControl* control) {
  SweepOptions honest = options;
  std::vector<std::string> notes;
  honest.sizes = honestSweepSizes(options, &notes);  // sizes giving the same N run once
  const SweepPlan plan = makeSweepPlan(honest);
  if (plan.budget_epochs > 0)
    notes.push_back("a budget that grows with N: " + sweepBudgetText(plan));
  std::vector<int64_t> indices(plan.cells.size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<int64_t>(i);
  SweepCellsOptions cells;
  cells.parallel = options.parallel;
  cells.keep_curves = options.keep_curves;
  cells.keep_inspection = options.keep_inspection;
  cells.keep_forecasts = options.keep_forecasts;
  SweepResult result;
  result.base = plan.base;
  result.axis = plan.axis;
  result.base.model.model = plan.models.front();
  result.rows.resize(plan.cells.size());
  int64_t finished = 0;
  const auto timing = runSweepCells(
      plan, indices, cells,
      [&](SweepCellResult&& cell) {
        auto& row = result.rows[static_cast<size_t>(cell.index)];
        row = std::move(cell.row);
        ++finished;
        if (progress) progress(finished, plan.cellCount(), row);
      },
      control);
  result.parallel = timing.parallel;
  result.threads_per_run = timing.threads_per_run;
  result.wall_seconds = timing.wall_seconds;
  result.notes = notes;
  for (auto& row : result.rows) row.requested_size = requestedSize(options, row.size);
  appendReferenceRows(options, result);
  fitSweep(result, plan.models);
  return result;
}

}  // namespace rsalab
