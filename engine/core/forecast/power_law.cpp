// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/power_law.h"

#include <cmath>
#include <map>
#include <set>

namespace rsalab {

double studentT975(int64_t df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return NAN;
  return df <= 30 ? table[df - 1] : 1.96;
}

PowerLawFit fitPowerLaw(const std::vector<double>& sizes, const std::vector<double>& losses) {
  PowerLawFit fit;
  std::vector<double> x, y;
  for (size_t i = 0; i < sizes.size() && i < losses.size(); ++i) {
    if (sizes[i] > 0 && losses[i] > 0 && std::isfinite(losses[i])) {
      x.push_back(std::log(sizes[i]));
      y.push_back(std::log(losses[i]));
    }
  }
  const auto n = static_cast<int64_t>(x.size());
  fit.points = n;
  if (n < 2) return fit;
  double mx = 0, my = 0;
  for (int64_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (int64_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return fit;
  const double slope = sxy / sxx, intercept = my - slope * mx;
  fit.b = -slope;
  fit.a = std::exp(intercept);
  double ssr = 0;
  for (int64_t i = 0; i < n; ++i) ssr += std::pow(y[i] - (intercept + slope * x[i]), 2);
  fit.r2 = syy > 0 ? 1 - ssr / syy : 1;
  if (n > 2) {
    const double se = std::sqrt(ssr / static_cast<double>(n - 2) / sxx);
    const double half = studentT975(n - 2) * se;
    fit.b_low = fit.b - half;
    fit.b_high = fit.b + half;
  } else {
    fit.b_low = fit.b_high = fit.b;
  }
  return fit;
}

PowerLawFit fitPowerLawPerSeed(const std::vector<PowerLawPoint>& points) {
  std::map<uint64_t, std::pair<std::vector<double>, std::vector<double>>> by_seed;
  for (const auto& p : points) {
    auto& [sizes, losses] = by_seed[p.seed];
    sizes.push_back(p.size);
    losses.push_back(p.loss);
  }
  PowerLawFit out;
  out.b_low = out.b_high = NAN;
  double log_a = 0, r2 = 0;
  for (const auto& [seed, p] : by_seed) {
    std::set<double> distinct;
    for (size_t k = 0; k < p.first.size(); ++k)
      if (p.first[k] > 0 && p.second[k] > 0 && std::isfinite(p.second[k]))
        distinct.insert(p.first[k]);
    if (static_cast<int64_t>(distinct.size()) < kPowerLawMinSizes) continue;
    const PowerLawFit fit = fitPowerLaw(p.first, p.second);
    out.seed_ids.push_back(seed);
    out.seed_b.push_back(fit.b);
    out.points += fit.points;
    log_a += std::log(fit.a);
    r2 += fit.r2;
  }
  const auto s = static_cast<int64_t>(out.seed_b.size());
  if (s == 0) return out;
  double mean = 0;
  for (double b : out.seed_b) mean += b;
  mean /= static_cast<double>(s);
  out.b = mean;
  out.a = std::exp(log_a / static_cast<double>(s));
  out.r2 = r2 / static_cast<double>(s);
  if (s >= 2) {
    double ss = 0;
    for (double b : out.seed_b) ss += (b - mean) * (b - mean);
    const double half = studentT975(s - 1) * std::sqrt(ss / static_cast<double>(s - 1) / s);
    out.b_low = mean - half;
    out.b_high = mean + half;
  }
  return out;
}

}  // namespace rsalab
