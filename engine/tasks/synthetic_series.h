// SPDX-License-Identifier: GPL-3.0-or-later
// Tasks "seasonal" and "ar": forecasting a synthetic series whose recurrence is known, so the
// learned REM parameters can be set beside the truth. The RSA seed derives REMs from a linear
// RNN broken down into simple recurrences with a real coefficient λ (regular REM λ^|i−j|) or a
// complex pair γe^{±iθ} (cyclical REMs γ^|i−j| cos/sin θ|i−j|); the components below are
// recurrences with those coefficients. (Our note, not the seed paper's: an AR(1)'s autocorrelation
// is λ^|k|, while a damped oscillator's is γ^|k| times a phase-shifted cosine — close to, not equal
// to, the cyclical REM.)
//
// Series s_t = Σ_k a_t^(k) + Σ_j c_t^(j) + noise·ε_t with
//   a_t = λ a_{t−1} + σ_a e_t                              (AR(1), one per ar_poles entry)
//   c_t = 2γ cos θ c_{t−1} − γ² c_{t−2} + σ_c e_t, θ = 2π/P (damped oscillator, one per period)
// e, ε white N(0, 1); σ chosen so every component has unit stationary variance, hence `noise`
// is the observation-noise std relative to one component. "ar" uses the poles only.
//
// Time layout (one long series, oldest first):  [ train period | validation | test ]
// Validation and test are consecutive non-overlapping windows right after the train period;
// the N training windows are the N non-overlapping windows just before validation. The train
// period is at least kMinTrainPeriod rows (longer when N windows need it) and the normalisation
// is fitted on all of it, so validation/test tensors are bit-identical for every N up to
// kMinTrainPeriod / (T + H) windows (1008 at T = 64), and the training windows for N are a
// subset of those for any larger N. To achieve that, the validation + test stretch is generated
// forwards from a stationary start and the train period backwards in time from the same start —
// exact for these Gaussian stationary processes, which are time-reversible.
#pragma once

#include <cstdint>
#include <string>

#include "engine/tasks/series_windows.h"
#include "engine/tasks/task.h"

namespace rsalab {

constexpr int64_t kMinTrainPeriod = 65536;  // rows of the train period at least

// The raw series and where every window lies (exposed for tests and inspection).
SeriesLayout makeSyntheticSeriesLayout(const TaskOptions& options, int64_t train_size,
                                       uint64_t seed);
GroundTruth syntheticSeriesTruth(const TaskOptions& options);
// Autocovariance of the raw series at lags 0..lags−1 (components of unit variance + noise²);
// without the teacher process (series_process.h) when with_process is false. The nonlinear
// process has none in closed form (throws).
std::vector<double> syntheticSeriesAutocovariance(const TaskOptions& options, int64_t lags,
                                                  bool with_process = true);
TaskData makeSyntheticSeriesTask(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
