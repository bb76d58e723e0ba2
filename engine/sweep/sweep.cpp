// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/sweep/sweep.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "engine/core/config/flops.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/io/thinning.h"
#include "engine/core/registry/memory_horizon.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/runtime.h"
#include "engine/sweep/sweep_references.h"

namespace rsalab {

namespace {

// Writes the run's every metric point and its inspection record to <folder>/runs/<run>/, and
// keeps the record there only (SweepOptions::run_folder).
void keepOnDisk(SweepRow& row, const std::string& folder) {
  const auto dir = std::filesystem::path(folder) / "runs" / std::to_string(row.run);
  std::filesystem::create_directories(dir);
  SessionRun metrics;
  metrics.id = row.run;
  metrics.steps = std::move(row.train_curve);
  metrics.evals = std::move(row.validation_curve);
  writeFileAtomically((dir / "metrics.csv").string(), sessionMetricsCsv(metrics));
  row.train_curve = std::move(metrics.steps);
  row.validation_curve = std::move(metrics.evals);
  if (row.has_inspection) {
    writeFileAtomically((dir / "inspection.json").string(), inspectionJson(row.inspection));
    row.inspection = {};
  }
  row.files = dir.string();
}

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
  row.truth = data->truth;
  row.length = data->validation.size() > 0 ? data->validation.x.size(1) : data->train.x.size(1);
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
  // A model with decaying heads (REMs, RetNet's γ, Mamba-2's a_t, FoX's f_t, …) keeps its learned
  // decays in the row, so that a claim on them can be judged from sweep.json (a Slurm sweep's
  // included).
  const bool decays = modelInfo(cell.model).has(RecordsDecays);
  if (options.keep_inspection || decays) {
    InspectionRecord record = trainer.inspect(0);
    row.regular_decays = regularDecays(record);
    if (options.keep_inspection) {
      row.inspection = std::move(record);
      row.has_inspection = true;
    }
  }
  if (!options.run_folder.empty()) keepOnDisk(row, options.run_folder);
  if (options.curve_points > 0) {
    thinInPlace(row.train_curve, options.curve_points);
    thinInPlace(row.validation_curve, options.curve_points);
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

  // Seed by seed, a dataset's cells together: a dataset is freed once its last cell is done.
  using DatasetKey = std::tuple<double, int64_t, uint64_t>;  // (axis value, N, seed)
  auto datasetOf = [&plan](int64_t index) {
    const SweepCell& c = plan.cells[static_cast<size_t>(index)];
    return DatasetKey{c.axis_value, c.size, c.seed};
  };
  std::vector<int64_t> order = indices;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const auto ka = datasetOf(a), kb = datasetOf(b);
    return std::tie(std::get<2>(ka), std::get<0>(ka), std::get<1>(ka)) <
           std::tie(std::get<2>(kb), std::get<0>(kb), std::get<1>(kb));
  });
  std::map<DatasetKey, int64_t> cells_left;  // per dataset: its cells not yet finished
  for (int64_t i : order) ++cells_left[datasetOf(i)];

  std::mutex mutex;  // guards everything below
  std::map<DatasetKey, std::shared_ptr<const TaskData>> datasets;
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
      const int64_t at = order[k];
      const SweepCell& cell = plan.cells[static_cast<size_t>(at)];
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
          auto& slot = datasets[datasetOf(at)];
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
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (--cells_left[datasetOf(at)] == 0) datasets.erase(datasetOf(at));
        if (done) done(std::move(result));
      }
      returnFreedMemory();  // the finished run's trainer, batches and dataset (a long sweep)
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
  cells.run_folder = options.run_folder;
  cells.curve_points = options.curve_points;
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
  result.tuned = plan.tuned;
  for (auto& row : result.rows) row.requested_size = requestedSize(options, row.size);
  appendReferenceRows(options, result);
  fitSweep(result, plan.models);
  return result;
}

}  // namespace rsalab
