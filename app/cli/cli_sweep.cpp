// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_sweep.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "app/cli/cli_commands.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_progress.h"
#include "app/figures/sweep_figures.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/session/session_recorder.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/sweep/sweep_status.h"
#include "engine/core/verdicts/claims.h"
#include "engine/sweep/sweep.h"
#include "engine/sweep/sweep_references.h"

namespace rsalab {

namespace fs = std::filesystem;

namespace {

// The trained runs of a sweep (its reference rows, the baselines of a series task, are not runs).
int64_t trainedRuns(const SweepResult& result) {
  return std::count_if(result.rows.begin(), result.rows.end(),
                       [](const SweepRow& r) { return !r.reference; });
}

void printFits(const SweepResult& result) {
  std::set<int64_t> sizes;  // the distinct N the trained runs used
  for (const auto& r : result.rows)
    if (!r.reference) sizes.insert(r.size);
  if (sizes.size() < 3) {  // two points fit a line exactly: no interval, no test of the exponent
    std::cout << "power-law fits (loss ~ a N^-b) need 3 training-set sizes or more; this sweep has "
              << sizes.size() << "\n";
    return;
  }
  const bool axis = !result.axis.empty();
  std::cout << std::left << std::setw(13) << "model";
  if (axis) std::cout << std::setw(12) << result.axis.name;
  std::cout << "  b (loss ~ a N^-b)   95% CI over seeds   seeds  mean R^2 (each seed fitted "
               "on its own)\n";
  for (const auto* fits : {&result.fits, &result.excess_fits}) {
    if (fits == &result.excess_fits && !fits->empty())
      std::cout << "excess loss (test − Bayes floor) ~ a N^-b:\n";
    for (const auto& f : *fits) {
      std::cout << std::left << std::setw(13) << f.model;
      if (axis) std::cout << std::setw(12) << formatNumber(f.axis_value, 4);
      if (f.seeds() == 0) {
        std::cout << "  no seed with " << kPowerLawMinSizes << " sizes or more\n";
        continue;
      }
      const std::string interval =
          f.seeds() >= 2 ? "[" + formatNumber(f.b_low, 3) + ", " + formatNumber(f.b_high, 3) + "]"
                         : "none (1 seed)";
      std::cout << "  " << std::setw(18) << formatNumber(f.b, 4) << "  " << std::setw(18)
                << interval << "  " << std::setw(5) << f.seeds() << "  " << formatNumber(f.r2, 3)
                << "\n";
    }
  }
}

// The task's Bayes floor over the runs (it depends on N and the seed through the train part's
// normalisation), and whether it is exact or only a lower bound.
void printFloor(const SweepResult& result) {
  double low = INFINITY, high = -INFINITY;
  bool bound = false;
  for (const auto& r : result.rows) {
    if (r.reference || !std::isfinite(r.bayes_floor)) continue;
    low = std::min(low, r.bayes_floor);
    high = std::max(high, r.bayes_floor);
    bound = bound || r.truth.floor_is_bound;
  }
  if (!std::isfinite(low)) return;
  const std::string range =
      formatNumber(low, 4) + (high > low ? " to " + formatNumber(high, 4) : std::string());
  if (bound)
    std::cout << "Bayes floor ≥ " << range
              << " over the runs: a lower bound (an oracle that knows the process's hidden "
                 "state), so the excess losses are upper bounds\n";
  else
    std::cout << "Bayes floor " << range << " over the runs: exact\n";
}

// A sweep with a task axis: the regime map's winner per cell and the seed paper's Figure 1 claims.
void printRegimeMap(const SweepResult& result) {
  const RegimeMap map = buildRegimeMap(regimePoints(result.rows));
  if (map.cells.empty()) return;
  std::cout << "regime map (" << result.axis.name
            << "; winner = lowest mean excess loss, its paired difference to the runner-up's "
               "95 % interval above 0; otherwise a tie):\n";
  for (const auto& line : regimeWinnerLines(map)) std::cout << "  " << line << "\n";
}

void writeSession(const SweepPlan& plan, const SweepResult& result, const std::string& path) {
  SessionRecorder recorder;
  recorder.start(plan.base, plan.models, static_cast<int64_t>(plan.seeds.size()));
  recorder.setSweepJson(sweepJson(result));
  recorder.setTuned(plan.tuned);
  for (const SweepRow& r : result.rows) {
    if (r.reference) continue;  // a baseline: its losses are in sweep.json
    const int64_t id = r.run;
    recorder.addRun(id, r.model, r.seed, r.parameters, r.size);
    recorder.setStatus(id, r.error.empty() ? RunState::Finished : RunState::Failed,
                       r.error.empty() ? stopReasonName(r.stop_reason) : r.error);
    recorder.recordSteps(id, r.train_curve.data(), r.train_curve.size());
    // Validation points (the test loss is in sweep.json).
    recorder.recordEvals(id, r.validation_curve.data(), r.validation_curve.size());
  }
  std::cout << "wrote session " << saveSession(recorder.bundle(), path) << "\n";
}

// sweep.csv, sweep.json, figures and session from the cell files: what every sweep ends with.
int mergeSweepFolder(const SweepPlan& plan, const SweepMergeCommand& command) {
  const std::string& dir = command.dir;
  std::vector<SweepCellResult> cells;
  std::vector<int64_t> missing;
  for (const auto& cell : plan.cells) {
    if (auto result = readSweepCell(dir, plan, cell.index))
      cells.push_back(std::move(*result));
    else
      missing.push_back(cell.index);
  }
  if (!missing.empty() && !command.partial) {
    throw std::runtime_error(
        std::to_string(missing.size()) + " of " + std::to_string(plan.cellCount()) +
        " cells have no result yet (" + slurmArraySpec(missing, 0) +
        "): `rsalab-cli sweep-status " + dir + "` says why, `rsalab-cli sweep --resume " + dir +
        " [--slurm]` runs them, and `sweep-merge --partial` merges the others");
  }
  SweepResult result = mergeSweepCells(plan, std::move(cells));
  SweepOptions references;  // the baselines' rows (series tasks), rebuilt from each (N, seed)
  references.base = plan.base;
  references.sizes = plan.sizes;
  references.axis = plan.axis;
  appendReferenceRows(references, result);
  const fs::path out(dir);
  writeFileAtomically((out / "sweep.csv").string(), sweepCsv(result));
  writeFileAtomically((out / "sweep.json").string(), sweepJson(result));
  if (!command.session_dir.empty()) writeSession(plan, result, command.session_dir);
  std::cout << "sweep: " << trainedRuns(result) << " of " << plan.cellCount() << " runs in "
            << formatNumber(result.wall_seconds, 4) << " s (" << result.parallel
            << " concurrent runs x " << result.threads_per_run << " thread(s))\n";
  printFloor(result);
  printFits(result);
  if (!result.axis.empty()) printRegimeMap(result);
  if (command.rule) {
    ClaimEvidence evidence;
    evidence.rows = &result.rows;
    const std::string ground = claimGround(result.base.task.name, result.base.task.teacher_process);
    for (const auto& v : judgeClaim(*command.rule, evidence))
      std::cout << verdictLine(v, ground) << "\n";
  }
  std::cout << "wrote " << out.string() << "/{sweep.csv,sweep.json}\n";
  if (!command.figures_dir.empty()) {
    FigureOptions figures;
    figures.out_dir = command.figures_dir;
    figures.title = plan.base.task.name + ", T = " + std::to_string(plan.base.task.length) + ", " +
                    sweepStepRange(plan.base, plan.budget_epochs, plan.sizes) + " steps, " +
                    std::to_string(plan.seeds.size()) + " seed(s)";
    figures.axis_name = result.axis.name;
    for (const auto& path : writeSweepFigures(result.rows, figures))
      std::cout << "wrote " << path << "\n";
  }
  int failed = 0;
  for (const auto& r : result.rows) failed += r.error.empty() ? 0 : 1;
  if (failed) std::cerr << "warning: " << failed << " run(s) failed; see the error column\n";
  return failed ? 1 : 0;
}

// The cells of the plan that still need a run: no result, and not pending or running on Slurm.
std::vector<int64_t> cellsWithoutResult(const std::string& dir, const SweepPlan& plan) {
  const auto status = sweepStatus(dir, plan, querySlurmTasks(readSlurmSubmissions(dir)));
  for (const auto& p : status.problems) throw std::runtime_error(p);
  return status.withoutResult();
}

std::string slurmJobOfThisProcess() {
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (job && task) return std::string(job) + "_" + task;
  const char* plain = std::getenv("SLURM_JOB_ID");
  return plain ? plain : "";
}

}  // namespace

int runSweepCommand(const SweepCommand& command) {
  if (!command.figures_dir.empty() && !sweepFiguresAvailable()) {
    // Say so before hours of training, not after.
    throw std::runtime_error(
        "--figures is unavailable: rsalab-cli was built with RSALAB_GUI=OFF (no Qt)");
  }
  const bool resume = !command.resume_dir.empty();
  std::string dir;
  SweepPlan plan;
  if (resume) {
    dir = command.resume_dir;
    plan = readSweepPlan(dir);
  } else {
    SweepOptions options;
    options.base = command.config;
    if (!command.models.empty()) {
      options.models = command.models;
    } else if (const TaskInfo* task = findTask(options.base.task.name)) {
      // The default models: those that can train on the task (series-only models on series).
      std::vector<std::string> fit;
      for (const auto& m : options.models)
        if (modelFitsObjective(modelInfo(m), task->objective)) fit.push_back(m);
      options.models = fit;
    }
    if (!command.sizes.empty()) options.sizes = command.sizes;
    std::vector<std::string> notes;  // honest N: sizes a real series cannot give run once
    options.sizes = honestSweepSizes(options, &notes);
    for (const auto& note : notes) std::cerr << "warning: " << note << "\n";
    options.seeds = command.seeds;
    options.axis = command.axis;
    options.budget_epochs = command.budget_epochs;
    options.tuned = tunedSetFromFiles(command.tuned);
    plan = makeSweepPlan(options);
    dir = command.plan_dir.empty() ? command.out_dir : command.plan_dir;
    // A local sweep replaces an older sweep in its folder (as it always has); a plan for other
    // machines never does (their cells may still be running).
    const bool local = command.plan_dir.empty() && !command.slurm;
    writeSweepPlan(dir, plan, /*replace=*/local);
    writeFileAtomically((fs::path(dir) / "config.json").string(), toJson(plan.base));
  }
  const std::string axis_part =
      plan.axis.empty() ? ""
                        : std::to_string(plan.axis.values.size()) + " " + plan.axis.name + " x ";
  const std::string summary =
      std::to_string(plan.models.size()) + " models x " + axis_part +
      std::to_string(plan.sizes.size()) + " sizes x " + std::to_string(plan.seeds.size()) +
      " seeds = " + std::to_string(plan.cellCount()) + " runs of " + sweepBudgetText(plan) +
      " on task " + plan.base.task.name + ", " + tunedLabel(plan.tuned, &plan.base);
  if (!command.plan_dir.empty() && !command.slurm) {
    std::cout << "wrote plan " << sweepPlanPath(dir) << ": " << summary << " (" << plan.hash
              << ")\nrun cell I with `rsalab-cli sweep-cell " << dir << " --index I` (I = 0.."
              << plan.cellCount() - 1 << "), then `rsalab-cli sweep-merge " << dir << "`\n";
    return 0;
  }
  if (command.slurm) return submitSweepToSlurm(command, dir, resume);

  const std::vector<int64_t> todo = cellsWithoutResult(dir, plan);
  std::cerr << "sweep: " << summary;
  if (static_cast<int64_t>(todo.size()) < plan.cellCount())
    std::cerr << " (" << plan.cellCount() - static_cast<int64_t>(todo.size())
              << " already have a result or are queued on Slurm)";
  std::cerr << "\n";
  ProgressLine progress("sweep", static_cast<int64_t>(todo.size()));
  TrainingControl control;
  int64_t done = 0;
  SweepCellsOptions options;
  options.parallel = command.parallel;
  options.threads = command.threads;
  {
    InterruptToStop interrupt(control.stop);
    runSweepCells(
        plan, todo, options,
        [&](SweepCellResult&& cell) {
          const SweepRow& row = cell.row;
          if (row.stop_reason == StopReason::Requested) return;  // cut short
          writeSweepCell(dir, cell);
          progress.update(++done, row.model + " N=" + std::to_string(row.size) +
                                      (row.error.empty() ? " test " + formatNumber(row.test_loss, 4)
                                                         : " ERROR " + row.error));
        },
        &control);
  }
  progress.finish("");
  const bool interrupted = control.stop.load();
  SweepMergeCommand merge;
  merge.dir = dir;
  merge.session_dir = command.session_dir;
  merge.figures_dir = command.figures_dir;
  merge.partial = interrupted;
  merge.rule = command.rule;
  const int code = mergeSweepFolder(plan, merge);
  if (interrupted) {
    std::cerr << "interrupted: " << done << " of " << todo.size()
              << " run(s) finished and are merged; `rsalab-cli sweep --resume " << dir
              << "` runs the rest\n";
    return kExitInterrupted;
  }
  return code;
}

int runSweepCellCommand(const SweepCellCommand& command) {
  const SweepPlan plan = readSweepPlan(command.dir);
  if (command.index < 0 || command.index >= plan.cellCount()) {
    throw std::invalid_argument("--index " + std::to_string(command.index) +
                                " is outside the plan's " + std::to_string(plan.cellCount()) +
                                " cells (0.." + std::to_string(plan.cellCount() - 1) + ")");
  }
  if (readSweepCell(command.dir, plan, command.index)) {
    std::cout << "sweep-cell: cell " << command.index << " already has a result for this plan ("
              << sweepCellPath(command.dir, command.index) << "); skipped\n";
    return 0;
  }
  int64_t threads = command.threads;
  if (threads <= 0) {
    const char* cpus = std::getenv("SLURM_CPUS_PER_TASK");
    threads = cpus ? std::max<int64_t>(0, std::atoll(cpus)) : 0;  // 0: one per core
  }
  const std::string job = slurmJobOfThisProcess();
  const SweepCell& cell = plan.cells[static_cast<size_t>(command.index)];
  std::cerr << "sweep-cell: cell " << cell.index << " of " << plan.cellCount() << ": " << cell.model
            << " N=" << cell.size << " seed " << cell.seed << ", " << plan.base.trainer.max_steps
            << " steps, on " << hostName() << (job.empty() ? "" : " (Slurm job " + job + ")")
            << "\n";
  markSweepCellStarted(command.dir, cell.index, job);
  TrainingControl control;
  std::optional<SweepCellResult> result;
  SweepCellsOptions options;
  options.parallel = 1;
  options.threads = threads;
  {
    InterruptToStop interrupt(control.stop);
    runSweepCells(
        plan, {cell.index}, options, [&](SweepCellResult&& r) { result = std::move(r); }, &control);
  }
  if (!result || result->row.stop_reason == StopReason::Requested) {
    std::cerr << "interrupted: cell " << cell.index << " stopped"
              << (result ? " at step " + std::to_string(result->row.steps) : "")
              << "; no result written (sweep-status counts it failed, --resume runs it again)\n";
    return kExitInterrupted;
  }
  result->slurm_job = job;
  const std::string path = sweepCellPath(command.dir, cell.index);
  if (command.fault_kill_while_writing) {
    const std::string text = sweepCellJson(*result);
    if (FILE* f = std::fopen(temporaryPathFor(path).c_str(), "wb")) {
      std::fwrite(text.data(), 1, text.size() / 2, f);
      std::fflush(f);
    }
    std::raise(SIGKILL);
  }
  writeSweepCell(command.dir, *result);
  const SweepRow& row = result->row;
  std::cout << "cell " << cell.index << ": " << row.model << " N=" << row.size << " seed "
            << row.seed << " "
            << (row.error.empty() ? "test loss " + formatNumber(row.test_loss, 6)
                                  : "ERROR " + row.error)
            << " after " << row.steps << " steps, " << formatNumber(row.seconds, 3) << " s on "
            << result->device << " x " << result->threads << " thread(s); wrote " << path << "\n";
  return row.error.empty() ? 0 : 1;
}

int runSweepMergeCommand(const SweepMergeCommand& command) {
  if (!command.figures_dir.empty() && !sweepFiguresAvailable()) {
    throw std::runtime_error(
        "--figures is unavailable: rsalab-cli was built with RSALAB_GUI=OFF (no Qt)");
  }
  return mergeSweepFolder(readSweepPlan(command.dir), command);
}

}  // namespace rsalab
