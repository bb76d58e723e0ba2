// SPDX-License-Identifier: GPL-3.0-or-later
// The theta anchor: forecast::thetaf (Hyndman & Billah 2003) with its parameters fitted on
// y[0, fit_end) and then fixed (forecast.h's protocol). scripts/anchors-r.R emulates the same
// thing in R and checks it against thetaf itself; every step below follows thetaf in forecast
// 8.20 (print(forecast::thetaf)):
//   1. seasonality test on the fit part x (n rows), only when m > 1, x is not constant and
//      n > 2m: r_k = acf(x) at lag k, stat = sqrt((1 + 2 Σ_{k<m} r_k²) / n), seasonal when
//      |r_m| / stat > qnorm(0.95);
//   2. if seasonal, classical multiplicative decomposition of x (stats::decompose): centred
//      moving average of order m (2×m for even m) as the trend, the ratios x / trend averaged
//      per position t mod m, normalised to mean 1. These indices, continued periodically,
//      deseasonalise the whole series (thetaf falls back to no season if one is below 1e-4);
//   3. SES on the deseasonalised fit part as ses() fits it: ets(x, "ANN", opt.crit = "mse"),
//      i.e. alpha in [1e-4, 0.9999] and the initial level l0 minimising the mean squared
//      one-step error, from ets's start (alpha 0.2, l0 the mean of the first 10 rows);
//   4. drift b = half the least-squares slope of x on 0 .. n−1;
//   5. from an origin with n_o = o + 1 observations, horizon h forecasts
//        (level + b ((h − 1) + (1 − (1 − α)^n_o) / α)) · index of the target row.
//      thetaf's n is the length of the series it forecasts from; with fixed parameters that is
//      the number of rows up to the origin (so the train-end origin reproduces thetaf).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/forecast/forecast.h"
#include "core/forecast/optimise.h"

namespace rsalab::forecast {
namespace {

constexpr double kAlphaLower = 1e-4, kAlphaUpper = 0.9999;  // ets's "usual" bounds
constexpr double kQnorm95 = 1.6448536269514722;             // qnorm(0.95)

bool isConstant(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); });
}

// stats::acf's estimate at lags 1..max_lag: c_k / c_0 with c_k = Σ (x_t − x̄)(x_{t+k} − x̄) / n.
std::vector<double> autocorrelations(const std::vector<double>& x, int64_t max_lag) {
  const auto n = static_cast<int64_t>(x.size());
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  std::vector<double> d(x.size());
  for (size_t t = 0; t < x.size(); ++t) d[t] = x[t] - mean;
  auto c = [&](int64_t k) {
    double s = 0;
    for (int64_t t = 0; t + k < n; ++t)
      s += d[static_cast<size_t>(t)] * d[static_cast<size_t>(t + k)];
    return s;
  };
  const double c0 = c(0);
  std::vector<double> r(static_cast<size_t>(max_lag));
  for (int64_t k = 1; k <= max_lag; ++k) r[static_cast<size_t>(k - 1)] = c(k) / c0;
  return r;
}

// thetaf's test: is the lag-m autocorrelation significant at 90 % (one-sided 95 %)?
bool testsSeasonal(const std::vector<double>& x, int64_t m) {
  const auto n = static_cast<int64_t>(x.size());
  if (m <= 1 || n <= 2 * m || isConstant(x)) return false;
  const auto r = autocorrelations(x, m);
  double sum = 0;
  for (int64_t k = 1; k < m; ++k)
    sum += r[static_cast<size_t>(k - 1)] * r[static_cast<size_t>(k - 1)];
  const double stat = std::sqrt((1 + 2 * sum) / static_cast<double>(n));
  return std::abs(r[static_cast<size_t>(m - 1)]) / stat > kQnorm95;
}

// stats::decompose(type = "multiplicative")$figure: index i belongs to rows i, i+m, … of x.
// Empty when a trend value is zero or an index is undefined (the caller then drops the season).
std::vector<double> multiplicativeFigure(const std::vector<double>& x, int64_t m) {
  const auto n = static_cast<int64_t>(x.size());
  // Centred moving average: weights 1/m over m rows (odd m), or 1/(2m), 1/m …, 1/(2m) over m + 1
  // rows (even m); rows whose window leaves x have no trend (NA in R), hence no ratio.
  const int64_t half = m / 2;
  std::vector<double> sum(static_cast<size_t>(m), 0.0);
  std::vector<int64_t> count(static_cast<size_t>(m), 0);
  for (int64_t t = half; t + half < n; ++t) {
    double trend = 0;
    if (m % 2 == 1) {
      for (int64_t j = -half; j <= half; ++j) trend += x[static_cast<size_t>(t + j)];
      trend /= static_cast<double>(m);
    } else {
      trend = 0.5 * (x[static_cast<size_t>(t - half)] + x[static_cast<size_t>(t + half)]);
      for (int64_t j = -half + 1; j < half; ++j) trend += x[static_cast<size_t>(t + j)];
      trend /= static_cast<double>(m);
    }
    if (trend == 0) return {};
    sum[static_cast<size_t>(t % m)] += x[static_cast<size_t>(t)] / trend;
    ++count[static_cast<size_t>(t % m)];
  }
  std::vector<double> figure(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    if (count[static_cast<size_t>(i)] == 0) return {};
    figure[static_cast<size_t>(i)] =
        sum[static_cast<size_t>(i)] / static_cast<double>(count[static_cast<size_t>(i)]);
  }
  const double mean = std::accumulate(figure.begin(), figure.end(), 0.0) / static_cast<double>(m);
  for (double& f : figure) f /= mean;
  return figure;
}

