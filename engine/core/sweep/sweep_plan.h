// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep as a plan: the base RunConfig, the axes (models, sizes N, seeds) and the list of cells
// (one training run each) with stable indices, saved as DIR/plan.json with a content hash. The
// local `rsalab-cli sweep`, a Slurm job array (one cell per array task) and the app watching a
// sweep folder all read this one file; each cell's result goes to DIR/cells/I.json
// (engine/core/sweep/sweep_cell.h). Plain C++ (core library: no LibTorch, no Qt).
//
// The cell order is the sweep's run order: seeds × sizes × (task-axis values) × models, models
// fastest, so a regime map fills one seed's plane first; cell I is
// run I of runSweep (SweepRow::run). The hash covers the base config, the axes and the cells: a
// cell result records the hash of the plan it was computed for, so a result never mixes with a
// different plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/power_law.h"
#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

struct SweepCell {
  int64_t index = 0;
  std::string model;
  int64_t size = 0;
  uint64_t seed = 0;
  double axis_value = 0;  // the plan's task-axis value for this cell (0 and unused without one)
};

struct SweepPlan {
  RunConfig base;  // task, model and trainer settings shared by every cell
  std::vector<std::string> models;
  std::vector<int64_t> sizes;
  std::vector<uint64_t> seeds;
  SweepAxis axis;  // optional task-parameter axis; its name is a TaskOptions key ("mix_share")
  int64_t budget_epochs = 0;  // SweepOptions::budget_epochs (cellSteps)
  TunedSet tuned;             // SweepOptions::tuned (cellConfig applies it)
  std::vector<SweepCell> cells;
  std::string hash;  // sweepPlanHash(): "fnv1a64:" + 16 hex digits
  int64_t cellCount() const { return static_cast<int64_t>(cells.size()); }
};

// "mix.share=0,0.25,0.5" → {"mix_share", {0, 0.25, 0.5}}: a task parameter (taskParameterKey)
// and its values. std::invalid_argument naming what is wrong (no "=", a value that is not a
// number, a repeated value, an unknown parameter).
SweepAxis parseSweepAxis(const std::string& text);

// The plan of a sweep (seeds base.trainer.seed + 0 … seeds − 1). Throws std::invalid_argument on
// no cells or a config that a model refuses (validate), before anything runs.
SweepPlan makeSweepPlan(const SweepOptions& options);
// The config cell `cell` trains: the base with its model, training-set size, seed, task-axis
// value and step budget (cellSteps), at its model's tuned knobs when the plan has them.
RunConfig cellConfig(const SweepPlan& plan, const SweepCell& cell);
// max(base max_steps, ceil(epochs · N / batch)) with epochs > 0, else base max_steps.
int64_t cellSteps(const RunConfig& base, int64_t budget_epochs, int64_t size);
// "300", or "200–1024" where the budget grows with N (the smallest and the largest size's steps).
std::string sweepStepRange(const RunConfig& base, int64_t budget_epochs,
                           const std::vector<int64_t>& sizes);
// "300 steps", or "max(300, 8 epochs) steps: 300 at N = 16 … 1024 at N = 4096".
std::string sweepBudgetText(const SweepPlan& plan);

std::string sweepPlanJson(const SweepPlan& plan);  // with its hash
// Reads what sweepPlanJson wrote; std::runtime_error naming `what` and the key on bad input, and
// when the content no longer matches the recorded hash (the file was edited after it was written).
SweepPlan sweepPlanFromJson(const std::string& text, const std::string& what = "plan.json");

// Files of a sweep folder.
std::string sweepPlanPath(const std::string& dir);                 // DIR/plan.json
std::string sweepCellsDir(const std::string& dir);                 // DIR/cells
std::string sweepCellPath(const std::string& dir, int64_t index);  // DIR/cells/I.json
// DIR/plan.json, read and checked; the message names the path ("no plan in DIR: …" when absent).
SweepPlan readSweepPlan(const std::string& dir);
// Writes DIR/plan.json atomically (creating DIR). If DIR already holds a plan with another hash,
// throws std::runtime_error saying so unless `replace` (then DIR/cells is emptied first).
void writeSweepPlan(const std::string& dir, const SweepPlan& plan, bool replace = false);

}  // namespace rsalab
