// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/baselines.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "engine/core/forecast/skill_interval.h"
#include "engine/core/io/calendar.h"

namespace rsalab {
namespace {

struct Series {
  const std::vector<double>& v;
  int64_t C, L;
  // Row r of column c; rows before 0 read as row 0.
  double at(int64_t r, int64_t c) const {
    return v[static_cast<size_t>(std::max<int64_t>(r, 0) * C + c)];
  }
};

// Solves (A + ridge·I) X = B in place for a symmetric positive semi-definite A (n × n) and B
// (n × m), both row-major, by Cholesky; ridge = 1e−8 of A's mean diagonal (at least 1e−12).
std::vector<double> solveRidge(std::vector<double> A, std::vector<double> B, int64_t n, int64_t m) {
  double trace = 0;
  for (int64_t i = 0; i < n; ++i) trace += A[static_cast<size_t>(i * n + i)];
  const double ridge = std::max(1e-12, 1e-8 * trace / static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i * n + i)] += ridge;
  auto a = [&](int64_t i, int64_t j) -> double& { return A[static_cast<size_t>(i * n + j)]; };
  for (int64_t j = 0; j < n; ++j) {  // A = L Lᵀ, L in the lower triangle
    double d = a(j, j);
    for (int64_t k = 0; k < j; ++k) d -= a(j, k) * a(j, k);
    d = std::sqrt(std::max(d, 1e-300));
    a(j, j) = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (int64_t k = 0; k < j; ++k) s -= a(i, k) * a(j, k);
      a(i, j) = s / d;
    }
  }
  auto b = [&](int64_t i, int64_t j) -> double& { return B[static_cast<size_t>(i * m + j)]; };
  for (int64_t col = 0; col < m; ++col) {
    for (int64_t i = 0; i < n; ++i) {  // L y = b
      double s = b(i, col);
      for (int64_t k = 0; k < i; ++k) s -= a(i, k) * b(k, col);
      b(i, col) = s / a(i, i);
    }
    for (int64_t i = n - 1; i >= 0; --i) {  // Lᵀ x = y
      double s = b(i, col);
      for (int64_t k = i + 1; k < n; ++k) s -= a(k, i) * b(k, col);
      b(i, col) = s / a(i, i);
    }
  }
  return B;
}

// Weights (p + 1) × H, row-major: column h−1 holds {intercept, φ_1 … φ_p} for step h.
std::vector<double> fitAr(const SeriesBaselineInput& in, int64_t column, int64_t p, int64_t H) {
  const Series z{in.values, in.columns, static_cast<int64_t>(in.values.size()) / in.columns};
  const int64_t n = p + 1;
  std::vector<double> xtx(static_cast<size_t>(n * n), 0.0), xty(static_cast<size_t>(n * H), 0.0);
  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t s : in.train_starts) {
    const int64_t last = s + in.length - 1;  // the window's last input row
    row[0] = 1.0;
    for (int64_t i = 1; i <= p; ++i) row[static_cast<size_t>(i)] = z.at(last + 1 - i, column);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j)
        xtx[static_cast<size_t>(i * n + j)] +=
            row[static_cast<size_t>(i)] * row[static_cast<size_t>(j)];
      for (int64_t h = 1; h <= H; ++h)
        xty[static_cast<size_t>(i * H + h - 1)] +=
            row[static_cast<size_t>(i)] * z.at(last + h, column);
    }
  }
  return solveRidge(std::move(xtx), std::move(xty), n, H);
}

// The one-step residual sum of squares of AR(p) over the training windows, summed over columns.
double arResidualSquares(const SeriesBaselineInput& in, int64_t p) {
  const Series z{in.values, in.columns, static_cast<int64_t>(in.values.size()) / in.columns};
  double rss = 0;
  for (int64_t c = 0; c < in.columns; ++c) {
    const auto w = fitAr(in, c, p, 1);
    for (int64_t s : in.train_starts) {
      const int64_t last = s + in.length - 1;
      double f = w[0];
      for (int64_t i = 1; i <= p; ++i) f += w[static_cast<size_t>(i)] * z.at(last + 1 - i, c);
      const double e = z.at(last + 1, c) - f;
      rss += e * e;
    }
  }
  return rss;
}

struct ArOrder {
  int64_t p = 1;
  std::string how;
};

