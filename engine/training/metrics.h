// What training reports, as plain data (no LibTorch): per-step and evaluation metrics.
#pragma once

#include <cstdint>
#include <map>
#include <string>

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
  std::string split;                     // splitName(): validation | test
  double loss = 0;                       // the objective's loss (MSE, cross-entropy)
  std::map<std::string, double> values;  // mse, mae | accuracy, cross_entropy | bits_per_char
};

enum class StopReason { None, MaxSteps, EarlyStop, WallTime, Requested, Diverged };
// What status lines, sweep rows (SweepRow::stop_reason) and bundles write; Requested is
// "stopped". Defined in the core library (engine/training/metrics.cpp).
std::string stopReasonName(StopReason reason);

}  // namespace rsalab
