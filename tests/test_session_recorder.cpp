// SPDX-License-Identifier: GPL-3.0-or-later
// SessionRecorder, the one assembler of session bundles (app window and rsalab-cli): what it
// records comes back from its bundle, its metrics CSV reads back exactly through the bundle
// reader, and snapshot thinning keeps the newest step. Plain C++: no Qt, no LibTorch.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/core/session/session_recorder.h"

using namespace rsalab;

namespace {
int failures = 0;
#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "%s:%d: FAILED %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                            \
    }                                                                        \
  } while (0)
}  // namespace

int main() {
  SessionRecorder recorder;
  RunConfig config;
  config.task.name = "seasonal";
  recorder.start(config, {"gru", "rsa"}, 2);
  recorder.addRun(1, "rsa", 7, 1234, 64);
  recorder.addRun(0, "gru", 7, 99);
  std::vector<StepMetrics> steps;
  for (int64_t k = 1; k <= 4; ++k)
    steps.push_back({k, 8 * k, 1.0 / 3.0 / double(k), 1e-3, 0.5, 0.1});
  recorder.recordSteps(1, steps.data(), steps.size());
  EvalMetrics validation;
  validation.step = 4;
  validation.split = Split::Validation;
  validation.loss = 0.123456789012345678;
  validation.values = {{"mse", 0.25}, {"mae", 0.5}};
  recorder.recordEval(1, validation);
  recorder.recordStep(5, steps[0]);  // unknown run: dropped
  recorder.setStatus(1, RunState::Finished, "max_steps");
  recorder.setCheckpointFile(0, "checkpoints/run-0.pt");

  const SessionBundle b = recorder.bundle();
  CHECK(b.models == (std::vector<std::string>{"gru", "rsa"}));
  CHECK(b.seeds == 2);
  CHECK(b.config.task.name == "seasonal");
  CHECK(b.runs.size() == 2);
  CHECK(b.runs[0].id == 0 && b.runs[1].id == 1);  // by id
  CHECK(b.runs[0].state == RunState::Idle && b.runs[0].checkpoint_file == "checkpoints/run-0.pt");
  CHECK(b.runs[1].train_size == 64 && b.runs[1].parameters == 1234);
  CHECK(b.runs[1].state == RunState::Finished && b.runs[1].message == "max_steps");
  CHECK(b.runs[1].steps.size() == 4 && b.runs[1].evals.size() == 1);

  // The CSV the CLI writes as metrics.csv reads back exactly through the bundle's reader.
  SessionRun back;
  parseSessionMetricsCsv(recorder.metricsCsv(1), "metrics.csv", back);
  CHECK(back.steps.size() == 4);
  for (size_t k = 0; k < back.steps.size() && k < steps.size(); ++k) {
    CHECK(back.steps[k].step == steps[k].step);
    CHECK(back.steps[k].samples_seen == steps[k].samples_seen);
    CHECK(back.steps[k].train_loss == steps[k].train_loss);
  }
  CHECK(back.evals.size() == 1);
  if (!back.evals.empty()) {
    CHECK(back.evals[0].loss == validation.loss);
    CHECK(back.evals[0].split == Split::Validation);
    CHECK(back.evals[0].values == validation.values);
  }

  // A bundle read back is written again unchanged.
  SessionRecorder reloaded;
  reloaded.load(b);
  CHECK(reloaded.metricsCsv(1) == recorder.metricsCsv(1));
  CHECK(reloaded.bundle().runs.size() == 2);
  // A new session forgets the runs.
  recorder.start(config, {"gru"}, 1);
  CHECK(recorder.bundle().runs.empty());

  std::vector<int64_t> many;
  for (int64_t s = 0; s < 100; ++s) many.push_back(s * 10);
  const auto kept = thinnedSteps(many, 24);
  CHECK(kept.size() <= 24 && kept.size() >= 20);
  CHECK(!kept.empty() && kept.front() == 0 && kept.back() == 990);
  CHECK(thinnedSteps({1, 2, 3}, 24) == (std::vector<int64_t>{1, 2, 3}));
  CHECK(thinnedSteps(many, 1) == (std::vector<int64_t>{990}));

  if (failures) return EXIT_FAILURE;
  std::printf("test_session_recorder: all checks passed\n");
  return EXIT_SUCCESS;
}
