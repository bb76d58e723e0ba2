// SPDX-License-Identifier: GPL-3.0-or-later
// The ETS anchor: a port of R's forecast::ets(y) with its defaults (forecast 8.20; Hyndman et al.
// 2008, "Forecasting with exponential smoothing"). The candidate forms, the initial values
// (initparam, initstate), the bounds and admissibility tests (check.param, admissible), the
// likelihood (etscalc) and the optimiser's rules (optim's Nelder–Mead, as etsNelderMead calls it)
// follow R's, so that the same form is chosen and its fit lands on the same optimum: the ETS
// likelihood is flat and has several optima, and a different optimiser picks other forms.
//
// Departures from R, none of which reaches a one-step forecast of a usable series:
//   - R answers a constant series with ses(alpha = 0.99999) and n ≤ 6 rows with HoltWinters();
//     here both are "no model" (std::runtime_error), as the anchor protocol asks;
//   - multiplicative trends are never candidates (allow.multiplicative.trend = FALSE), so their
//     recursions are left out;
//   - the forecast h steps ahead is the recursion's point forecast (level + (φ + … + φʰ) growth,
//     times or plus the seasonal index due), which is forecast()'s mean for classes 1 and 2. For
//     multiplicative error and season (class 3) R's mean adds a variance term beyond one cycle
//     (h > m) and damps a trend one power late (1 + φ + … + φ^{h−1}); at h = 1 fitted(), the R
//     fixtures' reference, is this recursion's forecast for every class.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/forecast/forecast.h"
#include "core/forecast/optimise.h"

namespace rsalab::forecast {
namespace {

enum Component : int { kNone = 0, kAdditive = 1, kMultiplicative = 2 };

constexpr double kTiny = 1.0e-10;  // etscalc's TOL: a divisor this small is read as zero
constexpr double kHuge = 1.0e10;   // etscalc's HUGEN: what a division by "zero" gives
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

// ets()'s default bounds ("both"): alpha, beta, gamma in [1e-4, 0.9999], phi in [0.8, 0.98].
constexpr double kLower[4] = {1e-4, 1e-4, 1e-4, 0.8};
constexpr double kUpper[4] = {0.9999, 0.9999, 0.9999, 0.98};

struct Form {
  int error = kAdditive, trend = kNone, season = kNone;
  bool damped = false;
  int m = 1;  // the period the recursions use: 1 unless the form is seasonal

