// SPDX-License-Identifier: GPL-3.0-or-later
// Trains one model on one task: seeded batches, Adam/AdamW, warm-up + cosine, clipping,
// validation with early stopping, test evaluation, checkpoints, inspection snapshots.
// Thread contract: a Trainer is used by one thread at a time. Other threads talk to it only
// through TrainingControl (atomics + a mutex-guarded hot-parameter slot), checked between steps.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/metrics.h"
#include "engine/core/io/inspection.h"
#include "engine/tasks/task.h"
#include "engine/training/trainer_faults.h"

namespace rsalab {

// Reproducibility: a run's numbers depend only on its config (seed included) and the data. Its
// model is initialised from LibTorch's process-wide generator, seeded with the run's seed under
// globalGeneratorMutex(); every draw during training (batch order, MLM corruption; the models
// have no dropout) comes from the run's own generator. So runs trained side by side in threads
// equal the same runs trained alone. What may still change the last bits is the intra-op thread
// count (torch::set_num_threads; a sweep gives each run cores / parallel threads): it changes
// how reductions and the blocked attention split their sums, hence the rounding.
//
// Held while seeding LibTorch's process-wide generator and drawing from it; take it for any
// such use that may run beside a Trainer.
std::mutex& globalGeneratorMutex();

// Token predictions argmax(logits) (B, T, V) against y (B, T): correct over all positions and,
// with `scored` (B, T) bool, over the scored positions only (MLM: the redrawn ones).
struct TokenHits {
  double correct = 0, count = 0;
  double correct_scored = 0, count_scored = 0;
  double all() const { return count > 0 ? correct / count : 0.0; }
  double scoredOnly() const { return count_scored > 0 ? correct_scored / count_scored : 0.0; }
};
TokenHits tokenHits(const torch::Tensor& logits, const torch::Tensor& y,
                    const torch::Tensor& scored = {});

// Cross-thread commands, checked once per step by run().
struct TrainingControl {
  std::atomic<bool> stop{false};
  std::atomic<bool> pause{false};
  void setHot(const HotParameters& hot);
  std::optional<HotParameters> takeHot();

 private:
  std::mutex mutex_;
  std::optional<HotParameters> pending_;
};

class Trainer {
 public:
  // Builds the task (unless `data` is given, so several models can share one dataset) and the
  // model. Throws std::invalid_argument for bad configs.
  explicit Trainer(RunConfig config, std::shared_ptr<const TaskData> data = nullptr);
  ~Trainer();

  StepMetrics step();  // one optimisation step
  // step(), then the validation evaluation and early-stop bookkeeping when due (what run() does
  // per iteration; for callers that drive the loop themselves, like the GUI worker).
  StepMetrics advance();
  EvalMetrics evaluate(const std::string& split);  // "validation" or "test"
  // Regression: the forecasts of every target `which` (validation | test) scores, in z units,
  // flattened in the layout of the split's y (for ensembles of runs). Throws for other splits.
  std::vector<float> forecasts(const std::string& which);
  // Steps until done or control->stop; evaluates every eval_every steps; returns why it stopped.
  StopReason run(TrainingControl* control = nullptr);
  bool done() const { return stop_reason_ != StopReason::None; }
  StopReason stopReason() const { return stop_reason_; }

  void applyHot(const HotParameters& hot);
  HotParameters hot() const;
  // Inspection record of validation sample `sample` (plain data on the CPU).
  InspectionRecord inspect(int64_t sample = 0);

  // Model, optimiser, step and sampler state; written to a temp file and renamed.
  void saveCheckpoint(const std::string& path) const;
  void loadCheckpoint(const std::string& path);

  // The last good state, kept in memory: taken at construction and after every validation
  // evaluation with a finite loss (so every eval_every steps). After a divergence (a non-finite
  // loss or gradient; the optimiser step is skipped and the run stops with StopReason::Diverged),
  // restoreLastGood() rolls model, optimiser, step counters and sampler back to it and clears the
  // stop reason, so training resumes from there. Costs one serialised copy of model + optimiser.
  void restoreLastGood();
  int64_t lastGoodStep() const { return good_step_; }

  TrainingFaults faults;  // test hooks, see TrainingFaults

  std::function<void(const StepMetrics&)> onStep;
  std::function<void(const EvalMetrics&)> onEval;
  std::function<void(int64_t step, const InspectionRecord&)> onSnapshot;

  // The model's parameters under their LibTorch names ("block0.attention.qkv.weight"), in
  // registration order; and its forward on a batch x as the module sees it (no normalisation of
  // a series task mapped in or out), in eval mode without gradients, on the CPU. For the export
  // (engine/training/model_export.h); forwardModel throws std::invalid_argument for seq2seq.
  std::vector<std::pair<std::string, torch::Tensor>> namedParameters() const;
  torch::Tensor forwardModel(const torch::Tensor& x);

  const RunConfig& config() const { return config_; }
  const TaskData& data() const { return *data_; }
  int64_t stepsDone() const { return step_; }
  int64_t parameterCount() const;
  std::string deviceName() const;  // "CPU" or "CUDA:N"
  double bestValidationLoss() const { return best_validation_; }
  // restore_best: the step whose weights were put back at the end (0 before any evaluation).
  int64_t bestStep() const { return best_step_; }

 private:
  struct State;
  double lossOn(const DataSplit& split, const torch::Tensor& index, EvalMetrics* metrics,
                bool training);
  // Regression: the model on x (B, T, C) with the task's normalisation mapped in and out.
  // marks: the rows of DataSplit::marks for x's windows (undefined when the task has none).
  torch::Tensor regressionForward(const torch::Tensor& x, InspectionRecord* record,
                                  const torch::Tensor& marks = {});
  double scheduledLearningRate() const;
  std::string checkpointBytes() const;
  void loadCheckpointBytes(const std::string& bytes, const std::string& source);
  void injectThrowIfDue();
  void keepGoodState();
  RunConfig config_;
  std::shared_ptr<const TaskData> data_;
  std::unique_ptr<State> state_;
  int64_t step_ = 0, samples_ = 0;
  double seconds_ = 0;
  double best_validation_ = 1e300;
  int64_t evals_without_improvement_ = 0;
  StopReason stop_reason_ = StopReason::None;
  std::string good_state_;  // checkpointBytes() of the last good state
  int64_t good_step_ = 0;
  int64_t best_step_ = 0;
};

}  // namespace rsalab
