// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/sweep/slurm.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/json_limits.h"
#include "engine/core/io/text.h"
#include "engine/core/sweep/sweep_cell.h"

namespace rsalab {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string jobsPath(const std::string& dir) {
  return (fs::path(dir) / "slurm-jobs.json").string();
}

// Single quotes for the shell: 'it'\''s'.
std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void refuseControlCharacters(const std::string& value, const std::string& what) {
  for (char c : value) {
    if (c == '\n' || c == '\r' || c == '\0')
      throw std::invalid_argument(what + " must not contain a line break");
  }
}

// The largest array task id + 1 the cluster accepts (scontrol's MaxArraySize; 1001 by default).
int64_t maxArraySize() {
  const ProcessResult r = runProgram({"scontrol", "show", "config"});
  if (r.started && r.exit_code == 0) {
    std::smatch m;
    static const std::regex line(R"(MaxArraySize\s*=\s*(\d+))");
    if (std::regex_search(r.out, m, line)) return std::max<int64_t>(1, std::stoll(m[1]));
  }
  return 1001;
}

}  // namespace

void validateSlurmOptions(const SlurmOptions& options) {
  static const std::regex time(R"((\d+-)?\d+(:\d+){0,2})");
  if (!options.time.empty() && !std::regex_match(options.time, time)) {
    throw std::invalid_argument("--time '" + options.time +
                                "': use HH:MM:SS, MM, D-HH:MM:SS (what sbatch --time takes)");
  }
  if (options.cpus_per_task < 1) throw std::invalid_argument("--cpus-per-task must be >= 1");
  if (options.gpus_per_task < 0) throw std::invalid_argument("--gpus-per-task must be >= 0");
  if (options.max_parallel < 0) throw std::invalid_argument("--max-parallel must be >= 0");
  refuseControlCharacters(options.partition, "--partition");
  refuseControlCharacters(options.job_name, "the job name");
  for (const auto& a : options.sbatch_args) refuseControlCharacters(a, "--sbatch-arg");
}

std::string slurmArraySpec(const std::vector<int64_t>& task_ids, int64_t max_parallel) {
  std::vector<int64_t> ids = task_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string spec;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!spec.empty()) spec += ",";
    spec += std::to_string(ids[i]);
    if (j > i) spec += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  if (max_parallel > 0) spec += "%" + std::to_string(max_parallel);
  return spec;
}

std::string sweepSbatchPath(const std::string& dir) {
  return (fs::path(dir) / "sweep.sbatch").string();
}

std::string sweepLogsDir(const std::string& dir) { return (fs::path(dir) / "logs").string(); }

