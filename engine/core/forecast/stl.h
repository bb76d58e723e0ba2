// SPDX-License-Identifier: GPL-3.0-or-later
// STL: seasonal-trend decomposition by loess (Cleveland, Cleveland, McRae & Terpenning, Journal
// of Official Statistics 6(1), 1990), in its non-robust form (two inner passes, no outer
// robustness passes). Each inner pass:
//   1. detrend y − T;
//   2. smooth every cycle-subseries (the values one period apart) by loess with window n_s,
//      one position beyond each end as well, giving C of length N + 2m;
//   3. low-pass C: moving averages of lengths m, m and 3, then loess with window n_l;
//   4. the seasonal S = C (middle N) − low-pass;
//   5. deseasonalise y − S and smooth it by loess with window n_t into the trend T.
// Windows: n_s given (odd, ≥ 7), n_l the smallest odd integer ≥ m, n_t the smallest odd integer
// ≥ 1.5 m / (1 − 1.5 / n_s) (the paper's recommendations). Loess fits a local constant for the
// seasonal smoothing and a local line elsewhere, with tricube weights over the q nearest
// positions (q > N: the distances stretched by q / N).
//
// The seasonal strength of Wang, Smith & Hyndman (2006), used to choose seasonal differencing:
//   F_S = max(0, 1 − Var(R) / Var(S + R)),  R = y − T − S.
#pragma once

#include <cstdint>
#include <vector>

namespace rsalab::forecast {

struct Decomposition {
  std::vector<double> trend, seasonal, remainder;
};

// Needs period ≥ 2 and at least two full periods.
Decomposition stlDecompose(const std::vector<double>& y, int64_t period, int64_t seasonal_window);

double seasonalStrength(const std::vector<double>& y, int64_t period);

}  // namespace rsalab::forecast
