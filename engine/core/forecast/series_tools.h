// SPDX-License-Identifier: GPL-3.0-or-later
// Small pieces shared by the forecasting anchors (engine/core/forecast/forecast.h): sample moments
// and autocorrelations, a least-squares line, the classical seasonal indices (centred moving
// average, then the average ratio or difference per season), and polynomial stability through
// partial autocorrelations (the Durbin–Levinson recursion and its inverse, the Schur–Cohn
// step-down).
#pragma once

#include <cstdint>
#include <vector>

namespace rsalab::forecast {

double sampleMean(const std::vector<double>& x);
// Σ (x − x̄)² / n (the divisor n, as in the autocorrelation estimator below).
double populationVariance(const std::vector<double>& x);
bool isConstant(const std::vector<double>& x);

// r_1 … r_maxLag with r_k = Σ_t (x_t − x̄)(x_{t+k} − x̄) / Σ_t (x_t − x̄)² (the usual estimator,
// both sums over the whole series).
std::vector<double> autocorrelations(const std::vector<double>& x, int64_t max_lag);

struct Line {
  double intercept = 0, slope = 0;  // y ≈ intercept + slope · t
};
// Least squares of y[0..n) on t = first_t, first_t + 1, …
Line fitLine(const double* y, int64_t n, double first_t = 0);

// The centred moving average of order m (for an even m the 2×m average: m + 1 weights, the two
// end ones halved); NaN where the window does not fit.
std::vector<double> centredMovingAverage(const std::vector<double>& x, int64_t m);

// Classical seasonal indices of x: index j belongs to the rows t ≡ j (mod m), counted from x[0].
// Each is the mean, over the rows of its season where the centred moving average exists, of
// x / average (multiplicative) or x − average (additive), then normalised to mean 1 or 0.
// Needs at least 2m rows.
std::vector<double> classicalSeasonalIndices(const std::vector<double>& x, int64_t m,
                                             bool multiplicative);

// Partial autocorrelations r (each in (−1, 1)) to the coefficients a of a stationary AR
// polynomial 1 − a_1 z − … − a_k z^k (Durbin–Levinson).
std::vector<double> coefficientsFromPartials(const std::vector<double>& r);

// True when every root of 1 + c_1 z + … + c_k z^k lies outside the circle |z| = radius: the
// step-down recursion (the inverse of Durbin–Levinson) on the coefficients scaled to that circle
// must give partial autocorrelations strictly inside (−1, 1). Trailing zeros are ignored.
bool rootsOutside(const std::vector<double>& c, double radius = 1.0);

}  // namespace rsalab::forecast