std::string sweepSbatchScript(const std::string& cli, const std::string& dir, const SweepPlan& plan,
                              const SlurmOptions& options) {
  validateSlurmOptions(options);
  for (const auto& [path, what] : {std::pair{cli, "the CLI's path"}, {dir, "the sweep folder"}}) {
    if (!fs::path(path).is_absolute())
      throw std::invalid_argument(std::string(what) + " must be absolute: " + path);
    refuseControlCharacters(path, what);
  }
  if (dir.find_first_of(" \t\"'") != std::string::npos) {
    throw std::invalid_argument("the sweep folder's path '" + dir +
                                "' has a space or quote, which #SBATCH --output cannot take: "
                                "use a folder without one");
  }
  std::vector<int64_t> all(plan.cells.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# RSA Lab sweep: " << plan.cellCount() << " cells of " << dir << "/plan.json (" << plan.hash
    << "),\n"
    << "# one per array task. Written by `rsalab-cli sweep --slurm`; watch it with\n"
    << "#   rsalab-cli sweep-status " << dir << "\n"
    << "# and resubmit the cells without a result with\n"
    << "#   rsalab-cli sweep --resume " << dir << " --slurm\n"
    << "#SBATCH --job-name=" << options.job_name << "\n"
    << "#SBATCH --array=" << slurmArraySpec(all, options.max_parallel) << "\n"
    << "#SBATCH --output=" << dir << "/logs/%A_%a.out\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=" << options.cpus_per_task << "\n";
  if (!options.partition.empty()) s << "#SBATCH --partition=" << options.partition << "\n";
  if (!options.time.empty()) s << "#SBATCH --time=" << options.time << "\n";
  if (options.gpus_per_task > 0) s << "#SBATCH --gpus-per-task=" << options.gpus_per_task << "\n";
  for (const auto& a : options.sbatch_args) s << "#SBATCH " << a << "\n";
  s << "set -eu\n"
    << "index=$((SLURM_ARRAY_TASK_ID + ${RSALAB_CELL_OFFSET:-0}))\n"
    << "exec " << shellQuote(cli) << " sweep-cell " << shellQuote(dir)
    << " --index \"$index\" --threads \"${SLURM_CPUS_PER_TASK:-1}\"\n";
  return s.str();
}

std::vector<SlurmSubmission> readSlurmSubmissions(const std::string& dir) {
  const std::string path = jobsPath(dir);
  std::error_code error;
  if (!fs::exists(path, error)) return {};
  const json j = parseJsonLimited(readTextFile(path, 16 << 20), path, {16 << 20, 8});
  std::vector<SlurmSubmission> out;
  try {
    for (const auto& e : j.at("submissions")) {
      SlurmSubmission s;
      s.job_id = e.at("job_id").get<std::string>();
      s.indices = e.at("indices").get<std::vector<int64_t>>();
      s.offset = e.value("offset", int64_t{0});
      s.submitted_at = e.value("submitted_at", 0.0);
      out.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
  return out;
}

void appendSlurmSubmission(const std::string& dir, const SlurmSubmission& submission) {
  json j;
  j["submissions"] = json::array();
  for (const auto& s : readSlurmSubmissions(dir)) {
    j["submissions"].push_back({{"job_id", s.job_id},
                                {"indices", s.indices},
                                {"offset", s.offset},
                                {"submitted_at", s.submitted_at}});
  }
  j["submissions"].push_back({{"job_id", submission.job_id},
                              {"indices", submission.indices},
                              {"offset", submission.offset},
                              {"submitted_at", submission.submitted_at}});
  writeFileAtomically(jobsPath(dir), j.dump(1) + "\n");
}

ProcessResult runProgram(const std::vector<std::string>& argv) {
  ProcessResult result;
  if (argv.empty() || !programOnPath(argv[0])) return result;
  int out[2], err[2];
  if (pipe(out) != 0) return result;
  if (pipe(err) != 0) {
    close(out[0]);
    close(out[1]);
    return result;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    return result;
  }
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[k]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.started = true;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

bool programOnPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    if (!d.empty() && access((fs::path(d) / name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::vector<SlurmSubmission> submitSweep(const std::string& dir,
                                         const std::vector<int64_t>& indices,
                                         int64_t max_parallel) {
  if (!programOnPath("sbatch")) {
    throw std::runtime_error(
        "--slurm: sbatch is not on PATH, so there is no Slurm to submit to. Run this on the "
        "cluster's login node, add --dry-run to only write " +
        sweepSbatchPath(dir) + ", or start a one-node test cluster with scripts/slurm-local.sh up");
  }
  fs::create_directories(sweepLogsDir(dir));
  const int64_t limit = maxArraySize();
  std::map<int64_t, std::vector<int64_t>> chunks;  // offset → task ids
  for (int64_t i : indices) chunks[i / limit * limit].push_back(i - i / limit * limit);
  std::vector<SlurmSubmission> submitted;
  for (const auto& [offset, tasks] : chunks) {
    std::vector<std::string> argv = {"sbatch", "--parsable",
                                     "--array=" + slurmArraySpec(tasks, max_parallel)};
    if (offset > 0) argv.push_back("--export=ALL,RSALAB_CELL_OFFSET=" + std::to_string(offset));
    argv.push_back(sweepSbatchPath(dir));
    const ProcessResult r = runProgram(argv);
    std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
    if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      std::string why = r.err.empty() ? r.out : r.err;
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
      throw std::runtime_error("sbatch refused the sweep (exit " + std::to_string(r.exit_code) +
                               "): " + why);
    }
    SlurmSubmission s;
    s.job_id = id;
    for (int64_t t : tasks) s.indices.push_back(t + offset);
    s.offset = offset;
    s.submitted_at = unixTimeNow();
    appendSlurmSubmission(dir, s);
    submitted.push_back(std::move(s));
  }
  return submitted;
}

std::vector<std::string> squeueCommand(const std::vector<SlurmSubmission>& submissions) {
  const std::string jobs =
      joined(submissions, ",", [](const SlurmSubmission& s) { return s.job_id; });
  return {"squeue", "--noheader", "--array", "--states=all", "--jobs=" + jobs, "--format=%i|%T"};
}

std::map<int64_t, std::string> parseSqueueTasks(const std::string& output,
                                                const std::vector<SlurmSubmission>& submissions) {
  std::map<std::string, size_t> order;  // job id → position (later submissions win)
  for (size_t k = 0; k < submissions.size(); ++k) order[submissions[k].job_id] = k;
  std::map<int64_t, std::pair<size_t, std::string>> best;
  static const std::regex line(R"(\s*(\d+)_(\d+)\|([A-Z_]+)\S*\s*)");
  std::istringstream in(output);
  std::string text;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;  // pending ranges "12_[3-5]", blank lines
    const auto it = order.find(m[1]);
    if (it == order.end()) continue;
    const int64_t index = std::stoll(m[2]) + submissions[it->second].offset;
    auto& slot = best[index];
    if (slot.second.empty() || it->second >= slot.first) slot = {it->second, m[3]};
  }
  std::map<int64_t, std::string> states;
  for (const auto& [index, v] : best) states[index] = v.second;
  return states;
}

SlurmTaskStates querySlurmTasks(const std::vector<SlurmSubmission>& submissions) {
  SlurmTaskStates result;
  if (submissions.empty()) {
    result.message = "not submitted to Slurm";
    return result;
  }
  const ProcessResult r = runProgram(squeueCommand(submissions));
  if (!r.started) {
    result.message = "squeue not found";
    return result;
  }
  if (r.exit_code != 0) {
    // An unknown job id (purged after MinJobAge) is an error for squeue; ask again per job.
    std::string why = r.err;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (submissions.size() > 1 && why.find("Invalid job id") != std::string::npos) {
      for (const auto& s : submissions) {
        const auto one = querySlurmTasks({s});
        if (one.reachable) {
          result.reachable = true;
          for (const auto& [i, state] : one.states) result.states[i] = state;
        }
      }
      if (result.reachable) return result;
    }
    if (why.find("Invalid job id") != std::string::npos) {
      result.reachable = true;  // the controller answered: it no longer knows these jobs
      return result;
    }
    result.message = "squeue failed: " + why;
    return result;
  }
  result.reachable = true;
  result.states = parseSqueueTasks(r.out, submissions);
  return result;
}

}  // namespace rsalab
