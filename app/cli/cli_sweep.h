// SPDX-License-Identifier: GPL-3.0-or-later
// The rsalab-cli sweep commands. A sweep is a folder: plan.json (engine/core/sweep/sweep_plan.h),
// one result per cell in cells/I.json (engine/core/sweep/sweep_cell.h), then sweep.csv / sweep.json
// (and optionally figures and a session bundle) merged from the cells. The local sweep, the Slurm
// job array and a resumed sweep all take that one path: plan → cells → merge.
//
//   sweep … [--out DIR]          plan, train the cells without a result here in parallel, merge
//   sweep … --plan DIR           write DIR/plan.json only
//   sweep … --slurm [--dry-run]  plan + DIR/sweep.sbatch (a job array), submitted with sbatch
//   sweep --resume DIR [--slurm] the cells of DIR's plan without a result, here or on Slurm
//   sweep-cell DIR --index I     one cell (what each array task runs)
//   sweep-merge DIR              sweep.csv, sweep.json, figures, session from the cells
//   sweep-status DIR             done / error / running / pending / failed / missing
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/sweep/slurm.h"
#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/presets.h"

namespace rsalab {

struct SweepCommand {
  RunConfig config;
  std::vector<std::string> models;
  std::vector<int64_t> sizes;
  int64_t seeds = 3;
  SweepAxis axis;                  // --axis NAME=V1,…: a task parameter as a second axis
  int64_t budget_epochs = 0;       // --epochs E: SweepOptions::budget_epochs
  std::vector<std::string> tuned;  // --tuned FILE,…: SweepOptions::tuned (one file per model)
  std::optional<ClaimRule> rule;   // a sweep preset's claim rule (engine/core/verdicts/claims.h)
  int64_t parallel = 0;            // concurrent cells here (0 = one per core)
  int64_t threads = 0;             // intra-op threads per cell (0 = cores / parallel)
  std::string out_dir = "runs/sweep";
  std::string
      session_dir;  // non-empty: also write a session bundle (sweep.json + every run's metrics)
  std::string figures_dir;  // non-empty: write the sample-efficiency and loss figures there
  std::string plan_dir;     // --plan DIR: write the plan there and run nothing
  std::string resume_dir;   // --resume DIR: the cells of DIR's plan that have no result
  bool slurm = false;       // submit the cells as a Slurm job array
  bool slurm_options_given = false;  // a --partition/--time/… flag: (re)write sweep.sbatch
  bool dry_run = false;              // with --slurm: write the script, do not submit
  SlurmOptions slurm_options;
};

struct SweepCellCommand {
  std::string dir;
  int64_t index = -1;
  int64_t threads = 0;  // 0: $SLURM_CPUS_PER_TASK, else one per core
  // Test hook (hidden --fault-kill-while-writing): write half of the result's temporary file,
  // then SIGKILL this process, as a kill in the middle of the write would.
  bool fault_kill_while_writing = false;
};

struct SweepMergeCommand {
  std::string dir;
  std::string session_dir;
  std::string figures_dir;
  bool partial = false;           // merge the cells that have a result even if others have none
  std::optional<ClaimRule> rule;  // a sweep preset's claim rule: its verdicts are printed
};

// Exit codes as in app/cli/cli_commands.h: 0 ok, 1 error (or a run failed), 130 interrupted.
int runSweepCommand(const SweepCommand& command);
int runSweepCellCommand(const SweepCellCommand& command);
int runSweepMergeCommand(const SweepMergeCommand& command);
int runSweepStatusCommand(const std::string& dir);

// Slurm parts (app/cli/cli_sweep_slurm.cpp): submit the cells without a result (all of a new plan)
// as a job array, or write the script only (dry run); and the status report.
int submitSweepToSlurm(const SweepCommand& command, const std::string& dir, bool resume);

}  // namespace rsalab
