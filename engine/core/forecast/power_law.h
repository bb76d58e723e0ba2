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
  // fitPowerLawPerSeed: the seeds fitted, each with its own b (seed_ids[k]'s is seed_b[k]).
  // Empty: a pooled fit (fitPowerLaw; the sweeps' fits in records written before 2026-11-29).
  std::vector<uint64_t> seed_ids;
  std::vector<double> seed_b;
  int64_t seeds() const { return static_cast<int64_t>(seed_ids.size()); }
};

// Least squares on (log N, log loss); the CI uses Student's t with n−2 degrees of freedom.
// Points with N <= 0 or a non-finite / non-positive loss are skipped. With fewer than 2 usable
// points (or a single distinct N) a, b stay 0; with exactly 2 the CI collapses to b.
// Pooled over seeds this treats every (N, seed) point as independent, which they are not (the
// N of one seed share its test set and initialisation): a sweep fits per seed instead.
PowerLawFit fitPowerLaw(const std::vector<double>& sizes, const std::vector<double>& losses);

// The fewest distinct training-set sizes a power law is fitted on: with 2 the line is exact and
// has no residual to judge it by.
constexpr int64_t kPowerLawMinSizes = 3;

// One run of a sweep: its N, seed and loss (the test loss or the excess over the Bayes floor).
struct PowerLawPoint {
  double size = 0;
  uint64_t seed = 0;
  double loss = 0;
};

// The seed is the unit: each seed's own fitPowerLaw over its points, kept when its usable points
// (N > 0, finite loss > 0) span kPowerLawMinSizes distinct N or more; then b = the mean of the
// kept seeds' b, [b_low, b_high] = b ± t(0.975, s − 1)·sd/√s over the s kept seeds (NaN with one
// seed: no interval), a = exp(mean of their log a), r2 = the mean of their R², points = the points
// they used, seed_ids / seed_b each seed's b in ascending seed order. No seed kept: points 0,
// a = b = 0 and no interval (NaN).
PowerLawFit fitPowerLawPerSeed(const std::vector<PowerLawPoint>& points);

// Two-sided 97.5% quantile of Student's t with `df` degrees of freedom (1.96 past 30; NaN < 1).
double studentT975(int64_t df);

}  // namespace rsalab
