// SPDX-License-Identifier: GPL-3.0-or-later
// Where a planned sweep stands, cell by cell: from the cell files (results and started markers,
// engine/core/sweep/sweep_cell.h) and, when the sweep went to Slurm, what squeue says about its
// array tasks (engine/core/sweep/slurm.h). `rsalab-cli sweep-status`, `--resume` and the app's
// sweep-folder watcher read it. Plain C++ (core library).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/sweep/slurm.h"
#include "engine/core/sweep/sweep_plan.h"

namespace rsalab {

// Done: a result (a usable run). Error: a result whose run failed in its own right (a bad config,
// out of memory; rerunning gives the same). Running / Pending: Slurm says so and there is no
// result yet. Failed: started, or its task ended, without a result (cancelled, timed out, killed,
// node lost). Missing: no result and nothing known about it (never submitted, or forgotten by
// the controller). Failed and missing cells are what `--resume` runs again.
enum class CellState { Done, Error, Running, Pending, Failed, Missing };
constexpr int kCellStateCount = 6;
const char* cellStateName(CellState state);  // "done", "error", …

// One cell's state from what is known about it; `slurm_state` is squeue's (empty: unknown).
CellState classifyCell(bool has_result, bool result_has_error, bool started,
                       const std::string& slurm_state);

struct SweepStatus {
  std::vector<CellState> cells;       // by cell index
  std::vector<std::string> problems;  // unreadable or foreign cell files (those cells: missing)
  SlurmTaskStates slurm;
  int64_t count(CellState state) const;
  std::vector<int64_t> indices(CellState state) const;
  std::vector<int64_t> withoutResult() const;  // failed and missing: what --resume runs
};

// Reads every cell file of `plan` in `dir` and combines them with `slurm` (querySlurmTasks).
SweepStatus sweepStatus(const std::string& dir, const SweepPlan& plan, SlurmTaskStates slurm);

}  // namespace rsalab
