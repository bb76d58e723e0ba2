// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/series_process.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/core/io/text.h"
#include "engine/core/registry/task_registry.h"
#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_process.h"

namespace rsalab {
namespace {

using task_support::requireReal;
using task_support::streamSeed;
using task_support::TaskRng;

// The series processes' own streams of teacher_seed (apart from the run seed's data streams).
constexpr uint64_t kSeriesScaleStream = 111;  // Monte-Carlo mean and σ² (nonlinear)
constexpr uint64_t kSeriesReachStream = 112;  // Monte-Carlo sensitivities (reach)

// Mean and σ² of the nonlinear process: one stationary stretch of 2²¹ steps after the burn-in,
// the standard error of σ² by batch means (256 batches).
void monteCarloMoments(SeriesProcessModel& p, const TaskOptions& o) {
  constexpr int64_t kSteps = int64_t{1} << 21, kBatches = 256;
  TaskRng rng(streamSeed(o.teacher_seed, kSeriesScaleStream));
  double x = 0;
  for (int64_t t = 0; t < kSeriesBurnIn; ++t) x = p.step(x, rng.normal(), 0);
  std::vector<double> xs(static_cast<size_t>(kSteps));
  for (double& v : xs) v = x = p.step(x, rng.normal(), 0);
  double mean = 0;
  for (double v : xs) mean += v;
  mean /= static_cast<double>(kSteps);
  const int64_t per = kSteps / kBatches;
  double sum = 0, sum2 = 0;
  for (int64_t b = 0; b < kBatches; ++b) {
    double m = 0;
    for (int64_t t = b * per; t < (b + 1) * per; ++t) {
      const double c = xs[static_cast<size_t>(t)] - mean;
      m += c * c;
    }
    m /= static_cast<double>(per);
    sum += m;
    sum2 += m * m;
  }
  p.mean = mean;
  p.variance = sum / kBatches;
  p.variance_se = std::sqrt(std::max(0.0, sum2 / kBatches - p.variance * p.variance) /
                            static_cast<double>(kBatches - 1));
  p.variance_samples = kSteps;
}

}  // namespace

double SeriesProcessModel::scale() const { return 1.0 / std::sqrt(variance); }

double SeriesProcessModel::decay(double e) const {
  return decay_min + (decay_max - decay_min) * std::exp(-0.5 * e * e);
}

double SeriesProcessModel::decayMean() const {
  return decay_min + (decay_max - decay_min) / std::sqrt(2.0);
}

double SeriesProcessModel::decaySecondMoment() const {
  const double span = decay_max - decay_min;
  return decay_min * decay_min + 2 * decay_min * span / std::sqrt(2.0) +
         span * span / std::sqrt(3.0);
}

// E[a(e) e²] and E[a(e)² e²], e ~ N(0, 1): E[e² exp(−e²/2)] = 1/(2√2), E[e² exp(−e²)] = 1/(3√3).
double SeriesProcessModel::decayShockMoment() const {
  return decay_min + (decay_max - decay_min) / (2 * std::sqrt(2.0));
}

double SeriesProcessModel::decaySquaredShockMoment() const {
  const double span = decay_max - decay_min;
  return decay_min * decay_min + decay_min * span / std::sqrt(2.0) +
         span * span / (3 * std::sqrt(3.0));
}

double SeriesProcessModel::coefficient(double x) const { return x >= 0 ? phi_high : phi_low; }

double SeriesProcessModel::step(double previous, double e, double e_before) const {
  if (process == TeacherProcess::Selective) return decay(e_before) * previous + e;
  return coefficient(previous) * previous + e;
}

double SeriesProcessModel::oracleError() const { return 1 / variance; }

SeriesProcessModel makeSeriesProcess(const TaskOptions& o) {
  SeriesProcessModel p;
  p.process = o.teacher_process;
  switch (o.teacher_process) {
    case TeacherProcess::Rem:
      throw std::invalid_argument("the rem process is the task's AR(1) poles (ar_poles)");
    case TeacherProcess::Power: {
      requireReal(std::abs(o.series_d) < 0.5 && o.series_d != 0, "series_d", o.series_d,
                  "(-0.5, 0.5), not 0");
      p.psi.assign(static_cast<size_t>(kSeriesPowerLags) + 1, 1.0);
      for (int64_t k = 1; k <= kSeriesPowerLags; ++k)
        p.psi[static_cast<size_t>(k)] = p.psi[static_cast<size_t>(k - 1)] *
                                        (static_cast<double>(k - 1) + o.series_d) /
                                        static_cast<double>(k);
      p.variance = 0;
      for (double v : p.psi) p.variance += v * v;
      break;
    }
    case TeacherProcess::Jordan: {
      requireReal(std::abs(o.series_lambda) < 1, "series_lambda", o.series_lambda, "(-1, 1)");
      p.lambda = o.series_lambda;
      p.psi.resize(static_cast<size_t>(kSeriesPowerLags) + 1);
      for (int64_t k = 0; k <= kSeriesPowerLags; ++k)
        p.psi[static_cast<size_t>(k)] =
            static_cast<double>(k + 1) * std::pow(p.lambda, static_cast<double>(k));
      const double l2 = p.lambda * p.lambda;
      p.variance = (1 + l2) / ((1 - l2) * (1 - l2) * (1 - l2));
      break;
    }
    case TeacherProcess::Nonlinear:
      requireReal(std::abs(o.series_phi_high) < 1, "series_phi_high", o.series_phi_high, "(-1, 1)");
      requireReal(std::abs(o.series_phi_low) < 1, "series_phi_low", o.series_phi_low, "(-1, 1)");
      p.phi_high = o.series_phi_high;
      p.phi_low = o.series_phi_low;
      monteCarloMoments(p, o);
      break;
    case TeacherProcess::Selective:
      requireReal(o.series_decay_min >= 0 && o.series_decay_min <= o.series_decay_max,
                  "series_decay_min", o.series_decay_min, "[0, series_decay_max]");
      requireReal(o.series_decay_max < 1, "series_decay_max", o.series_decay_max, "[0, 1)");
      p.decay_min = o.series_decay_min;
      p.decay_max = o.series_decay_max;
      // E[a_t² x_{t−1}²] = q solves q = E a²·q + E[a(e)² e²] (a_t = a(e_{t−1}) and
      // x_{t−1} = a_{t−1} x_{t−2} + e_{t−1} share e_{t−1}); σ² = 1 + q.
      p.variance = 1 + p.decaySquaredShockMoment() / (1 - p.decaySecondMoment());
      break;
  }
  return p;
}

std::vector<double> seriesProcessAutocovariance(const SeriesProcessModel& p, int64_t lags) {
  std::vector<double> acov(static_cast<size_t>(std::max<int64_t>(lags, 1)), 0.0);
  if (p.psi.empty()) throw std::invalid_argument("only power and jordan have an autocovariance");
  if (p.process == TeacherProcess::Jordan) {  // AR(2) φ1 = 2λ, φ2 = −λ²: Yule–Walker recursion
    const double p1 = 2 * p.lambda, p2 = -p.lambda * p.lambda;
    double r2 = 1, r1 = p1 / (1 - p2);
    for (size_t k = 0; k < acov.size(); ++k) {
      acov[k] = k == 0 ? 1.0 : k == 1 ? r1 : p1 * r1 + p2 * r2;
      if (k >= 2) {
        r2 = r1;
        r1 = acov[k];
      }
    }
    return acov;
  }
  for (size_t k = 0; k < acov.size() && k < p.psi.size(); ++k) {
    double sum = 0;
    for (size_t j = 0; j + k < p.psi.size(); ++j) sum += p.psi[j] * p.psi[j + k];
    acov[k] = sum / p.variance;
  }
  return acov;
}

void addSeriesProcess(const SeriesProcessModel& p, int64_t v0, int64_t L, uint64_t fwd_seed,
                      uint64_t bwd_seed, std::vector<double>& s) {
  TaskRng fwd(fwd_seed), bwd(bwd_seed);
  const double scale = p.scale();
  if (p.process == TeacherProcess::Power) {
    const auto K = static_cast<int64_t>(p.psi.size()) - 1;
    std::vector<double> e(static_cast<size_t>(L + K));  // e[t + K] = e_t, t = −K..L−1
    for (int64_t t = v0; t < L; ++t) e[static_cast<size_t>(t + K)] = fwd.normal();
    for (int64_t t = v0 - 1; t >= -K; --t) e[static_cast<size_t>(t + K)] = bwd.normal();
    for (int64_t t = 0; t < L; ++t) {
      double v = 0;
      for (int64_t k = 0; k <= K; ++k)
        v += p.psi[static_cast<size_t>(k)] * e[static_cast<size_t>(t - k + K)];
      s[static_cast<size_t>(t)] += scale * v;
    }
    return;
  }
  if (p.process != TeacherProcess::Nonlinear && p.process != TeacherProcess::Selective)
    throw std::invalid_argument("addSeriesProcess: power, nonlinear or selective");
  auto stretch = [&](TaskRng& rng, int64_t from, int64_t to) {
    double x = 0, e_before = 0;
    auto next = [&] {
      const double e = rng.normal();
      x = p.step(x, e, e_before);
      e_before = e;
    };
    for (int64_t t = 0; t < kSeriesBurnIn; ++t) next();
    for (int64_t t = from; t < to; ++t) {
      next();
      s[static_cast<size_t>(t)] += scale * (x - p.mean);
    }
  };
  stretch(fwd, v0, L);
  stretch(bwd, 0, v0);
}

std::vector<double> seriesSensitivity(const SeriesProcessModel& p, const TaskOptions& o,
                                      int64_t lags, int64_t samples) {
  std::vector<double> w(static_cast<size_t>(lags), 0.0);
  if (!p.psi.empty()) {
    for (int64_t k = 1; k <= lags; ++k)
      w[static_cast<size_t>(k - 1)] = std::abs(p.psi[static_cast<size_t>(k)]);
    return w;
  }
  // A stretch x_0..x_L after a short burn-in; lag k is the innovation e_{L−k} (of x_{L−k}).
  constexpr int64_t kBurn = 200;
  const int64_t L = lags;
  TaskRng rng(streamSeed(o.teacher_seed, kSeriesReachStream));
  std::vector<double> e(static_cast<size_t>(L + 1)), x(static_cast<size_t>(L + 1));
  for (int64_t n = 0; n < samples; ++n) {
    double prev = 0, e_before = 0;  // x_{−1}, e_{−1}
    for (int64_t t = 0; t < kBurn; ++t) {
      const double shock = rng.normal();
      prev = p.step(prev, shock, e_before);
      e_before = shock;
    }
    for (int64_t t = 0; t <= L; ++t) {
      e[static_cast<size_t>(t)] = rng.normal();
      prev = x[static_cast<size_t>(t)] = p.step(prev, e[static_cast<size_t>(t)], e_before);
      e_before = e[static_cast<size_t>(t)];
    }
    // nonlinear: ∂x_L/∂e_j = Π_{j<i≤L} φ(x_{i−1}).
    // selective: e_j enters x_j and, through a_{j+1} = a(e_j), x_{j+1}:
    //   ∂x_L/∂e_j = (Π_{j+1<i≤L} a(e_{i−1}))·(a(e_j) + a'(e_j) x_j)   (lag k = L − j ≥ 1).
    double product = 1;
    for (int64_t k = 1; k <= L; ++k) {
      const auto j = static_cast<size_t>(L - k);
      if (p.process == TeacherProcess::Selective) {
        const double slope = -(p.decay_max - p.decay_min) * e[j] * std::exp(-0.5 * e[j] * e[j]);
        w[static_cast<size_t>(k - 1)] += std::abs(product * (p.decay(e[j]) + slope * x[j]));
        product *= p.decay(e[j]);
      } else {
        product *= p.coefficient(x[j]);
        w[static_cast<size_t>(k - 1)] += std::abs(product);
      }
    }
  }
  for (double& v : w) v /= static_cast<double>(samples);
  return w;
}

int64_t seriesReach(const TaskOptions& o) {
  if (o.teacher_process != TeacherProcess::Rem)
    return kernelReach(seriesSensitivity(makeSeriesProcess(o), o, kReachLength));
  if (o.ar_poles.empty()) return 0;
  std::vector<double> w(static_cast<size_t>(kReachLength), 0.0);
  for (double l : o.ar_poles)
    for (int64_t k = 1; k <= kReachLength; ++k)
      w[static_cast<size_t>(k - 1)] +=
          std::sqrt(1 - l * l) * std::pow(std::abs(l), static_cast<double>(k));
  return kernelReach(w);
}

std::string seriesProcessFormula(const SeriesProcessModel& p, const TaskOptions& o) {
  switch (p.process) {
    case TeacherProcess::Power:
      return "power ARFIMA(0, d=" + formatNumber(o.series_d, 6) + ", 0) (MA truncated at " +
             std::to_string(kSeriesPowerLags) + " lags)";
    case TeacherProcess::Jordan:
      return "jordan AR(2) with a repeated root λ=" + formatNumber(o.series_lambda, 6);
    case TeacherProcess::Nonlinear:
      return "nonlinear SETAR φ=" + formatNumber(o.series_phi_high, 6) + " (x ≥ 0), " +
             formatNumber(o.series_phi_low, 6) + " (x < 0)";
    case TeacherProcess::Selective:
      return "selective a_t = " + formatNumber(o.series_decay_min, 6) + " + " +
             formatNumber(o.series_decay_max - o.series_decay_min, 6) + "·exp(−e_{t−1}²/2)";
    default:
      return "rem";
  }
}

}  // namespace rsalab
