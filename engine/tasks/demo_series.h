// SPDX-License-Identifier: GPL-3.0-or-later
// The demo series of `rsalab-cli demo` (not the "seasonal" task, engine/tasks/synthetic_series.h,
// whose seasons are damped stochastic oscillators): s_t = Σ_k 0.7^k·sin(2πt/P_k + φ_k) — undamped
// sinusoids, the k-th weighted 0.7^k, with random phases φ_k — plus an AR(1) a_t = λa_{t−1} + e_t,
// e ~ N(0, 0.3²), a_0 = 0, plus N(0, noise²) observation noise.
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
