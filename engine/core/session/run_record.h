// SPDX-License-Identifier: GPL-3.0-or-later
// One run as the app holds it, whatever it came from: Run { RunId id; RunDescriptor what;
// RunStatus now; }. A run trains here (live: the training worker's), was read from a session
// bundle, or is a sweep's run opened from its point. The window's RunStore (widgets/run_store.h)
// owns them; the runs table, the inspector, the loss view and the session recorder read them.
// A bundle's SessionRun and a sweep's SweepRow become a Run here, at the boundary, and nowhere
// else: with their truth, references, N and state. Plain C++: no Qt, no LibTorch.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/core/forecast/metrics.h"
#include "engine/core/io/enums.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/session/run_id.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

// What a run is: one model × one seed on a task, with what the task knows.
struct RunDescriptor {
  std::string model;
  uint64_t seed = 0;
  int64_t parameters = 0;
  // The task's ground truth (seasonal / ar / teacher / mix): REM components matched against the
  // learned ones, what "true" means there, and the Bayes floor where the task knows it.
  GroundTruth truth;
  int64_t length = 0;  // the task's sequence length T (REM errors are measured at it)
  // The training set the run has and the N it was asked for: a short series caps N
  // (AirPassengers: 75 windows when 1024 are asked for). 0: not known.
  int64_t train_size = 0;
  int64_t requested_train_size = 0;
  // Series tasks: the baselines and anchors on the same validation and test targets.
  std::vector<ReferenceScore> references;
  // The task's horizon and season: the skill interval's block length (skill_interval.h).
  int64_t horizon = 1;
  int64_t season = 1;
};

// Where a run is now.
struct RunStatus {
  // Diverged: a non-finite loss or gradient paused the run; it can be restored to its last good
  // state and resumed (TrainingWorker::restoreLastGood).
  RunState state = RunState::Idle;
  int64_t step = 0;
  int64_t max_steps = 0;
  double train_loss = std::numeric_limits<double>::quiet_NaN();
  double validation_loss = std::numeric_limits<double>::quiet_NaN();  // the latest evaluation
  double test_loss = std::numeric_limits<double>::quiet_NaN();        // once tested
  std::vector<double> test_errors;  // per test target (EvalMetrics::target_errors), once tested
  double steps_per_second = 0;
  std::string message;  // error or stop reason
  // Finished, stopped early, failed or interrupted: its steps done are its total.
  bool ended() const;
};

struct Run {
  RunId id;
  RunDescriptor what;
  RunStatus now;
};

// ---- The boundaries: the only conversions into a Run.

// A bundle's runs, in its order (source Session, number = the bundle's run id): the bundle's
// truth, length, references, horizon and season; each run's N, state, last losses and test errors.
std::vector<Run> runsOfSession(const SessionBundle& bundle);
// A sweep's run (source Sweep, number = its run index): its truth, length, N, seed, losses, and
// the references of its dataset, from the sweep's reference rows of the same N, seed and axis
// value.
Run runOfSweepRow(const SweepRow& row, const std::vector<SweepRow>& reference_rows);

}  // namespace rsalab