// p = ar_order when given; otherwise the AICc choice over p = 1 .. min(T, 10·log10 N) on the
// training windows' one-step fit (every p scored on the same N samples, so the AICc compare).
// AR(T) by default fitted noise: at N ≈ T it exploded (AirPassengers, N = 32: MSE 0.92).
ArOrder arOrder(const SeriesBaselineInput& in) {
  if (in.ar_order > 0) return {std::min(in.ar_order, in.length), "given"};
  const auto N = static_cast<double>(in.train_starts.size()) * static_cast<double>(in.columns);
  const int64_t cap = static_cast<int64_t>(std::floor(10.0 * std::log10(std::max(N, 1.0))));
  const int64_t p_max = std::max<int64_t>(1, std::min(in.length, cap));
  ArOrder best{1, "by AICc"};
  double best_aicc = std::numeric_limits<double>::infinity();
  for (int64_t p = 1; p <= p_max; ++p) {
    const double k = static_cast<double>(p + 2) * static_cast<double>(in.columns);
    if (N - k - 1 <= 0) break;
    const double rss = std::max(arResidualSquares(in, p), 1e-300);
    const double aicc = N * std::log(rss / N) + 2 * k + 2 * k * (k + 1) / (N - k - 1);
    if (aicc < best_aicc) best_aicc = aicc, best.p = p;
  }
  return best;
}

void checkRows(const std::vector<int64_t>& rows, int64_t lo, int64_t hi, const char* what) {
  for (int64_t r : rows) {
    if (r < lo || r > hi) {
      throw std::invalid_argument(std::string("baselines: ") + what + " " + std::to_string(r) +
                                  " lies outside rows " + std::to_string(lo) + ".." +
                                  std::to_string(hi));
    }
  }
}

}  // namespace

SeasonalPeriod choosePeriod(int64_t given, const CalendarPeriod& calendar, int64_t train_rows) {
  if (given > 0) return {given, "given by --period"};
  if (calendar.period < 1)
    return {0, calendar.column.empty() ? "no time column" : calendar.problem};
  if (calendar.period > 1 && train_rows < 2 * calendar.period) {
    return {1, "from the time column '" + calendar.column + "' (" + calendar.step +
                   " steps, but the " + std::to_string(train_rows) +
                   " train rows hold fewer than two seasons of " + std::to_string(calendar.period) +
                   "; seasonal naive = persistence)"};
  }
  return {calendar.period, calendar.rule()};
}

PeriodEstimate detectSeasonalPeriod(const std::vector<double>& values, int64_t columns,
                                    int64_t rows) {
  PeriodEstimate best;
  if (columns < 1 || rows < 8) return best;
  const int64_t n = rows - 1;                                 // differences
  const int64_t max_lag = std::min<int64_t>(rows / 3, 1000);  // O(rows · max_lag)
  std::vector<double> acf(static_cast<size_t>(max_lag + 2), 0.0);
  for (int64_t c = 0; c < columns; ++c) {
    std::vector<double> d(static_cast<size_t>(n));
    double mean = 0;
    for (int64_t t = 0; t < n; ++t) {
      d[static_cast<size_t>(t)] = values[static_cast<size_t>((t + 1) * columns + c)] -
                                  values[static_cast<size_t>(t * columns + c)];
      mean += d[static_cast<size_t>(t)];
    }
    mean /= static_cast<double>(n);
    double var = 0;
    for (auto& x : d) {
      x -= mean;
      var += x * x;
    }
    if (var <= 1e-300) continue;  // a straight line: no season in this column
    for (int64_t k = 1; k <= max_lag + 1 && k < n; ++k) {
      double s = 0;
      for (int64_t t = k; t < n; ++t)
        s += d[static_cast<size_t>(t)] * d[static_cast<size_t>(t - k)];
      acf[static_cast<size_t>(k)] += s / var / static_cast<double>(columns);
    }
  }
  std::vector<PeriodEstimate> peaks;
  for (int64_t k = 2; k <= max_lag; ++k) {
    const double r = acf[static_cast<size_t>(k)];
    const bool peak = r > acf[static_cast<size_t>(k - 1)] && r >= acf[static_cast<size_t>(k + 1)];
    if (peak) peaks.push_back({k, r});
    if (peak && r > best.autocorrelation) best = {k, r};
  }
  if (best.autocorrelation < 0.2) return {1, best.autocorrelation};
  // A season repeats at 2P, 3P, …: the first peak nearly as high as the highest is the period
  // (nottem's monthly differences peak at 24 a little above 12).
  for (const auto& p : peaks) {
    if (p.autocorrelation >= 0.9 * best.autocorrelation) return p;
  }
  return best;
}

std::vector<double> fitArLeastSquares(const SeriesBaselineInput& input, int64_t column, int64_t h) {
  const int64_t n = arOrder(input).p + 1;
  const auto w = fitAr(input, column, n - 1, input.horizon);
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    out[static_cast<size_t>(i)] = w[static_cast<size_t>(i * input.horizon + h - 1)];
  return out;
}

