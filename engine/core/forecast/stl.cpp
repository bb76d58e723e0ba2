// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/stl.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/core/forecast/series_tools.h"

namespace rsalab::forecast {
namespace {

int64_t nextOdd(int64_t v) { return v % 2 == 1 ? v : v + 1; }

// The loess fit at position x (any real, possibly outside 0 … n−1) of the values v at positions
// 0 … n−1, from the q nearest positions with tricube weights; degree 0 or 1.
double loessAt(const std::vector<double>& v, int64_t q, int degree, double x) {
  const auto n = static_cast<int64_t>(v.size());
  int64_t lo = 0, hi = n - 1;
  if (q < n) {
    lo = std::clamp<int64_t>(static_cast<int64_t>(std::floor(x)) - (q - 1) / 2, 0, n - q);
    hi = lo + q - 1;
    // Slide the window while the point past its far end is nearer than its near end.
    while (hi + 1 < n &&
           std::abs(static_cast<double>(hi + 1) - x) < std::abs(x - static_cast<double>(lo)))
      ++lo, ++hi;
    while (lo > 0 &&
           std::abs(x - static_cast<double>(lo - 1)) < std::abs(static_cast<double>(hi) - x))
      --lo, --hi;
  }
  double reach = std::max(x - static_cast<double>(lo), static_cast<double>(hi) - x);
  if (q > n) reach *= static_cast<double>(q) / static_cast<double>(n);
  if (!(reach > 0)) return v[static_cast<size_t>(std::clamp<int64_t>(std::llround(x), 0, n - 1))];
  double sw = 0, sx = 0, sy = 0;
  thread_local std::vector<double> weight;
  weight.assign(static_cast<size_t>(hi - lo + 1), 0.0);
  for (int64_t i = lo; i <= hi; ++i) {
    const double u = std::abs(static_cast<double>(i) - x) / reach;
    const double w = u < 1 ? std::pow(1 - u * u * u, 3) : 0.0;
    weight[static_cast<size_t>(i - lo)] = w;
    sw += w;
    sx += w * static_cast<double>(i);
    sy += w * v[static_cast<size_t>(i)];
  }
  if (!(sw > 0)) return v[static_cast<size_t>(std::clamp<int64_t>(std::llround(x), 0, n - 1))];
  const double mx = sx / sw, my = sy / sw;
  if (degree == 0) return my;
  double sxx = 0, sxy = 0;
  for (int64_t i = lo; i <= hi; ++i) {
    const double w = weight[static_cast<size_t>(i - lo)], dx = static_cast<double>(i) - mx;
    sxx += w * dx * dx;
    sxy += w * dx * (v[static_cast<size_t>(i)] - my);
  }
  // A window too narrow for a slope (all weight on nearly one position): its weighted mean.
  if (!(sxx > 1e-8 * reach * reach * sw)) return my;
  return my + sxy / sxx * (x - mx);
}

std::vector<double> loessSmooth(const std::vector<double>& v, int64_t q, int degree) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = loessAt(v, q, degree, static_cast<double>(i));
  return out;
}

// The moving average of length k: out[i] = mean(v[i … i + k − 1]), length |v| − k + 1.
std::vector<double> movingAverage(const std::vector<double>& v, int64_t k) {
  std::vector<double> out;
  if (static_cast<int64_t>(v.size()) < k) return out;
  double sum = 0;
  for (int64_t i = 0; i < k; ++i) sum += v[static_cast<size_t>(i)];
  out.push_back(sum / static_cast<double>(k));
  for (size_t i = static_cast<size_t>(k); i < v.size(); ++i) {
    sum += v[i] - v[i - static_cast<size_t>(k)];
    out.push_back(sum / static_cast<double>(k));
  }
  return out;
}

}  // namespace

Decomposition stlDecompose(const std::vector<double>& y, int64_t m, int64_t seasonal_window) {
  const auto N = static_cast<int64_t>(y.size());
  if (m < 2 || N < 2 * m) throw std::invalid_argument("STL needs two full periods");
  const int64_t ns = nextOdd(std::max<int64_t>(seasonal_window, 7));
  const int64_t nl = nextOdd(m);
  const int64_t nt = nextOdd(static_cast<int64_t>(
      std::ceil(1.5 * static_cast<double>(m) / (1 - 1.5 / static_cast<double>(ns)))));
  Decomposition out;
  out.trend.assign(y.size(), 0.0);
  out.seasonal.assign(y.size(), 0.0);
  std::vector<double> cycle(static_cast<size_t>(N + 2 * m));
  for (int pass = 0; pass < 2; ++pass) {
    // Steps 1–2: the cycle-subseries of the detrended series, each smoothed one step past its ends.
    for (int64_t j = 0; j < m; ++j) {
      std::vector<double> sub;
      for (int64_t t = j; t < N; t += m)
        sub.push_back(y[static_cast<size_t>(t)] - out.trend[static_cast<size_t>(t)]);
      const auto length = static_cast<int64_t>(sub.size());
      for (int64_t i = -1; i <= length; ++i)
        cycle[static_cast<size_t>(j + i * m + m)] = loessAt(sub, ns, 0, static_cast<double>(i));
    }
    // Step 3: the low-pass filter of the smoothed cycle-subseries.
    const auto low =
        loessSmooth(movingAverage(movingAverage(movingAverage(cycle, m), m), 3), nl, 1);
    // Steps 4–6: seasonal, deseasonalised, trend.
    std::vector<double> deseasonalised(y.size());
    for (int64_t t = 0; t < N; ++t) {
      const auto i = static_cast<size_t>(t);
      out.seasonal[i] = cycle[static_cast<size_t>(t + m)] - low[i];
      deseasonalised[i] = y[i] - out.seasonal[i];
    }
    out.trend = loessSmooth(deseasonalised, nt, 1);
  }
  out.remainder.resize(y.size());
  for (size_t i = 0; i < y.size(); ++i) out.remainder[i] = y[i] - out.trend[i] - out.seasonal[i];
  return out;
}

double seasonalStrength(const std::vector<double>& y, int64_t period) {
  // The seasonal window: 11, a moderately stable season (the smallest recommended is 7).
  const auto parts = stlDecompose(y, period, 11);
  std::vector<double> detrended(y.size());
  for (size_t i = 0; i < y.size(); ++i) detrended[i] = parts.seasonal[i] + parts.remainder[i];
  const double total = populationVariance(detrended);
  if (!(total > 0)) return 0;
  return std::max(0.0, 1 - populationVariance(parts.remainder) / total);
}

}  // namespace rsalab::forecast
