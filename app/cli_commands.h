// The rsalab-cli subcommands that train: train, sweep, eval, inspect, tasks.
#pragma once

#include <string>
#include <vector>

#include "engine/run_config.h"

namespace rsalab {

struct TrainCommand {
  RunConfig config;
  std::string out_dir = "runs/latest";
};
struct SweepCommand {
  RunConfig config;
  std::vector<std::string> models;
  std::vector<int64_t> sizes;
  int64_t seeds = 3;
  int64_t parallel = 0;
  std::string out_dir = "runs/sweep";
  std::string figures_dir;  // non-empty: write the sample-efficiency and loss figures there
};

// Each returns the process exit code: 0 ok, 1 error, 3 diverged.
int runTrain(const TrainCommand& command);
int runSweepCommand(const SweepCommand& command);
int runEval(const std::string& run_dir);
int runInspect(const std::string& run_dir, int64_t sample, const std::string& out_dir);
int listTasks();

}  // namespace rsalab