SeriesBaselines computeSeriesBaselines(const SeriesBaselineInput& in) {
  const int64_t C = in.columns, H = in.horizon, T = in.length;
  if (C < 1 || in.values.empty() || in.values.size() % static_cast<size_t>(C) != 0)
    throw std::invalid_argument("baselines: the series is empty or not (rows × columns)");
  const int64_t L = static_cast<int64_t>(in.values.size()) / C;
  if (H < 1 || T < 1 || in.train_end < 1 || in.train_end > L)
    throw std::invalid_argument("baselines: horizon, length and train_end must be ≥ 1");
  checkRows(in.train_starts, 0, in.train_end - T - H, "training window");
  checkRows(in.validation_origins, 0, L - 1 - H, "validation origin");
  checkRows(in.test_origins, 0, L - 1 - H, "test origin");
  const Series z{in.values, C, L};

  SeriesBaselines out;
  if (in.period > 0) {
    out.season = {in.period, in.period_rule.empty() ? "given" : in.period_rule};
  } else {
    const auto e = detectSeasonalPeriod(in.values, C, in.train_end);
    std::ostringstream s;
    s.precision(2);
    s << "detected from the autocorrelation"
      << (in.period_rule.empty() ? "" : " (" + in.period_rule + ")") << ": ";
    if (e.period > 1) {
      s << e.autocorrelation << " at lag " << e.period << " of the train part's differences";
    } else {
      s << "no season in the train part's differences (no peak above 0.2); seasonal naive = "
           "persistence";
    }
    out.season = {e.period, s.str()};
  }
  const auto order = in.train_starts.empty() ? ArOrder{} : arOrder(in);
  const int64_t P = out.season.period, p = order.p;

  std::vector<double> mean(static_cast<size_t>(C), 0.0);
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t r = 0; r < in.train_end; ++r) mean[static_cast<size_t>(c)] += z.at(r, c);
    mean[static_cast<size_t>(c)] /= static_cast<double>(in.train_end);
  }
  std::vector<std::vector<double>> ar(static_cast<size_t>(C));
  if (!in.train_starts.empty()) {
    for (int64_t c = 0; c < C; ++c) ar[static_cast<size_t>(c)] = fitAr(in, c, p, H);
  }

  out.mase_scale = maseScales(in.values, C, in.train_end, P);
  enum { kMean, kPersistence, kSeasonal, kAr, kCount };  // Baseline's order
  auto forecast = [&](int64_t o, int64_t c, int64_t h, int which) {
    switch (which) {
      case kMean:
        return mean[static_cast<size_t>(c)];
      case kPersistence:
        return z.at(o, c);
      case kSeasonal:
        return z.at(o + h - P * ((h + P - 1) / P), c);
      default: {
        const auto& w = ar[static_cast<size_t>(c)];
        double f = w[static_cast<size_t>(h - 1)];  // intercept
        for (int64_t i = 1; i <= p; ++i)
          f += w[static_cast<size_t>(i * H + h - 1)] * z.at(o + 1 - i, c);
        return f;
      }
    }
  };
  // Per origin: the mean of e² and of |e| / MASE scale over its steps and columns.
  struct PerTarget {
    std::vector<double> squared, scaled;
  };
  auto score = [&](const std::vector<int64_t>& origins, int which) {
    PerTarget t;
    const auto per = static_cast<double>(C * H);
    for (int64_t o : origins) {
      double sq = 0, ab = 0;
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t h = 1; h <= H; ++h) {
          const double e = forecast(o, c, h, which) - z.at(o + h, c);
          sq += e * e;
          ab += std::fabs(e) / out.mase_scale[static_cast<size_t>(c)];
        }
      }
      t.squared.push_back(sq / per);
      t.scaled.push_back(ab / per);
    }
    return t;
  };
  auto mean_of = [](const std::vector<double>& v) {
    if (v.empty()) return std::nan("");
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  const std::string labels[kCount] = {
      "train mean", "persistence", "seasonal naive (P = " + std::to_string(P) + ")",
      "AR(" + std::to_string(p) + ") least squares, p " + order.how};
  for (int k = 0; k < kCount; ++k) {
    if (k == kAr && in.train_starts.empty()) continue;
    const auto validation = score(in.validation_origins, k), test = score(in.test_origins, k);
    ReferenceScore r{baselineName(static_cast<Baseline>(k)), labels[k], mean_of(validation.squared),
                     mean_of(test.squared)};
    r.test_mase = mean_of(test.scaled);
    r.test_errors = test.squared;
    out.scores.push_back(std::move(r));
  }
  return out;
}

}  // namespace rsalab
