// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/session/run_record.h"

#include <algorithm>
#include <cmath>

#include "engine/core/sweep/sweep_io.h"

namespace rsalab {

const char* runSourceName(RunSource source) {
  switch (source) {
    case RunSource::Live:
      return "live";
    case RunSource::Session:
      return "session";
    case RunSource::Sweep:
      return "sweep";
  }
  return "live";
}

bool RunStatus::ended() const {
  return state == RunState::Finished || state == RunState::Stopped || state == RunState::Failed ||
         state == RunState::Interrupted;
}

std::vector<Run> runsOfSession(const SessionBundle& b) {
  std::vector<Run> runs;
  for (const SessionRun& r : b.runs) {
    Run run;
    run.id = {RunSource::Session, r.id};
    run.what.model = r.model;
    run.what.seed = r.seed;
    run.what.parameters = r.parameters;
    run.what.truth = b.truth;
    run.what.length = b.length > 0 ? b.length : b.config.task.length;
    run.what.train_size = r.train_size > 0 ? r.train_size : b.config.train_size;
    run.what.requested_train_size = b.config.train_size;
    run.what.references = b.references;
    run.what.horizon = b.horizon;
    run.what.season = b.season;
    run.now.state = r.state;
    run.now.message = r.message;
    run.now.max_steps = b.config.trainer.max_steps;
    for (const auto& m : r.steps) {
      run.now.step = std::max(run.now.step, m.step);
      run.now.train_loss = m.train_loss;
    }
    for (const auto& e : r.evals)
      if (e.split == Split::Validation) run.now.validation_loss = e.loss;
    if (!r.test_errors.empty()) {  // tested: its skill on test, with the interval
      double sum = 0;
      for (double e : r.test_errors) sum += e;
      run.now.test_loss = sum / static_cast<double>(r.test_errors.size());
      run.now.test_errors = r.test_errors;
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

namespace {

bool sameAxisValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-9;
}

}  // namespace

Run runOfSweepRow(const SweepRow& row, const std::vector<SweepRow>& reference_rows) {
  Run run;
  run.id = {RunSource::Sweep, row.run};
  run.what.model = row.model;
  run.what.seed = row.seed;
  run.what.parameters = row.parameters;
  run.what.truth = row.truth;
  run.what.truth.bayes_floor = row.bayes_floor;
  run.what.length = row.length;
  run.what.train_size = row.size;
  run.what.requested_train_size = row.requested_size > 0 ? row.requested_size : row.size;
  run.what.horizon = row.horizon;
  run.what.season = row.season;
  for (const SweepRow& r : reference_rows) {
    if (!r.reference || r.size != row.size || r.seed != row.seed ||
        !sameAxisValue(r.axis_value, row.axis_value))
      continue;
    ReferenceScore score(r.model, r.model, r.best_validation, r.test_loss);
    score.test_errors = r.test_errors;
    if (const auto mase = r.test_metrics.find("mase"); mase != r.test_metrics.end())
      score.test_mase = mase->second;
    run.what.references.push_back(std::move(score));
  }
  run.now.state = !row.error.empty()                         ? RunState::Failed
                  : row.stop_reason == StopReason::Requested ? RunState::Stopped
                                                             : RunState::Finished;
  run.now.message = !row.error.empty() ? row.error : sweepStopReasonText(row);
  run.now.step = row.steps;
  run.now.max_steps = row.steps;
  if (!row.train_curve.empty()) run.now.train_loss = row.train_curve.back().train_loss;
  run.now.validation_loss = row.best_validation;
  run.now.test_loss = row.test_loss;
  run.now.test_errors = row.test_errors;
  return run;
}

}  // namespace rsalab
