// Built-in synthetic series with known recurrence: damped seasonal components plus an AR(1)
// component plus noise. Used by `rsalab-cli demo` and as the app's default task.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/torch_api.h"

namespace rsalab {

struct SeasonalSeriesOptions {
  int64_t length = 4096;                   // points in the series
  std::vector<double> periods = {12, 30};  // seasonal periods P (true θ = 2π/P)
  double ar_lambda = 0.8;                  // AR(1) pole (the true λ)
  double noise = 0.1;                      // std of the observation noise
  uint64_t seed = 0;
};

// The series, (length), float32 on the CPU; deterministic for a seed.
torch::Tensor makeSeasonalSeries(const SeasonalSeriesOptions& options);

// Sliding windows for next-step forecasting: x (N, T, 1) = s[i..i+T), y (N, T, 1) = s[i+1..i+T].
std::pair<torch::Tensor, torch::Tensor> nextStepWindows(const torch::Tensor& series, int64_t T,
                                                        int64_t stride);

}  // namespace rsalab
