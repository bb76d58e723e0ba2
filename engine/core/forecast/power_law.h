// SPDX-License-Identifier: GPL-3.0-or-later
// Power-law fit of sample-efficiency curves: loss ≈ a·N^(−b), least squares on (log N, log loss),
// with a t-based 95% confidence interval for b. Torch-free: the engine's sweeps, the GUI's
// sample-efficiency view and the CLI's figures share this one implementation.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rsalab {

struct PowerLawFit {
  std::string model;
  // A sweep with a task axis fits per (model, axis value); NaN without one.
  double axis_value = std::numeric_limits<double>::quiet_NaN();
  double a = 0, b = 0;           // loss ≈ a·N^(−b)
  double b_low = 0, b_high = 0;  // 95% confidence interval of b
  double r2 = 0;
  int64_t points = 0;  // points used (N > 0, finite loss > 0)
};

// Least squares on (log N, log loss); the CI uses Student's t with n−2 degrees of freedom.
// Points with N <= 0 or a non-finite / non-positive loss are skipped. With fewer than 2 usable
// points (or a single distinct N) a, b stay 0; with exactly 2 the CI collapses to b.
PowerLawFit fitPowerLaw(const std::vector<double>& sizes, const std::vector<double>& losses);

// Two-sided 97.5% quantile of Student's t with `df` degrees of freedom (1.96 past 30; NaN < 1).
double studentT975(int64_t df);

}  // namespace rsalab
