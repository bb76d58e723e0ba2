// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli sweep --slurm / --resume DIR --slurm, and sweep-status (see app/cli/cli_sweep.h).
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <regex>

#include "app/cli/cli_sweep.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/text.h"
#include "engine/core/sweep/sweep_status.h"

namespace rsalab {

namespace fs = std::filesystem;

namespace {

std::string absoluteFolder(const std::string& dir) {
  std::string path = fs::absolute(dir).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string thisExecutable() {
  std::error_code error;
  const auto path = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find rsalab-cli's own path: " + error.message());
  return path.string();
}

// The %K of the script's #SBATCH --array line (0: none), so a resubmission keeps the throttle.
int64_t scriptMaxParallel(const std::string& script_path) {
  std::error_code error;
  if (!fs::exists(script_path, error)) return 0;
  static const std::regex throttle(R"(#SBATCH --array=\S*%(\d+))");
  std::smatch m;
  const std::string text = readTextFile(script_path, 1 << 20);
  return std::regex_search(text, m, throttle) ? std::stoll(m[1]) : 0;
}

std::string jobList(const std::vector<SlurmSubmission>& submissions) {
  return joined(submissions, ", ", [](const SlurmSubmission& s) { return s.job_id; });
}

}  // namespace

int submitSweepToSlurm(const SweepCommand& command, const std::string& folder, bool resume) {
  const std::string dir = absoluteFolder(folder);
  const SweepPlan plan = readSweepPlan(dir);
  const std::string script = sweepSbatchPath(dir);
  std::error_code error;
  const bool rewrite = !resume || command.slurm_options_given || !fs::exists(script, error);
  if (rewrite) {
    writeFileAtomically(script,
                        sweepSbatchScript(thisExecutable(), dir, plan, command.slurm_options));
    fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add, error);
  }
  const int64_t max_parallel =
      rewrite ? command.slurm_options.max_parallel : scriptMaxParallel(script);
  const auto status = sweepStatus(dir, plan, querySlurmTasks(readSlurmSubmissions(dir)));
  for (const auto& p : status.problems) throw std::runtime_error(p);
  const std::vector<int64_t> todo = status.withoutResult();
  std::cout << (rewrite ? "wrote " : "kept ") << script << ": " << plan.cellCount()
            << " cells, one per array task\n";
  if (todo.empty()) {
    std::cout << "nothing to submit: " << status.count(CellState::Done) << " done, "
              << status.count(CellState::Error) << " with an error, "
              << status.count(CellState::Running) << " running, "
              << status.count(CellState::Pending) << " pending; `rsalab-cli sweep-merge " << dir
              << "` once they are done\n";
    return 0;
  }
  const std::string array = slurmArraySpec(todo, max_parallel);
  if (command.dry_run) {
    std::cout << "dry run: not submitted. To submit: sbatch --parsable --array=" << array << " "
              << script << "\n";
    return 0;
  }
  const auto submitted = submitSweep(dir, todo, max_parallel);
  for (const auto& s : submitted) {
    std::cout << "submitted job " << s.job_id << ": " << s.indices.size() << " cell(s) "
              << slurmArraySpec(s.indices, 0) << (resume ? " (resumed)" : "") << "\n";
  }
  std::cout << "watch:  rsalab-cli sweep-status " << dir << "   (or squeue -j "
            << jobList(submitted) << ", or rsalab --sweep-dir " << dir << ")\n"
            << "logs:   " << sweepLogsDir(dir) << "/JOB_TASK.out\n"
            << "merge:  rsalab-cli sweep-merge " << dir << "   (when every cell is done)\n";
  return 0;
}

int runSweepStatusCommand(const std::string& dir) {
  const SweepPlan plan = readSweepPlan(dir);
  const auto submissions = readSlurmSubmissions(dir);
  const auto status = sweepStatus(dir, plan, querySlurmTasks(submissions));
  std::cout << "sweep " << dir << ": " << plan.cellCount() << " cells (" << plan.models.size()
            << " models x " << plan.sizes.size() << " sizes x " << plan.seeds.size() << " seeds, "
            << plan.base.trainer.max_steps << " steps), plan " << plan.hash << "\n";
  for (int k = 0; k < kCellStateCount; ++k) {
    const auto state = static_cast<CellState>(k);
    const auto indices = status.indices(state);
    std::cout << "  " << std::left << std::setw(8) << cellStateName(state) << std::right
              << std::setw(6) << indices.size();
    if (!indices.empty() && state != CellState::Done)
      std::cout << "   cells " << slurmArraySpec(indices, 0);
    std::cout << "\n";
  }
  if (submissions.empty()) {
    std::cout << "slurm: not submitted\n";
  } else if (status.slurm.reachable) {
    std::cout << "slurm: job(s) " << jobList(submissions) << "; squeue knows "
              << status.slurm.states.size() << " of their tasks\n";
  } else {
    std::cout << "slurm: job(s) " << jobList(submissions) << "; " << status.slurm.message
              << " (states from the cell files only)\n";
  }
  for (const auto& p : status.problems) std::cout << "problem: " << p << "\n";
  const auto rerun = status.withoutResult();
  const int64_t busy = status.count(CellState::Running) + status.count(CellState::Pending);
  if (!rerun.empty() && busy == 0) {
    std::cout << "next: `rsalab-cli sweep --resume " << dir
              << (submissions.empty() ? "" : " --slurm") << "` runs the " << rerun.size()
              << " cell(s) without a result\n";
  } else if (rerun.empty() && busy == 0) {
    std::cout << "next: `rsalab-cli sweep-merge " << dir << "` (every cell has a result)\n";
  }
  return 0;
}

}  // namespace rsalab
