// SPDX-License-Identifier: GPL-3.0-or-later
// SessionRecorder: the one assembler of session bundles. The app's window (File → Save, autosave)
// and rsalab-cli (`train --session`, `sweep --session`) both record their runs here and save what
// bundle() returns, so a bundle, and a run folder's metrics.csv, have one writer. Plain C++ over
// engine/core/session/session_bundle.h: no Qt, no LibTorch (rsalab-cli's sources include no Qt).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/session/run_record.h"
#include "engine/core/session/session_bundle.h"

namespace rsalab {

class SessionRecorder {
 public:
  // A new session: its base config, the models and seeds it was started with. Drops every run,
  // the sweep table and the offline state.
  void start(const RunConfig& config, std::vector<std::string> models, int64_t seeds);
  // Adds (or replaces) a run with no metrics yet. `train_size` 0: the config's N.
  void addRun(int64_t id, const std::string& model, uint64_t seed, int64_t parameters,
              int64_t train_size = 0);
  // The app's runs (the window's RunStore): the run's identity, N and parameters; what its task
  // knows (truth, length, references, horizon, season: shared by the session's runs, so the last
  // run given sets them for the bundle); its state, message and test errors.
  void addRun(const Run& run);
  void setStatus(const Run& run);
  void removeRun(int64_t id);
  bool hasRun(int64_t id) const { return runs_.count(id) > 0; }
  void clearRuns() { runs_.clear(); }
  // Metric points as they arrive; for a run not added yet they are dropped.
  void recordSteps(int64_t id, const StepMetrics* steps, size_t count);
  void recordEvals(int64_t id, const EvalMetrics* evals, size_t count);
  void recordStep(int64_t id, const StepMetrics& step) { recordSteps(id, &step, 1); }
  void recordEval(int64_t id, const EvalMetrics& eval) { recordEvals(id, &eval, 1); }
  // The state name (engine/core/io/enums.h) and the error or stop reason.
  void setStatus(int64_t id, RunState status, const std::string& message);
  void addSnapshot(int64_t id, int64_t step, InspectionRecord record);
  void setSnapshots(int64_t id, std::vector<std::pair<int64_t, InspectionRecord>> snapshots);
  void setCheckpointFile(int64_t id, const std::string& file);
  void setSweepJson(std::string json) { sweep_json_ = std::move(json); }
  // The tuned configurations the runs trained at (SessionBundle::tuned).
  void setTuned(TunedSet tuned) { tuned_ = std::move(tuned); }
  const TunedSet& tuned() const { return tuned_; }
  // Series tasks: the references with their per-target test errors and what sets the skill
  // interval's block (SessionBundle::references, horizon, season).
  void setReferences(std::vector<ReferenceScore> references, int64_t horizon, int64_t season);
  // A run's per-target test errors (recordEval keeps those of a test evaluation itself).
  void setTestErrors(int64_t id, std::vector<double> errors);
  void setCreated(std::string created) { created_ = std::move(created); }
  void setLayout(std::string layout) { layout_ = std::move(layout); }

  // Takes over a bundle read from disk (its runs with their metrics, snapshots and checkpoint
  // files); bundle() then writes it back unchanged.
  void load(const SessionBundle& bundle);

  const RunConfig& config() const { return config_; }
  const std::vector<std::string>& models() const { return models_; }
  int64_t seeds() const { return seeds_; }
  const std::string& created() const { return created_; }
  const std::string& sweepJson() const { return sweep_json_; }
  const SessionRun* run(int64_t id) const;
  std::vector<int64_t> runIds() const;  // ascending

  // The bundle a save writes: every run in id order with its metrics and snapshots.
  SessionBundle bundle() const;
  // One run's metrics in the bundle's CSV format (sessionMetricsCsv): what `rsalab-cli train`
  // writes as metrics.csv and a bundle holds as metrics/run-<id>.csv; loadSession reads it back.
  std::string metricsCsv(int64_t id) const;

 private:
  RunConfig config_;
  std::vector<std::string> models_;
  int64_t seeds_ = 1;
  std::string created_, sweep_json_, layout_;
  TunedSet tuned_;
  std::map<int64_t, SessionRun> runs_;
  std::vector<ReferenceScore> references_;
  int64_t horizon_ = 1, season_ = 1;
  GroundTruth truth_;
  int64_t length_ = 0;
};

// The snapshot steps a bundle keeps of a run: the newest and an even thinning of the rest, at
// most `cap` (ascending, no repeats).
std::vector<int64_t> thinnedSteps(const std::vector<int64_t>& steps, int cap);

}  // namespace rsalab
