// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/series_tools.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace rsalab::forecast {

double sampleMean(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v;
  return x.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(x.size());
}

double populationVariance(const std::vector<double>& x) {
  const double mean = sampleMean(x);
  double sum = 0;
  for (double v : x) sum += (v - mean) * (v - mean);
  return x.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(x.size());
}

bool isConstant(const std::vector<double>& x) {
  for (double v : x)
    if (v != x.front()) return false;
  return true;
}

std::vector<double> autocorrelations(const std::vector<double>& x, int64_t max_lag) {
  const auto n = static_cast<int64_t>(x.size());
  const double mean = sampleMean(x);
  double c0 = 0;
  for (double v : x) c0 += (v - mean) * (v - mean);
  std::vector<double> r(static_cast<size_t>(std::max<int64_t>(max_lag, 0)), 0.0);
  if (!(c0 > 0)) return r;
  for (int64_t k = 1; k <= max_lag && k < n; ++k) {
    double ck = 0;
    for (int64_t t = 0; t + k < n; ++t)
      ck += (x[static_cast<size_t>(t)] - mean) * (x[static_cast<size_t>(t + k)] - mean);
    r[static_cast<size_t>(k - 1)] = ck / c0;
  }
  return r;
}

Line fitLine(const double* y, int64_t n, double first_t) {
  Line line;
  if (n < 1) return line;
  // Centred time makes the normal equations diagonal.
  const double t_mean = first_t + 0.5 * static_cast<double>(n - 1);
  double y_mean = 0;
  for (int64_t i = 0; i < n; ++i) y_mean += y[i];
  y_mean /= static_cast<double>(n);
  double sty = 0, stt = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double dt = first_t + static_cast<double>(i) - t_mean;
    sty += dt * (y[i] - y_mean);
    stt += dt * dt;
  }
  line.slope = stt > 0 ? sty / stt : 0;
  line.intercept = y_mean - line.slope * t_mean;
  return line;
}

std::vector<double> centredMovingAverage(const std::vector<double>& x, int64_t m) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<double> out(x.size(), std::numeric_limits<double>::quiet_NaN());
  if (m < 1) return out;
  std::vector<double> prefix(x.size() + 1, 0.0);  // prefix[i] = x[0] + … + x[i−1]
  for (int64_t i = 0; i < n; ++i)
    prefix[static_cast<size_t>(i + 1)] = prefix[static_cast<size_t>(i)] + x[static_cast<size_t>(i)];
  auto sum = [&](int64_t a, int64_t b) {  // x[a] + … + x[b]
    return prefix[static_cast<size_t>(b + 1)] - prefix[static_cast<size_t>(a)];
  };
  const int64_t half = m / 2;
  for (int64_t t = half; t + half < n; ++t) {
    if (m % 2 == 1) {
      out[static_cast<size_t>(t)] = sum(t - half, t + half) / static_cast<double>(m);
    } else {
      const double inner = sum(t - half + 1, t + half - 1);
      const double ends =
          0.5 * (x[static_cast<size_t>(t - half)] + x[static_cast<size_t>(t + half)]);
      out[static_cast<size_t>(t)] = (inner + ends) / static_cast<double>(m);
    }
  }
  return out;
}

std::vector<double> classicalSeasonalIndices(const std::vector<double>& x, int64_t m,
                                             bool multiplicative) {
  const auto n = static_cast<int64_t>(x.size());
  if (m < 2 || n < 2 * m)
    throw std::invalid_argument("seasonal indices need at least two full seasons");
  const auto average = centredMovingAverage(x, m);
  std::vector<double> sum(static_cast<size_t>(m), 0.0), count(static_cast<size_t>(m), 0.0);
  for (int64_t t = 0; t < n; ++t) {
    const double a = average[static_cast<size_t>(t)];
    if (!std::isfinite(a)) continue;
    const double v = multiplicative ? x[static_cast<size_t>(t)] / a : x[static_cast<size_t>(t)] - a;
    sum[static_cast<size_t>(t % m)] += v;
    count[static_cast<size_t>(t % m)] += 1;
  }
  std::vector<double> index(static_cast<size_t>(m));
  double total = 0;
  for (size_t j = 0; j < index.size(); ++j) {
    index[j] = sum[j] / count[j];
    total += index[j];
  }
  const double centre = total / static_cast<double>(m);
  for (double& v : index) v = multiplicative ? v / centre : v - centre;
  return index;
}

std::vector<double> coefficientsFromPartials(const std::vector<double>& r) {
  std::vector<double> a, previous;
  for (size_t k = 0; k < r.size(); ++k) {
    previous = a;
    a.push_back(r[k]);
    for (size_t j = 0; j < k; ++j) a[j] = previous[j] - r[k] * previous[k - 1 - j];
  }
  return a;
}

bool rootsOutside(const std::vector<double>& c, double radius) {
  size_t k = c.size();
  while (k > 0 && c[k - 1] == 0.0) --k;
  // As an AR polynomial 1 − a_1 z − … on the circle of the given radius: a_j = −c_j radius^j.
  std::vector<double> a(k), next(k);
  double scale = 1;
  for (size_t j = 0; j < k; ++j) {
    scale *= radius;
    a[j] = -c[j] * scale;
    if (!std::isfinite(a[j])) return false;
  }
  for (size_t order = k; order > 0; --order) {
    const double r = a[order - 1];
    if (!(std::abs(r) < 1)) return false;
    const double denominator = 1 - r * r;
    for (size_t j = 0; j + 1 < order; ++j) next[j] = (a[j] + r * a[order - 2 - j]) / denominator;
    for (size_t j = 0; j + 1 < order; ++j) a[j] = next[j];
  }
  return true;
}

}  // namespace rsalab::forecast
