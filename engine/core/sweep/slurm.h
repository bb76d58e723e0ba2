// SPDX-License-Identifier: GPL-3.0-or-later
// A planned sweep on a Slurm cluster: the batch script of a job array (one cell per array task),
// the submissions recorded beside the plan, and what squeue says about their tasks. Slurm is only
// ever driven through its own commands (sbatch, squeue, scontrol), run as child processes; no
// scheduling of our own. Plain C++ (core library).
//
// Files in the sweep folder DIR (on a filesystem every node sees):
//   DIR/sweep.sbatch        the job array script: `rsalab-cli sweep-cell DIR --index I` per task
//   DIR/slurm-jobs.json     every submission: job id, the cell indices it covers, task offset
//   DIR/logs/JOB_TASK.out   each array task's stdout and stderr
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/sweep/sweep_plan.h"

namespace rsalab {

struct SlurmOptions {
  std::string partition;      // empty: the cluster's default partition
  std::string time;           // per task, HH:MM:SS (or any form sbatch takes); empty: default
  int64_t cpus_per_task = 1;  // also the cell's intra-op threads
  int64_t gpus_per_task = 0;  // > 0: --gpus-per-task (give the plan --device cuda or auto)
  int64_t max_parallel = 0;   // > 0: at most this many tasks at once (--array=…%K)
  std::vector<std::string> sbatch_args;  // extra #SBATCH lines, e.g. --account=proj --qos=long
  std::string job_name = "rsalab-sweep";
};
// Throws std::invalid_argument naming the option when a value cannot be right (--time format,
// counts < 0, a path or argument with a newline).
void validateSlurmOptions(const SlurmOptions& options);

// The array of these task ids: "0-11", "3,5-7", with "%K" when max_parallel > 0.
std::string slurmArraySpec(const std::vector<int64_t>& task_ids, int64_t max_parallel);

std::string sweepSbatchPath(const std::string& dir);  // DIR/sweep.sbatch
std::string sweepLogsDir(const std::string& dir);     // DIR/logs
// The job array script for every cell of `plan`; `cli` and `dir` must be absolute paths. A task
// runs cell SLURM_ARRAY_TASK_ID + $RSALAB_CELL_OFFSET (0 unless a sweep exceeds MaxArraySize).
std::string sweepSbatchScript(const std::string& cli, const std::string& dir, const SweepPlan& plan,
                              const SlurmOptions& options);

// One sbatch of the sweep's script: its job id and the cells its array tasks run.
struct SlurmSubmission {
  std::string job_id;
  std::vector<int64_t> indices;
  int64_t offset = 0;  // cell index = array task id + offset
  double submitted_at = 0;
};
std::vector<SlurmSubmission> readSlurmSubmissions(const std::string& dir);  // none: empty
void appendSlurmSubmission(const std::string& dir, const SlurmSubmission& submission);

// A child process's outcome; `started` false when the program is not on PATH.
struct ProcessResult {
  bool started = false;
  int exit_code = -1;
  std::string out, err;
};
ProcessResult runProgram(const std::vector<std::string>& argv);  // no shell
bool programOnPath(const std::string& name);

// Submits the script for `indices` (one array job, or several when the cluster's MaxArraySize is
// smaller than the largest index), records each submission and returns them. Throws
// std::runtime_error with sbatch's own message when Slurm refuses, and a clear one when sbatch
// is not installed.
std::vector<SlurmSubmission> submitSweep(const std::string& dir,
                                         const std::vector<int64_t>& indices, int64_t max_parallel);

// What squeue knows about the submissions' array tasks (finished ones too, while the controller
// keeps them: MinJobAge): cell index → Slurm state name (PENDING, RUNNING, COMPLETED, CANCELLED,
// FAILED, TIMEOUT, NODE_FAIL, …). The newest submission of a cell wins.
struct SlurmTaskStates {
  bool reachable = false;  // squeue ran and answered
  std::string message;     // why not, when not reachable
  std::map<int64_t, std::string> states;
};
SlurmTaskStates querySlurmTasks(const std::vector<SlurmSubmission>& submissions);
// The squeue command querySlurmTasks runs, and the parser of its output (for the app, which runs
// it asynchronously). Lines "JOB_TASK|STATE"; other lines are ignored.
std::vector<std::string> squeueCommand(const std::vector<SlurmSubmission>& submissions);
std::map<int64_t, std::string> parseSqueueTasks(const std::string& output,
                                                const std::vector<SlurmSubmission>& submissions);

}  // namespace rsalab