// ets ANN's opt.crit = "mse" objective: the mean squared one-step error over x from level l0;
// +inf outside ets's usual bounds on alpha (its Nelder–Mead sees the same wall).
double sesMse(const std::vector<double>& x, double alpha, double l0) {
  if (!(alpha >= kAlphaLower && alpha <= kAlphaUpper) || !std::isfinite(l0))
    return std::numeric_limits<double>::infinity();
  double level = l0, sum = 0;
  for (double v : x) {
    const double e = v - level;
    sum += e * e;
    level += alpha * e;
  }
  return sum / static_cast<double>(x.size());
}

struct ThetaFit {
  std::vector<double> figure;  // m seasonal indices (all 1 when not seasonal)
  bool seasonal = false;
  double alpha = 0, l0 = 0, drift = 0;
};

ThetaFit fitTheta(const std::vector<double>& fit, int64_t m) {
  ThetaFit th;
  th.figure.assign(static_cast<size_t>(m), 1.0);
  std::vector<double> x = fit;
  if (testsSeasonal(fit, m)) {
    const auto figure = multiplicativeFigure(fit, m);
    const bool usable = !figure.empty() && std::all_of(figure.begin(), figure.end(), [](double f) {
      return std::abs(f) >= 1e-4;
    });
    if (usable) {
      th.seasonal = true;
      th.figure = figure;
      for (size_t t = 0; t < x.size(); ++t) x[t] /= figure[t % static_cast<size_t>(m)];
    }
  }
  const auto n = static_cast<int64_t>(x.size());
  // SES from ets's starting point (ets treats ANN as non-seasonal: alpha = 1e-4 + 0.2 · 0.9998,
  // l0 = the mean of the first min(10, n) rows), minimised twice: a Nelder–Mead restart from its
  // own optimum guards against a simplex that collapsed early (against the alpha bound).
  const int64_t first = std::min<int64_t>(10, n);
  const double l_start =
      std::accumulate(x.begin(), x.begin() + first, 0.0) / static_cast<double>(first);
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  // l0 is searched in units of the series' spread so that one tolerance suits both coordinates
  // whatever the series' scale (a deseasonalised series can be exactly constant: spread 0).
  const double spread = std::sqrt(ss / static_cast<double>(n));
  const double unit = spread > 0 ? spread : std::max(1.0, std::abs(l_start));
  auto objective = [&](const std::vector<double>& v) {
    return sesMse(x, v[0], l_start + unit * v[1]);
  };
  MinimiseOptions options;
  options.initial_step = 0.1;
  options.size_tolerance = 1e-9;
  options.max_iterations = 4000;
  auto best = minimiseNelderMead(objective, {kAlphaLower + 0.2 * (kAlphaUpper - kAlphaLower), 0.0},
                                 options);
  options.initial_step = 0.01;
  const auto again = minimiseNelderMead(objective, best.x, options);
  if (again.value <= best.value) best = again;
  if (!std::isfinite(best.value)) throw std::runtime_error("theta: the SES fit failed");
  th.alpha = std::max(1e-10, best.x[0]);
  th.l0 = l_start + unit * best.x[1];
  // Half the least-squares slope of x on 0 .. n−1 (lsfit(0:(n-1), x)$coefficients[2] / 2).
  const double tbar = static_cast<double>(n - 1) / 2;
  double sxy = 0, sxx = 0;
  for (int64_t t = 0; t < n; ++t) {
    const double dt = static_cast<double>(t) - tbar;
    sxy += dt * (x[static_cast<size_t>(t)] - mean);
    sxx += dt * dt;
  }
  th.drift = sxy / sxx / 2;
  return th;
}

}  // namespace

UnivariateForecast thetaForecast(const UnivariateProblem& p) {
  checkProblem(p);
  const int64_t n = p.fit_end, m = p.period, H = p.horizon;
  // ets() needs more rows than its parameters + 4 to fit ANN (alpha, l0): at least 7.
  if (n < 7)
    throw std::runtime_error("theta: the fit part has " + std::to_string(n) +
                             " rows (at least 7 needed)");
  const std::vector<double> fit(p.y.begin(), p.y.begin() + n);
  if (isConstant(fit)) throw std::runtime_error("theta: the fit part is constant");
  const ThetaFit th = fitTheta(fit, m);

  UnivariateForecast out;
  out.model = th.seasonal ? "Theta (deseasonalised, m = " + std::to_string(m) + ")" : "Theta";
  out.mean.assign(p.origins.size() * static_cast<size_t>(H), 0.0);
  const double a = th.alpha;
  auto index = [&](int64_t t) { return th.figure[static_cast<size_t>(t % m)]; };
  // One pass: after row t the level has seen y[0..t] and decay = (1 − α)^(t + 1).
  double level = th.l0, decay = 1;
  size_t k = 0;
  for (int64_t t = 0; t < static_cast<int64_t>(p.y.size()) && k < p.origins.size(); ++t) {
    level += a * (p.y[static_cast<size_t>(t)] / index(t) - level);
    decay *= 1 - a;
    if (p.origins[k] != t) continue;
    const double lift = (1 - decay) / a;
    for (int64_t h = 1; h <= H; ++h) {
      out.mean[k * static_cast<size_t>(H) + static_cast<size_t>(h - 1)] =
          (level + th.drift * (static_cast<double>(h - 1) + lift)) * index(t + h);
    }
    ++k;
  }
  return out;
}

}  // namespace rsalab::forecast
