// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/session/session_recorder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/core/io/enums.h"
#include "engine/core/io/thinning.h"

namespace rsalab {

void SessionRecorder::start(const RunConfig& config, std::vector<std::string> models,
                            int64_t seeds) {
  config_ = config;
  models_ = std::move(models);
  seeds_ = seeds;
  runs_.clear();
  sweep_json_.clear();
  tuned_ = {};
  references_.clear();
  horizon_ = season_ = 1;
  truth_ = {};
  length_ = 0;
}

void SessionRecorder::addRun(int64_t id, const std::string& model, uint64_t seed,
                             int64_t parameters, int64_t train_size) {
  SessionRun run;
  run.id = id;
  run.model = model;
  run.seed = seed;
  run.parameters = parameters;
  run.train_size = train_size;
  run.state = RunState::Idle;
  runs_[id] = std::move(run);
}

void SessionRecorder::addRun(const Run& run) {
  addRun(run.id.number, run.what.model, run.what.seed, run.what.parameters, run.what.train_size);
  truth_ = run.what.truth;
  length_ = run.what.length;
  setReferences(run.what.references, run.what.horizon, run.what.season);
  setStatus(run);
}

void SessionRecorder::setStatus(const Run& run) {
  setStatus(run.id.number, run.now.state, run.now.message);
  if (!run.now.test_errors.empty()) setTestErrors(run.id.number, run.now.test_errors);
}

void SessionRecorder::removeRun(int64_t id) { runs_.erase(id); }

void SessionRecorder::recordSteps(int64_t id, const StepMetrics* steps, size_t count) {
  const auto it = runs_.find(id);
  if (it == runs_.end()) return;
  it->second.steps.insert(it->second.steps.end(), steps, steps + count);
}

void SessionRecorder::recordEvals(int64_t id, const EvalMetrics* evals, size_t count) {
  const auto it = runs_.find(id);
  if (it == runs_.end()) return;
  for (size_t k = 0; k < count; ++k) {
    EvalMetrics e = evals[k];
    // A test evaluation's per-target errors go to errors.json, not to every metric row.
    if (e.split == Split::Test && !e.target_errors.empty())
      it->second.test_errors = std::move(e.target_errors);
    e.target_errors.clear();
    it->second.evals.push_back(std::move(e));
  }
}

void SessionRecorder::setReferences(std::vector<ReferenceScore> references, int64_t horizon,
                                    int64_t season) {
  references_ = std::move(references);
  horizon_ = std::max<int64_t>(1, horizon);
  season_ = std::max<int64_t>(1, season);
}

void SessionRecorder::setTestErrors(int64_t id, std::vector<double> errors) {
  const auto it = runs_.find(id);
  if (it != runs_.end()) it->second.test_errors = std::move(errors);
}

void SessionRecorder::setStatus(int64_t id, RunState status, const std::string& message) {
  const auto it = runs_.find(id);
  if (it == runs_.end()) return;
  it->second.state = status;
  it->second.message = message;
}

void SessionRecorder::addSnapshot(int64_t id, int64_t step, InspectionRecord record) {
  const auto it = runs_.find(id);
  if (it == runs_.end()) return;
  it->second.snapshots.emplace_back(step, std::move(record));
}

void SessionRecorder::setSnapshots(int64_t id,
                                   std::vector<std::pair<int64_t, InspectionRecord>> snapshots) {
  const auto it = runs_.find(id);
  if (it == runs_.end()) return;
  it->second.snapshots = std::move(snapshots);
}

void SessionRecorder::setCheckpointFile(int64_t id, const std::string& file) {
  const auto it = runs_.find(id);
  if (it != runs_.end()) it->second.checkpoint_file = file;
}

void SessionRecorder::load(const SessionBundle& bundle) {
  config_ = bundle.config;
  models_ = bundle.models;
  seeds_ = bundle.seeds;
  created_ = bundle.created;
  sweep_json_ = bundle.sweep_json;
  tuned_ = bundle.tuned;
  layout_ = bundle.layout;
  references_ = bundle.references;
  horizon_ = bundle.horizon;
  season_ = bundle.season;
  truth_ = bundle.truth;
  length_ = bundle.length;
  runs_.clear();
  for (const auto& run : bundle.runs) runs_[run.id] = run;
}

const SessionRun* SessionRecorder::run(int64_t id) const {
  const auto it = runs_.find(id);
  return it == runs_.end() ? nullptr : &it->second;
}

std::vector<int64_t> SessionRecorder::runIds() const {
  std::vector<int64_t> out;
  for (const auto& [id, run] : runs_) out.push_back(id);
  return out;
}

SessionBundle SessionRecorder::bundle() const {
  SessionBundle b;
  b.config = config_;
  b.models = models_;
  b.seeds = seeds_;
  b.created = created_;
  b.sweep_json = sweep_json_;
  b.tuned = tuned_;
  b.layout = layout_;
  b.references = references_;
  b.horizon = horizon_;
  b.season = season_;
  b.truth = truth_;
  b.length = length_;
  for (const auto& [id, run] : runs_) b.runs.push_back(run);
  return b;
}

std::string SessionRecorder::metricsCsv(int64_t id) const {
  const SessionRun* r = run(id);
  if (!r) throw std::invalid_argument("no recorded run " + std::to_string(id));
  return sessionMetricsCsv(*r);
}

std::vector<int64_t> thinnedSteps(const std::vector<int64_t>& steps, int cap) {
  std::vector<int64_t> out;
  for (size_t i : thinnedIndices(steps.size(), cap))
    if (out.empty() || out.back() != steps[i]) out.push_back(steps[i]);
  return out;
}

}  // namespace rsalab
