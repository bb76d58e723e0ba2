// SPDX-License-Identifier: GPL-3.0-or-later
// The Theta method (Assimakopoulos & Nikolopoulos 2000) in the form Hyndman & Billah (2003)
// showed it to be: simple exponential smoothing plus a drift of half the slope of the series'
// least-squares line, on a series first divided by classical multiplicative seasonal indices when
// it tests seasonal. From an origin with n observations the forecast h steps ahead is
//   (ℓ_n + b ((h − 1) + (1 − (1 − α)^n) / α)) · s_{n+h},
// ℓ_n the smoothed level, b the drift, s the seasonal index of the target (1 without a season).
// The seasonality test: the lag-m autocorrelation r_m of the fit part against its standard error
// under "no autocorrelation beyond lag m − 1", √((1 + 2 Σ_{k<m} r_k²) / n); seasonal when
// |r_m| exceeds 1.645 of them (one-sided 5 %), only for m > 1, n > 2m and positive data (the
// decomposition is multiplicative).
#pragma once

#include <cstdint>
#include <vector>

namespace rsalab::forecast::theta {

struct Fit {
  bool seasonal = false;
  int64_t period = 1;
  std::vector<double> index;  // index[t mod period] divides y_t (all 1 without a season)
  double alpha = 0.5;         // the smoothing weight, in [1e−4, 0.9999]
  double level0 = 0;          // the level before the first observation
  double drift = 0;           // b: half the line's slope on the adjusted fit part
};

// Fits on y (the fit part): the seasonality test, the indices, SES by least squares of the
// one-step errors (α and ℓ₀ together), the drift. Throws std::runtime_error for a constant or
// too short series.
Fit fit(const std::vector<double>& y, int64_t period);

}  // namespace rsalab::forecast::theta
