// SPDX-License-Identifier: GPL-3.0-or-later
// Tasks: datasets with known structure, materialised as tensors (train / validation / test),
// plus what the model needs (ModelIO) and, where the task has one, its ground truth.
// Every task is deterministic for a (options, train_size, seed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/config/model_options.h"
#include "engine/core/config/task_options.h"
#include "engine/core/forecast/baselines.h"  // SeasonalPeriod
#include "engine/core/forecast/metrics.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/registry/task_registry.h"
#include "engine/torch_api.h"

namespace rsalab {

namespace forecast {  // engine/core/forecast/anchors.h, declared here so that few sources include
                      // it
struct AnchorInput;
struct AnchorProgress;
struct AnchorScores;
using AnchorProgressFn = std::function<void(const AnchorProgress&)>;
}  // namespace forecast

struct DataSplit {
  torch::Tensor x;
  torch::Tensor y;
  torch::Tensor target_in;  // Seq2Seq only: BOS followed by y without its last token
  // MLM validation and test only: bool (N, T), the positions whose input was redrawn (x is the
  // corrupted text, y the clean one). Accuracy is scored on these positions.
  torch::Tensor corrupted;
  // The long-horizon protocol only: uint8 (N, L + H, 4), each window's calendar marks (month
  // 1–12, day 1–31, weekday 0–6 from Monday, hour 0–23) for its L input rows and its H forecast
  // rows (known ahead: the calendar, never the values). Read by the models that take them
  // (SequenceModelImpl::readsMarks).
  torch::Tensor marks;
  int64_t size() const { return x.defined() ? x.size(0) : 0; }
};

struct TaskData {
  std::string name;
  Objective objective = Objective::Regression;
  ModelIO io;
  DataSplit train, validation, test;
  GroundTruth truth;
  // > 0: MLM. The trainer corrupts the training inputs anew every batch; validation and test
  // inputs are corrupted once, when the task is built (DataSplit::corrupted).
  double mlm_probability = 0;
  int64_t bos = -1;                     // Seq2Seq decoder start token
  std::vector<std::string> vocabulary;  // token labels for the inspector (token tasks)
  std::vector<std::string> columns;     // feature names (series tasks)
  std::string summary;                  // one line for logs
  // Series tasks. The tensors are in the train part's global normalisation (z units, where every
  // loss is measured); `norm` (a NormMode name) says what the model sees: the trainer maps its
  // input and output per window (window), not at all (global) or back to raw values with
  // norm_mean / norm_std (none). Validation and test y may hold fewer positions than x (rolling
  // origin: y (N, 1, H·C) scores the last position only); then they are the last positions.
  std::string norm = "global";
  std::vector<double> norm_mean, norm_std;  // per column, of the global normalisation
  int64_t length = 0;                       // T used (real series: the one --length auto chose)
  int64_t horizon = 1;
  // Baselines on the same validation and test targets (and, where a task knows it, floors).
  std::vector<ReferenceScore> references;
  SeasonalPeriod season;  // series tasks: the seasonal naive's (and the anchors') P, and its rule
  // Series tasks: per column, MASE's denominator in z units (SeriesBaselines::mase_scale); the
  // trainer's evaluations then report "mase". Empty for other tasks.
  std::vector<double> mase_scale;
  int64_t requested_train_size = 0;  // N asked for; train.size() is the N the run uses
  // What a user must be told: N capped, T chosen, the seasonal period. The CLI prints them as
  // warnings / notes; the GUI shows them in its log.
  std::vector<std::string> notes;
  // Real series built with TaskBuild::defer_anchors: the anchors still to fit (computeAnchors;
  // fitAnchors adds them to `references` and `notes`). Null once fitted, or for other tasks.
  std::shared_ptr<const forecast::AnchorInput> pending_anchors;
  // "long-horizon" for the protocol's task (engine/tasks/long_horizon_task.h; the trainer then
  // applies its epochs budget), "" otherwise. anchors_as_notes: the anchors score a column
  // subset (OT of a multivariate task), so anchorReadout writes them as notes, not references.
  std::string protocol;
  bool anchors_as_notes = false;
};

// How a task is built beyond its options. A real series' anchors (ETS, auto ARIMA, Theta) take
// seconds: by default they are fitted while the task is built, each finished fit reported to
// `anchor_progress`; with defer_anchors they are left in TaskData::pending_anchors, so that
// training can start while they are fitted in the background (the GUI).
struct TaskBuild {
  bool defer_anchors = false;
  forecast::AnchorProgressFn anchor_progress;
};

// Builds the task with `train_size` training sequences (or windows). Throws std::invalid_argument
// (bad options) or std::runtime_error (unreadable / malformed files) with a message naming the
// field, or the file, line and column.
TaskData makeTask(const TaskOptions& options, int64_t train_size, uint64_t seed,
                  const TaskBuild& build = {});

// Fits the anchors a deferred build left (data.pending_anchors) and adds them to the task as
// anchorReadout says; a no-op when none are pending.
forecast::AnchorScores fitAnchors(TaskData& data, const forecast::AnchorProgressFn& progress = {});

// How fitted anchors enter a task's readout (the CLI's fitAnchors and the GUI's background fits
// alike): as references beside persistence, or, when they score a column subset
// (TaskData::anchors_as_notes: OT of a multivariate task), as notes only, never a reference for
// the run's loss; their own notes (rows used, orders searched) follow.
struct AnchorReadout {
  std::vector<ReferenceScore> references;
  std::vector<std::string> notes;
};
AnchorReadout anchorReadout(bool as_notes, const forecast::AnchorScores& anchors);

// The anchors' scores added to a task's references (after its baselines, in table order).
void addAnchors(std::vector<ReferenceScore>& references, const forecast::AnchorScores& anchors);

// The number of training windows a task built with `train_size` would use (fewer than asked when
// a real series has no more); builds the task's layout, not its tensors, where it can.
int64_t actualTrainSize(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
