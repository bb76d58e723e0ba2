// SPDX-License-Identifier: GPL-3.0-or-later
// What training reports, as plain data (no LibTorch): per-step and evaluation metrics.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/io/enums.h"

namespace rsalab {

struct StepMetrics {
  int64_t step = 0;          // steps done, 1-based after the first step
  int64_t samples_seen = 0;  // sequences consumed
  double train_loss = 0;
  double learning_rate = 0;
  double grad_norm = 0;  // before clipping
  double seconds = 0;    // training wall time so far
};

struct EvalMetrics {
  int64_t step = 0;
  int64_t samples_seen = 0;              // sequences consumed by training when evaluated
  Split split = Split::Validation;       // written as splitName(): validation | test
  double loss = 0;                       // the objective's loss (MSE, cross-entropy)
  std::map<std::string, double> values;  // mse, mae, mase | accuracy, cross_entropy | bits_per_char
  // Regression, test evaluations only: per sample (a series' forecast origin), the mean of e²
  // over its scored positions and outputs; their mean is `mse`. Empty otherwise.
  std::vector<double> target_errors;
};

// A reference's losses (docs/GLOSSARY.md: a baseline or an anchor), computed on the same
// validation and test targets in the same units as a model's: a baseline forecaster (train mean,
// persistence, seasonal naive, AR(p) by least squares; engine/core/forecast/baselines.h) or an
// anchor (ETS, ARIMA, Theta; engine/core/forecast/anchors.h).
// Carried by the task (TaskData::references), written to result.json ("references"), drawn as
// labelled horizontal lines in the loss view and as grey rows/curves in sweeps.
struct ReferenceScore {
  ReferenceScore(std::string name_ = {}, std::string label_ = {}, double validation = 0,
                 double test = 0)
      : name(std::move(name_)),
        label(std::move(label_)),
        validation_loss(validation),
        test_loss(test) {}
  // stable key: mean | persistence | seasonal_naive | ar_lsq | ets | auto_arima | theta
  std::string name;
  std::string label;  // for legends and closing lines, e.g. "seasonal naive (P = 12)"
  double validation_loss = 0;
  double test_loss = 0;
  // MASE on test (engine/core/forecast/skill_interval.h: maseScales); NaN where not computed.
  double test_mase = std::numeric_limits<double>::quiet_NaN();
  // Per test target (origin), the mean of e² over its steps and columns, in test order: the
  // paired bootstrap interval of a skill against this reference (skill_interval.h) resamples
  // them. Empty where the reference has no per-target errors (an old bundle).
  std::vector<double> test_errors;
};
// The simple baselines of every series task (engine/core/forecast/baselines.h), by the one name
// table their ReferenceScore::name carries: mean | persistence | seasonal_naive | ar_lsq.
enum class Baseline { Mean, Persistence, SeasonalNaive, ArLsq };
const char* baselineName(Baseline baseline);

// The best reference: the reference with the lowest validation loss — chosen like a model is, never
// on test. nullptr when no reference has a finite validation loss.
const ReferenceScore* bestAnchor(const std::vector<ReferenceScore>& references);
// 1 − loss / the best reference's loss on the same split (test: its test loss; validation: its
// validation loss). NaN when there is no best reference or the loss is not finite. The headline.
double skillVersusBest(double loss, const std::vector<ReferenceScore>& references,
                       bool on_test = true);
// nullptr when `name` is not among `references`.
const ReferenceScore* findReference(const std::vector<ReferenceScore>& references,
                                    const std::string& name);
// Skill of a loss against a reference's test loss: 1 − loss / reference (1 perfect, 0 as good as
// the reference, < 0 worse). NaN when the reference is missing or its loss is not > 0.
double skillVersus(double test_loss, const std::vector<ReferenceScore>& references,
                   const std::string& name);

enum class StopReason { None, MaxSteps, EarlyStop, WallTime, Requested, Diverged };
// What status lines, sweep rows (SweepRow::stop_reason) and bundles write; Requested is
// "stopped". Defined in the core library (engine/core/forecast/metrics.cpp).
std::string stopReasonName(StopReason reason);
// The reason a name stands for (every name stopReasonName writes); nullopt for another text.
std::optional<StopReason> parseStopReason(const std::string& name);

}  // namespace rsalab