  std::string name() const {
    static const char* letter[] = {"N", "A", "M"};
    return std::string("ETS(") + letter[error] + "," + letter[trend] + (damped ? "d" : "") + "," +
           letter[season] + ")";
  }
};

struct Smoothing {
  double alpha = 0, beta = 0, gamma = 0, phi = 1;
};

// The state after t observations, laid out as R's: season[0] is the newest seasonal index and
// season[m − 1] the one due at t + 1.
struct State {
  double level = 0, growth = 0;
  std::vector<double> season;
};

// The point forecast h ≥ 1 steps ahead (etsforecast's; forecast()'s mean for classes 1 and 2),
// given damping = φ + φ² + … + φʰ (h when undamped: φ = 1).
double pointForecast(const Form& f, const State& x, int64_t h, double damping) {
  double value = x.level;
  if (f.trend == kAdditive) value += damping * x.growth;
  if (f.season != kNone) {
    const double due = x.season[static_cast<size_t>(((f.m - h) % f.m + f.m) % f.m)];
    value = f.season == kAdditive ? value + due : value * due;
  }
  return value;
}

// The error-correction updates of etscalc's update(): the same for additive and multiplicative
// errors (the error form only enters the likelihood).
void update(const Form& f, const Smoothing& s, State& x, double y) {
  const double old_level = x.level;
  const double damped_growth = f.trend == kNone ? 0 : s.phi * x.growth;
  const double predicted_level = old_level + damped_growth;  // l(t−1) + φ b(t−1)
  double deseasonalised = y;
  double due = 0;
  if (f.season != kNone) {
    due = x.season.back();  // s(t−m)
    if (f.season == kAdditive)
      deseasonalised = y - due;
    else
      deseasonalised = std::fabs(due) < kTiny ? kHuge : y / due;
  }
  x.level = predicted_level + s.alpha * (deseasonalised - predicted_level);
  if (f.trend != kNone)  // beta/alpha: etscalc's parameterisation of b(t) in terms of l(t)
    x.growth = damped_growth + (s.beta / s.alpha) * (x.level - old_level - damped_growth);
  if (f.season != kNone) {
    double ratio;
    if (f.season == kAdditive)
      ratio = y - predicted_level;
    else
      ratio = std::fabs(predicted_level) < kTiny ? kHuge : y / predicted_level;
    std::copy_backward(x.season.begin(), x.season.end() - 1, x.season.end());
    x.season[0] = due + s.gamma * (ratio - due);
  }
}

// etscalc's −2 log-likelihood up to constants: n log Σe² (+ 2 Σ log|ŷ| for multiplicative errors,
// whose e is the relative error). NaN when the recursion breaks down.
double likelihood(const Form& f, const Smoothing& s, State x, const double* y, int64_t n) {
  double sse = 0, log_scale = 0;
  for (int64_t t = 0; t < n; ++t) {
    const double forecast = pointForecast(f, x, 1, s.phi);
    const double e = f.error == kAdditive ? y[t] - forecast : (y[t] - forecast) / forecast;
    sse += e * e;
    log_scale += std::log(std::fabs(forecast));
    update(f, s, x, y[t]);
  }
  double lik = static_cast<double>(n) * std::log(sse);
  if (f.error == kMultiplicative) lik += 2 * log_scale;
  return lik;
}

// ----- initial values (R's initstate and initparam) -----

// The seasonal component y.d$seasonal of initstate(), one value per row of y[0, n): classical
// decomposition (decompose()) with three or more cycles, else a linear trend plus one Fourier
// pair (tslm(y ~ trend + fourier(y, 1))).
std::vector<double> seasonalComponent(const double* y, int64_t n, int m, bool multiplicative) {
  std::vector<double> seasonal(static_cast<size_t>(n));
  if (n < 3 * m) {
    const bool with_sine = m != 2;  // sin(π t) vanishes: fourier() drops that column
    const int64_t columns = with_sine ? 4 : 3;
    Eigen::MatrixXd X(n, columns);
    Eigen::VectorXd target(n);
    for (int64_t t = 0; t < n; ++t) {
      const double angle = 2 * kPi * static_cast<double>(t + 1) / m;
      X(t, 0) = 1;
      X(t, 1) = static_cast<double>(t + 1);
      if (with_sine) X(t, 2) = std::sin(angle);
      X(t, columns - 1) = std::cos(angle);
      target(t) = y[t];
    }
    const Eigen::VectorXd beta = X.colPivHouseholderQr().solve(target);
    for (int64_t t = 0; t < n; ++t) {
      const double trend = beta(0) + beta(1) * static_cast<double>(t + 1);
      seasonal[t] = multiplicative ? y[t] / trend : y[t] - trend;
    }
    return seasonal;
  }
  // decompose(): a centred moving average of order m (2×m when m is even) as the trend, the
  // detrended values averaged per position in the cycle, then centred on 0 (or 1).
  const int half = m / 2;
  std::vector<double> sum(m, 0.0);
  std::vector<int> count(m, 0);
  for (int64_t t = half; t + half < n; ++t) {
    double trend = 0;
    if (m % 2 == 1) {
      for (int k = -half; k <= half; ++k) trend += y[t + k];
    } else {
      trend = 0.5 * (y[t - half] + y[t + half]);
      for (int k = -half + 1; k < half; ++k) trend += y[t + k];
    }
    trend /= m;
    const double detrended = multiplicative ? y[t] / trend : y[t] - trend;
    if (std::isnan(detrended)) continue;
    sum[t % m] += detrended;
    ++count[t % m];
  }
  std::vector<double> figure(m);
  for (int i = 0; i < m; ++i) figure[i] = sum[i] / count[i];
  const double mean = std::accumulate(figure.begin(), figure.end(), 0.0) / m;
  for (double& v : figure) v = multiplicative ? v / mean : v - mean;
  for (int64_t t = 0; t < n; ++t) seasonal[t] = figure[t % m];
  return seasonal;
}

// initstate(): l0 (and b0) from the first max(10, 2m) seasonally adjusted values — their mean, or
// the least-squares line's intercept and slope — then s0 … s_{m−2} (newest first; the last index
// is implied by the normalisation and not estimated).
std::vector<double> initialStates(const double* y, int64_t n, const Form& f) {
  const int m = f.m;
  std::vector<double> adjusted(y, y + n), seasons;
  if (f.season != kNone) {
    const bool mult = f.season == kMultiplicative;
    const std::vector<double> seasonal = seasonalComponent(y, n, m, mult);
    for (int k = 0; k <= m - 2; ++k) seasons.push_back(seasonal[static_cast<size_t>(m - 1 - k)]);
    if (mult) {
      for (double& s : seasons) s = std::max(s, 0.01);
      double total = std::accumulate(seasons.begin(), seasons.end(), 0.0);
      if (total > m) {
        total += 0.01 * static_cast<double>(seasons.size());
        for (double& s : seasons) s /= total;
      }
      for (int64_t t = 0; t < n; ++t) adjusted[t] = y[t] / std::max(seasonal[t], 0.01);
    } else {
      for (int64_t t = 0; t < n; ++t) adjusted[t] = y[t] - seasonal[t];
    }
  }
  const int64_t maxn = std::min<int64_t>(std::max(10, 2 * m), n);
  std::vector<double> states;
  if (f.trend == kNone) {
    states.push_back(std::accumulate(adjusted.begin(), adjusted.begin() + maxn, 0.0) / maxn);
  } else {  // lsfit(1:maxn, y.sa[1:maxn])
    double mx = 0, my = 0;
    for (int64_t t = 0; t < maxn; ++t) {
      mx += static_cast<double>(t + 1);
      my += adjusted[t];
    }
    mx /= maxn;
    my /= maxn;
    double sxy = 0, sxx = 0;
    for (int64_t t = 0; t < maxn; ++t) {
      sxy += (static_cast<double>(t + 1) - mx) * (adjusted[t] - my);
      sxx += (static_cast<double>(t + 1) - mx) * (static_cast<double>(t + 1) - mx);
    }
    double slope = sxy / sxx, intercept = my - slope * mx;
    if (std::fabs(intercept + slope) < 1e-8) {  // keep the first fitted value off zero
      intercept *= 1 + 0.001;
      slope *= 1 - 0.001;
    }
    states.push_back(intercept);
    states.push_back(slope);
  }
  states.insert(states.end(), seasons.begin(), seasons.end());
  return states;
}

// initparam() with the default bounds: small smoothing, strong damping.
std::vector<double> initialSmoothing(const Form& f) {
  std::vector<double> par;
  double alpha = kLower[0] + 0.2 * (kUpper[0] - kLower[0]) / f.m;
  if (alpha > 1 || alpha < 0) alpha = kLower[0] + 0.002;
  par.push_back(alpha);
  if (f.trend != kNone) {
    const double upper = std::min(kUpper[1], alpha);
    double beta = kLower[1] + 0.1 * (upper - kLower[1]);
    if (beta < 0 || beta > alpha) beta = alpha - 0.001;
    par.push_back(beta);
  }
  if (f.season != kNone) {
    const double upper = std::min(kUpper[2], 1 - alpha);
    double gamma = kLower[2] + 0.05 * (upper - kLower[2]);
    if (gamma < 0 || gamma > 1 - alpha) gamma = 1 - alpha - 0.001;
    par.push_back(gamma);
  }
  if (f.damped) {
    double phi = kLower[3] + 0.99 * (kUpper[3] - kLower[3]);
    if (phi < 0 || phi > 1) phi = kUpper[3] - 0.001;
    par.push_back(phi);
  }
  return par;
}

// ----- the parameter space -----

// The largest root modulus of the monic z^d + c[d−1] z^{d−1} + … + c[0] (d ≤ 25): the companion
// matrix is already upper Hessenberg, so the real Schur iteration starts from it.
double largestRoot(const std::vector<double>& c) {
  const auto d = static_cast<int>(c.size());
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 25, 25>;  // no heap
  Matrix companion = Matrix::Zero(d, d);
  for (int k = 1; k < d; ++k) companion(k, k - 1) = 1;
  for (int k = 0; k < d; ++k) companion(k, d - 1) = -c[static_cast<size_t>(k)];
  Eigen::RealSchur<Matrix> schur(d);
  schur.computeFromHessenberg(companion, Matrix(), false);
  if (schur.info() != Eigen::Success) return kInf;
  const Matrix& T = schur.matrixT();
  double largest = 0;  // from T's 1×1 blocks and 2×2 blocks (a complex pair, or two real roots)
  for (int i = 0; i < d;) {
    if (i + 1 < d && T(i + 1, i) != 0) {
      const double half_trace = 0.5 * (T(i, i) + T(i + 1, i + 1));
      const double det = T(i, i) * T(i + 1, i + 1) - T(i, i + 1) * T(i + 1, i);
      const double disc = half_trace * half_trace - det;
      largest =
          std::max(largest, disc < 0 ? std::sqrt(det) : std::fabs(half_trace) + std::sqrt(disc));
      i += 2;
    } else {
      largest = std::max(largest, std::fabs(T(i, i)));
      i += 1;
    }
  }
  return largest;
}

// Schur–Cohn step-down test: whether every root of the monic z^d + c[d−1] z^{d−1} + … + c[0]
// lies strictly inside |z| < r. O(d²), against the Schur iteration's O(d³) with a large constant.
bool rootsInside(const std::vector<double>& c, double r) {
  const size_t d = c.size();
  double a[26];  // P(r z) / r^d, highest power first: a[0] = 1
  a[0] = 1;
  double scale = 1;
  for (size_t i = 1; i <= d; ++i) a[i] = c[d - i] * (scale /= r);
  for (size_t n = d; n > 0; --n) {
    const double k = a[n];  // the reflection coefficient
    if (!(std::fabs(k) < 1)) return false;
    const double norm = 1 - k * k;
    for (size_t i = 1; i < n - i; ++i) {
      const double low = a[i], high = a[n - i];
      a[i] = (low - k * high) / norm;
      a[n - i] = (high - k * low) / norm;
    }
    if (n % 2 == 0) a[n / 2] /= 1 + k;
  }
  return true;
}

// R's test, max |root| ≤ 1 + 1e-10 (cpolyroot), decided by the Schur–Cohn test wherever every
// root is 1e-6 clear of the unit circle, and by the roots themselves otherwise: the same verdict,
// at a tenth of the cost. A root at exactly 1 (no trend, no damping: P(1) = 0 for every α, γ) is
// divided out first, as it would otherwise send every such point to the roots.
bool rootsAdmissible(const std::vector<double>& c, bool unit_root) {
  std::vector<double> q = c;
  if (unit_root && c.size() >= 2) {  // P(z) = (z − 1) Q(z), by synthetic division
    // Q's coefficients from the leading one (1) down.
    double carry = 1;
    for (size_t k = c.size() - 1; k >= 1; --k) q[k - 1] = carry += c[k];
    q.pop_back();
  }
  if (rootsInside(q, 1 - 1e-6)) return true;
  if (!rootsInside(q, 1 + 1e-6)) return false;
  return largestRoot(c) <= 1 + 1e-10;
}

// admissible(): the forecast-variance stability conditions of Hyndman et al. (2008, ch. 10); for
// seasonal forms, the roots of the characteristic polynomial must lie in the unit disc.
bool admissible(const Form& f, const Smoothing& s) {
  const double alpha = s.alpha, beta = s.beta, gamma = s.gamma, phi = s.phi;
  if (phi < 0 || phi > 1 + 1e-8) return false;
  if (f.season == kNone) {
    if (alpha < 1 - 1 / phi || alpha > 1 + 1 / phi) return false;
    if (f.trend != kNone && (beta < alpha * (phi - 1) || beta > (1 + phi) * (2 - alpha)))
      return false;
    return true;
  }
  const int m = f.m;
  if (gamma < std::max(1 - 1 / phi - alpha, 0.0) || gamma > 1 + 1 / phi - alpha) return false;
  if (alpha < 1 - 1 / phi - gamma * (1 - m + phi + phi * m) / (2 * phi * m)) return false;
  if (beta < -(1 - phi) * (gamma / m + alpha)) return false;
  // P(z) = φ(1−α−γ) + (α+β−αφ+γ−1) z + (α+β−αφ)(z² + … + z^{m−1}) + (α+β−φ) z^m + z^{m+1}.
  std::vector<double> c(static_cast<size_t>(m + 1));  // c[k]: the coefficient of z^k, k ≤ m
  c[0] = phi * (1 - alpha - gamma);
  c[1] = alpha + beta - alpha * phi + gamma - 1;
  for (int k = 2; k < m; ++k) c[k] = alpha + beta - alpha * phi;
  c[m] = alpha + beta - phi;
  return rootsAdmissible(c, f.trend == kNone && !f.damped);
}

// check.param() with bounds = "both": the usual bounds (β ≤ α, γ ≤ 1 − α) and admissibility.
bool inBounds(const Form& f, const Smoothing& s) {
  if (s.alpha < kLower[0] || s.alpha > kUpper[0]) return false;
  if (f.trend != kNone && (s.beta < kLower[1] || s.beta > s.alpha || s.beta > kUpper[1]))
    return false;
  if (f.damped && (s.phi < kLower[3] || s.phi > kUpper[3])) return false;
  if (f.season != kNone && (s.gamma < kLower[2] || s.gamma > 1 - s.alpha || s.gamma > kUpper[2]))
    return false;
  return admissible(f, s);
}

// The optimiser's vector: alpha, [beta], [gamma], [phi], l0, [b0], [s0 … s_{m−2}].
Smoothing unpackSmoothing(const Form& f, const std::vector<double>& par, size_t& k) {
  Smoothing s;
  k = 0;
  s.alpha = par[k++];
  if (f.trend != kNone) s.beta = par[k++];
  if (f.season != kNone) s.gamma = par[k++];
  if (f.damped) s.phi = par[k++];
  return s;
}

State unpackState(const Form& f, const std::vector<double>& par, size_t k) {
  State x;
  x.level = par[k++];
  if (f.trend != kNone) x.growth = par[k++];
  if (f.season != kNone) {
    x.season.assign(par.begin() + static_cast<std::ptrdiff_t>(k), par.end());
    // The last index makes the indices sum to m (multiplicative) or 0 (additive), as in R.
    const double total = std::accumulate(x.season.begin(), x.season.end(), 0.0);
    x.season.push_back((f.season == kMultiplicative ? f.m : 0) - total);
  }
  return x;
}

struct Fit {
  Form form;
  Smoothing smoothing;
  State initial;
  double aicc = kInf;
};

// etsmodel(): maximum likelihood for one form on y[0, n); nullopt where R's fit fails or its
// AICc is not a number (such forms are never chosen).
std::optional<Fit> fitForm(const double* y, int64_t n, const Form& f) {
  if (f.season != kNone && n < 4) return std::nullopt;
  std::vector<double> par = initialSmoothing(f);
  const std::vector<double> states = initialStates(y, n, f);
  par.insert(par.end(), states.begin(), states.end());
  const auto np = static_cast<int64_t>(par.size());
  if (np >= n - 1) return std::nullopt;  // too many parameters for the data: AICc = Inf in R

  const auto objective = [&](const std::vector<double>& v) {
    size_t k = 0;
    const Smoothing s = unpackSmoothing(f, v, k);
    if (!inBounds(f, s)) return kInf;
    const State x = unpackState(f, v, k);
    if (f.season == kMultiplicative && *std::min_element(x.season.begin(), x.season.end()) < 0)
      return kInf;
    const double lik = likelihood(f, s, x, y, n);
    if (std::isnan(lik)) return kInf;
    return std::max(lik, -1e10);  // etsTargetFunction's guard against perfect fits
  };
  if (!std::isfinite(objective(par))) return std::nullopt;  // R: "cannot be evaluated"

  MinimiseOptions options;
  options.method = MinimiseOptions::Method::kRNelderMead;
  options.max_iterations = 2000;  // etsmodel's maxit
  const MinimiseResult best = minimiseNelderMead(objective, par, options);

  Fit fit;
  fit.form = f;
  size_t k = 0;
  fit.smoothing = unpackSmoothing(f, best.x, k);
  fit.initial = unpackState(f, best.x, k);
  const double lik = likelihood(f, fit.smoothing, fit.initial, y, n);
  // np + 1: the innovations' variance is a parameter too.
  const double q = static_cast<double>(np + 1), rows = static_cast<double>(n);
  fit.aicc = lik + 2 * q + 2 * q * (q + 1) / (rows - q - 1);
  if (std::isnan(fit.aicc)) return std::nullopt;
  return fit;
}

}  // namespace

UnivariateForecast etsForecast(const UnivariateProblem& p) {
  checkProblem(p);
  const double* y = p.y.data();
  const int64_t n = p.fit_end;
  // ets() hands n ≤ 6 rows (2 parameters + 4) to HoltWinters() and a constant series to ses();
  // neither is ETS by likelihood, so the anchor is absent there.
  if (n <= 6) throw std::runtime_error("ets: " + std::to_string(n) + " rows are too few to fit");
  if (std::all_of(y, y + n, [&](double v) { return v == y[0]; }))
    throw std::runtime_error("ets: the series is constant on its fitting part");

  const bool positive = *std::min_element(y, y + n) > 0;
  // Seasonal forms need 1 < m ≤ 24 (etscalc's state arrays) and more rows than one cycle.
  const bool seasonal = p.period > 1 && p.period <= 24 && n > p.period;
  const std::vector<int> seasons =
      seasonal ? std::vector<int>{kNone, kAdditive, kMultiplicative} : std::vector<int>{kNone};

  std::optional<Fit> chosen;
  // ets()'s search order, damped before undamped; ties keep the earlier form.
  for (const int error : {kAdditive, kMultiplicative}) {
    if (error == kMultiplicative && !positive) continue;
    for (const int trend : {kNone, kAdditive}) {
      for (const int season : seasons) {
        // restrict = TRUE: additive errors with multiplicative seasons are unstable.
        if (error == kAdditive && season == kMultiplicative) continue;
        for (const bool damped : {true, false}) {
          if (damped && trend == kNone) continue;
          Form f;
          f.error = error;
          f.trend = trend;
          f.season = season;
          f.damped = damped;
          f.m = season == kNone ? 1 : static_cast<int>(p.period);
          std::optional<Fit> fit = fitForm(y, n, f);
          if (fit && fit->aicc < (chosen ? chosen->aicc : kInf)) chosen = std::move(fit);
        }
      }
    }
  }
  if (!chosen) throw std::runtime_error("ets: no model could be fitted");

  // The chosen form and its parameters, fixed, run over the whole series from the fitted
  // initial state: at each origin the state has seen exactly y[0..o].
  const int64_t H = p.horizon;
  const Form& form = chosen->form;
  const Smoothing& smoothing = chosen->smoothing;
  UnivariateForecast out;
  out.model = chosen->form.name();
  out.aicc = chosen->aicc;
  out.mean.resize(p.origins.size() * static_cast<size_t>(H));
  State x = chosen->initial;
  size_t k = 0;
  const auto L = static_cast<int64_t>(p.y.size());
  for (int64_t t = 0; t < L && k < p.origins.size(); ++t) {
    update(form, smoothing, x, y[t]);
    for (; k < p.origins.size() && p.origins[k] == t; ++k) {
      double damping = 0, power = 1;
      for (int64_t h = 1; h <= H; ++h) {
        damping += (power *= smoothing.phi);
        out.mean[k * static_cast<size_t>(H) + static_cast<size_t>(h - 1)] =
            pointForecast(form, x, h, damping);
      }
    }
  }
  return out;
}

}  // namespace rsalab::forecast
