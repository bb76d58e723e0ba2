// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/sweep_status.h"

#include "engine/core/io/enums.h"
#include "engine/core/sweep/sweep_cell.h"

namespace rsalab {

namespace {
const EnumName<CellState> kCellStates[] = {
    {CellState::Done, "done"},       {CellState::Error, "error"},
    {CellState::Running, "running"}, {CellState::Pending, "pending"},
    {CellState::Failed, "failed"},   {CellState::Missing, "missing"}};
}  // namespace

const char* cellStateName(CellState state) { return nameOf(kCellStates, state); }

CellState classifyCell(bool has_result, bool result_has_error, bool started,
                       const std::string& slurm_state) {
  if (has_result) return result_has_error ? CellState::Error : CellState::Done;
  if (slurm_state == "PENDING" || slurm_state == "CONFIGURING" || slurm_state == "REQUEUED" ||
      slurm_state == "REQUEUE_HOLD" || slurm_state == "RESV_DEL_HOLD")
    return CellState::Pending;
  if (slurm_state == "RUNNING" || slurm_state == "COMPLETING" || slurm_state == "SUSPENDED" ||
      slurm_state == "STAGE_OUT" || slurm_state == "SIGNALING" || slurm_state == "RESIZING")
    return CellState::Running;
  if (!slurm_state.empty()) return CellState::Failed;  // ended (any way) without a result
  return started ? CellState::Failed : CellState::Missing;
}

int64_t SweepStatus::count(CellState state) const {
  int64_t n = 0;
  for (auto s : cells) n += s == state ? 1 : 0;
  return n;
}

std::vector<int64_t> SweepStatus::indices(CellState state) const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < cells.size(); ++i)
    if (cells[i] == state) out.push_back(static_cast<int64_t>(i));
  return out;
}

std::vector<int64_t> SweepStatus::withoutResult() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < cells.size(); ++i)
    if (cells[i] == CellState::Failed || cells[i] == CellState::Missing)
      out.push_back(static_cast<int64_t>(i));
  return out;
}

SweepStatus sweepStatus(const std::string& dir, const SweepPlan& plan, SlurmTaskStates slurm) {
  SweepStatus status;
  status.slurm = std::move(slurm);
  for (const auto& cell : plan.cells) {
    bool has_result = false, error = false;
    try {
      if (auto result = readSweepCell(dir, plan, cell.index)) {
        has_result = true;
        error = !result->row.error.empty();
      }
    } catch (const std::exception& e) {
      status.problems.push_back(e.what());
    }
    const auto it = status.slurm.states.find(cell.index);
    status.cells.push_back(classifyCell(has_result, error, sweepCellStarted(dir, cell.index),
                                        it == status.slurm.states.end() ? "" : it->second));
  }
  return status;
}

}  // namespace rsalab
