// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/theta.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/core/forecast/forecast.h"
#include "engine/core/forecast/minimise.h"
#include "engine/core/forecast/series_tools.h"

namespace rsalab::forecast {
namespace theta {
namespace {

constexpr double kAlphaLow = 1e-4, kAlphaHigh = 0.9999;
constexpr double kOneSided95 = 1.6448536269514722;  // the standard normal's 95 % quantile

bool testsSeasonal(const std::vector<double>& y, int64_t m) {
  const auto n = static_cast<int64_t>(y.size());
  if (m < 2 || n <= 2 * m || isConstant(y)) return false;
  const auto r = autocorrelations(y, m);
  double sum = 0;
  for (int64_t k = 0; k + 1 < m; ++k) sum += r[static_cast<size_t>(k)] * r[static_cast<size_t>(k)];
  const double standard_error = std::sqrt((1 + 2 * sum) / static_cast<double>(n));
  return std::abs(r[static_cast<size_t>(m - 1)]) > kOneSided95 * standard_error;
}

}  // namespace

Fit fit(const std::vector<double>& y, int64_t period) {
  const auto n = static_cast<int64_t>(y.size());
  if (n < 4 || isConstant(y))
    throw std::runtime_error("Theta: the series is constant or too short");
  Fit f;
  f.period = std::max<int64_t>(1, period);
  f.index.assign(static_cast<size_t>(f.period), 1.0);
  // The classical decomposition is multiplicative: it needs positive data (a ratio to a moving
  // average near zero makes an index of any sign and size).
  const bool positive = std::all_of(y.begin(), y.end(), [](double v) { return v > 0; });
  if (positive && testsSeasonal(y, f.period)) {
    const auto index = classicalSeasonalIndices(y, f.period, /*multiplicative=*/true);
    // An index of about zero cannot divide the series: then the series is taken as it is.
    const bool usable =
        std::all_of(index.begin(), index.end(), [](double s) { return std::abs(s) >= 1e-4; });
    if (usable) {
      f.seasonal = true;
      f.index = index;
    }
  }
  std::vector<double> x(y.size());
  for (int64_t t = 0; t < n; ++t)
    x[static_cast<size_t>(t)] =
        y[static_cast<size_t>(t)] / f.index[static_cast<size_t>(t % f.period)];

  // SES: α and ℓ₀ minimise the sum of squared one-step errors.
  const Objective sse = [&](const std::vector<double>& v) {
    const double alpha = v[0];
    if (!(alpha >= kAlphaLow && alpha <= kAlphaHigh))
      return std::numeric_limits<double>::infinity();
    double level = v[1], sum = 0;
    for (double value : x) {
      const double e = value - level;
      sum += e * e;
      level += alpha * e;
    }
    return sum;
  };
  const double spread = std::sqrt(populationVariance(x));
  const std::vector<double> start{0.5, x.front()};
  const std::vector<double> scale{0.2, std::max(0.2 * spread, 1e-6 * std::abs(x.front()) + 1e-12)};
  SimplexOptions options;
  options.size_tolerance = 1e-8;
  MinimiseResult best = minimiseSimplex(sse, start, scale, options);
  const MinimiseResult again = minimiseSimplex(sse, best.x, {0.05, scale[1] * 0.1}, options);
  if (again.value < best.value) best = again;
  f.alpha = best.x[0];
  f.level0 = best.x[1];
  f.drift = fitLine(x.data(), n).slope / 2;
  return f;
}

}  // namespace theta

UnivariateForecast thetaForecast(const UnivariateProblem& p) {
  checkProblem(p);
  const theta::Fit f =
      theta::fit(std::vector<double>(p.y.begin(), p.y.begin() + p.fit_end), p.period);
  const auto H = static_cast<size_t>(p.horizon);
  const auto m = static_cast<size_t>(f.period);
  UnivariateForecast out;
  out.mean.resize(p.origins.size() * H);
  double level = f.level0;
  size_t k = 0;
  for (size_t t = 0; t < p.y.size() && k < p.origins.size(); ++t) {
    level += f.alpha * (p.y[t] / f.index[t % m] - level);
    if (p.origins[k] != static_cast<int64_t>(t)) continue;
    // The drift's weight from an origin with t + 1 observations.
    const double settled = (1 - std::pow(1 - f.alpha, static_cast<double>(t + 1))) / f.alpha;
    for (size_t h = 1; h <= H; ++h)
      out.mean[k * H + h - 1] =
          (level + f.drift * (static_cast<double>(h - 1) + settled)) * f.index[(t + h) % m];
    ++k;
  }
  out.model = f.seasonal ? "Theta (deseasonalised, m = " + std::to_string(f.period) + ")" : "Theta";
  return out;
}

}  // namespace rsalab::forecast
