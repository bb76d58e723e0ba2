// SPDX-License-Identifier: GPL-3.0-or-later
// The teacher processes of the series tasks `seasonal` and `ar` (TaskOptions::teacher_process;
// the same names as the teacher's, engine/tasks/teacher_process.h). A process other than rem
// takes the place of the AR(1) components (ar_poles): `seasonal` keeps its damped seasons, both
// keep the observation noise. e_t are white N(0, 1) innovations; x is scaled to unit variance.
//   rem        the AR(1) poles (synthetic_series.h): RSA's home ground.
//   power      ARFIMA(0, d, 0): x_t = Σ_{k=0}^{K} ψ_k e_{t−k}, ψ_0 = 1, ψ_k = ψ_{k−1}(k − 1 + d)/k
//              (ψ_k ∝ k^(d−1)), truncated at K = kSeriesPowerLags: the process generated is that
//              MA(K), whose autocovariance Σ_j ψ_j ψ_{j+k} is exact. σ² = Σ ψ_k².
//   jordan     AR(2) with a repeated root λ: x_t = 2λ x_{t−1} − λ² x_{t−2} + e_t, ψ_k = (k + 1)λ^k,
//              σ² = (1 + λ²)/(1 − λ²)³ (synthetic_series.cpp generates it as its AR(2) components).
//   nonlinear  SETAR(1): x_t = φ(x_{t−1}) x_{t−1} + e_t, φ = phi_high when x_{t−1} ≥ 0, else
//              phi_low. Mean and σ² by Monte Carlo on a fixed stream of teacher_seed.
//   selective  x_t = a_t x_{t−1} + e_t, a_t = min + (max − min)·exp(−e_{t−1}²/2): the decay is set
//   by
//              the size of the last innovation, so a large shock makes the next step forget. The
//              conditional mean E[x_t | past] = a(e_{t−1}) x_{t−1} is nonlinear in the past
//              (e_{t−1} is a nonlinear function of the values before it), which is what makes the
//              decay selective for a predictor. E x = 0 (a is even in e); σ² = 1 + E[a(e)² e²]/(1 −
//              E a²) in closed form; the autocovariance is an ARMA(1, 1)'s, γ_1 = E a·(σ² − 1) +
//              E[a(e) e²], γ_k = (E a)^{k−1} γ_1, so the best linear predictor is not the floor.
// Floors: power and jordan are linear Gaussian, so the window's floor is exact
// (gaussianWindowFloor of the autocovariance). nonlinear and selective hide a state the window
// cannot recover (nonlinear: x_{t−1} under the noise; selective: also e_{t−1}); an oracle that
// knows the state errs by the innovation alone, 1/σ² in unit-variance units, a **lower bound** on
// the floor at every horizon. Reach (the difficulty rule, task_registry.h): w_k = ψ_k for the
// linear processes, else the mean sensitivity E|∂x_t/∂e_{t−k}| over a stationary fixed stream; rem:
// Σ_poles σ_λ |λ|^k.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/config/task_options.h"

namespace rsalab {

constexpr int64_t kSeriesPowerLags = 1024;  // power: ARFIMA's MA(∞) truncated at K
constexpr int64_t kSeriesBurnIn = 2000;     // nonlinear, selective: steps run before a stretch

struct SeriesProcessModel {
  TeacherProcess process = TeacherProcess::Rem;
  std::vector<double> psi;  // power, jordan: ψ_0..ψ_K (raw, ψ_0 = 1)
  double lambda = 0, phi_high = 0, phi_low = 0, decay_min = 0, decay_max = 0;
  // The raw process's stationary mean and variance (nonlinear: Monte Carlo, with its standard
  // error; the others: closed form, se 0).
  double mean = 0, variance = 1, variance_se = 0;
  int64_t variance_samples = 0;
  double scale() const;                    // 1/σ
  double decay(double e) const;            // selective: a(e)
  double decayMean() const;                // E a
  double decaySecondMoment() const;        // E a²
  double decayShockMoment() const;         // E[a(e) e²]
  double decaySquaredShockMoment() const;  // E[a(e)² e²]
  double coefficient(double x) const;      // nonlinear: φ(x)
  // One raw step from x_{t−1} with innovation e (nonlinear, selective); e_before is e_{t−1}
  // (selective's decay; nonlinear ignores it).
  double step(double previous, double e, double e_before) const;
  // The state-knowing oracle's one-step error in unit-variance units (nonlinear, selective); the
  // lower bound above.
  double oracleError() const;
};

// The process of `options` (throws std::invalid_argument naming the field; rem has none).
SeriesProcessModel makeSeriesProcess(const TaskOptions& options);
// Autocovariance of the unit-variance process at lags 0..lags−1 (power, jordan).
std::vector<double> seriesProcessAutocovariance(const SeriesProcessModel& p, int64_t lags);
// Adds the unit-variance, zero-mean process to s on rows [0, L); v0 starts validation.
//   power: each innovation is drawn once, e_{v0}, e_{v0+1}, … from fwd_seed and e_{v0−1},
//          e_{v0−2}, … (back to row −K) from bwd_seed, so every row keeps its value for any train
//          length, as the AR components do.
//   nonlinear, selective: not time-reversible. Validation and test run forwards from v0 after a
//          burn-in of fwd_seed; the train period runs forwards from row 0 after its own burn-in
//          of bwd_seed: a stretch apart from validation (its windows are a subset of a larger N's
//          while the train period keeps its length, kMinTrainPeriod rows).
// jordan is not added here (synthetic_series.cpp adds it as an AR(2) component).
void addSeriesProcess(const SeriesProcessModel& p, int64_t v0, int64_t L, uint64_t fwd_seed,
                      uint64_t bwd_seed, std::vector<double>& s);
// w_k, k = 1..lags (see Reach above); Monte Carlo over `samples` stretches of teacher_seed.
std::vector<double> seriesSensitivity(const SeriesProcessModel& p, const TaskOptions& options,
                                      int64_t lags, int64_t samples = 4000);
// The reach of the task's process (rem: its AR(1) poles; 0 when it has none).
int64_t seriesReach(const TaskOptions& options);
// "power ARFIMA(0, d=−0.435, 0)": the process and its parameters, one line.
std::string seriesProcessFormula(const SeriesProcessModel& p, const TaskOptions& options);

}  // namespace rsalab
