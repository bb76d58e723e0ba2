// SPDX-License-Identifier: GPL-3.0-or-later
// One cell of a planned sweep (engine/core/sweep/sweep_plan.h) as a file: DIR/cells/I.json holds
// the cell's sweep row (the keys of sweep.json's runs, engine/core/sweep/sweep_row_json.h), its
// curves, its timing, host and device, and the hash of the plan it was computed for. Written
// atomically (engine/core/io/atomic_file.h): a cell killed while writing leaves no file, never half
// of one. The merge of every cell's file gives the same SweepResult as a local sweep (rows in cell
// order, fits per model). Plain C++ (core library).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

struct SweepCellResult {
  std::string plan_hash;
  int64_t index = -1;
  SweepRow row;  // with train_curve and validation_curve (no inspection record)
  std::string host;
  std::string device;                      // "CPU", "CUDA:0"
  int64_t threads = 1;                     // intra-op threads the cell trained with
  double started_at = 0, finished_at = 0;  // Unix time, seconds
  std::string slurm_job;                   // "JOB_TASK" when run as a Slurm array task, else empty
};

std::string sweepCellJson(const SweepCellResult& cell);
// std::runtime_error naming `what` and the key on bad input.
SweepCellResult sweepCellFromJson(const std::string& text, const std::string& what);

// Writes DIR/cells/I.json atomically and removes the cell's started marker.
void writeSweepCell(const std::string& dir, const SweepCellResult& cell);
// The result of cell `index`: nullopt when there is none yet. Throws std::runtime_error when the
// file is damaged or was computed for another plan (naming the file, both hashes, what to do).
std::optional<SweepCellResult> readSweepCell(const std::string& dir, const SweepPlan& plan,
                                             int64_t index);

// DIR/cells/I.started: written when a cell starts (host, Slurm job, time), removed with its
// result. A started cell with no result and no live job has failed (killed, timed out, lost node).
void markSweepCellStarted(const std::string& dir, int64_t index, const std::string& slurm_job);
bool sweepCellStarted(const std::string& dir, int64_t index);

// The sweep of the given cells (any order, at most one per index): rows in cell order, the fits
// over the usable rows, wall time from the first start to the last finish, the most cells that
// ran at once, and the most threads a cell used.
SweepResult mergeSweepCells(const SweepPlan& plan, std::vector<SweepCellResult> cells);

std::string hostName();  // this machine's name (for cell results)
double unixTimeNow();

}  // namespace rsalab
