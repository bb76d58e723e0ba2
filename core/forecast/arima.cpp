// SPDX-License-Identifier: GPL-3.0-or-later
// The auto_arima anchor: forecast::auto.arima with its defaults (Hyndman & Khandakar 2008), ported
// from forecast 8.20's R code (auto.arima, myarima, newmodel, arima.string); stats::arima itself
// is ported in arima_fit.cpp and the differencing tests in arima_tests.cpp.
//
// Protocol: the orders and parameters are chosen on y[0, fit_end); the model is then fixed and
// its Kalman filter (R's state-space form, differencing included) runs once over the whole
// series, so each origin's forecasts use exactly y[0..o], as forecast::Arima(y, model = fit).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/forecast/arima_internal.h"
#include "core/forecast/forecast.h"

namespace rsalab::forecast {
namespace {

using namespace arima_internal;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Candidate {
  int p, q, P, Q;
  bool constant;
};

struct Scored {
  std::optional<ArimaFit> fit;  // empty: stats::arima failed (myarima's list(ic = Inf))
  double ic = kInf;
  double aicc = kInf;
};

struct Search {
  const std::vector<double>& x;
  int d, D, m;
  bool approximation;
  double offset;
  bool use_aic;  // auto.arima scores series of 3 values or fewer by AIC

  // forecast:::myarima with ic = "aicc".
  Scored myarima(const Candidate& c, bool approx) const {
    Scored s;
    const int n = int(x.size());
    Orders o{c.p, d, c.q, c.P, D, c.Q, m};
    if (m <= 1) o.P = o.D = o.Q = 0;
    const int diffs = d + D;
    Regressor reg = Regressor::none;
    if (c.constant)
      reg = diffs == 1 ? Regressor::drift : diffs == 0 ? Regressor::intercept : Regressor::none;
    try {
      s.fit = fitArima(x, o, reg, approx ? FitMethod::css : FitMethod::css_ml);
    } catch (const FitFailure&) {
      return s;
    }
    ArimaFit& f = *s.fit;
    const int nstar = n - d - D * m;
    const int npar = int(f.coef.size()) + 1;
    double aic = f.aic;
    if (approx) aic = offset + nstar * std::log(f.sigma2) + 2 * npar;
    if (std::isnan(aic)) {
      s.ic = s.aicc = kInf;
    } else {
      s.aicc = aic + 2.0 * npar * (npar + 1) / double(nstar - npar - 1);
      s.ic = use_aic ? aic : s.aicc;
    }
    double minroot = 2;
    try {
      if (c.p + c.P > 0) minroot = std::min(minroot, minRootModulus(f.phi, -1.0));
      if (c.q + c.Q > 0 && s.ic < kInf) minroot = std::min(minroot, minRootModulus(f.theta, +1.0));
    } catch (const FitFailure&) {
      s.ic = kInf;
    }
    if (minroot < 1 + 0.01 || f.var_nan) s.ic = kInf;
    return s;
  }
};

std::string arimaString(const ArimaFit& f) {
  const Orders& o = f.orders;
  std::string s =
      "ARIMA(" + std::to_string(o.p) + "," + std::to_string(o.d) + "," + std::to_string(o.q) + ")";
  if (o.m > 1 && o.P + o.D + o.Q > 0)
    s += "(" + std::to_string(o.P) + "," + std::to_string(o.D) + "," + std::to_string(o.Q) + ")[" +
         std::to_string(o.m) + "]";
  if (f.regressor == Regressor::drift)
    s += " with drift";
  else if (f.regressor == Regressor::intercept)
    s += " with non-zero mean";
  else if (o.d == 0 && o.D == 0)
    s += " with zero mean";
  return s;
}

std::vector<double> diffLag(const std::vector<double>& x, int lag) {
  std::vector<double> out;
  for (size_t i = size_t(lag); i < x.size(); ++i) out.push_back(x[i] - x[i - lag]);
  return out;
}

// auto.arima's answer when the differenced series is constant: the polynomial trend itself, its
// slope (or none) fixed rather than estimated.
std::pair<ArimaFit, double> polynomialTrend(const std::vector<double>& x,
                                            const std::vector<double>& dx, int d, int D, int m) {
  double mean_dx = 0;
  for (double v : dx) mean_dx += v;
  mean_dx /= double(dx.size());
  Regressor reg = Regressor::none;
  double beta = 0;
  if (D > 0 && d == 0) {
    reg = Regressor::drift;
    beta = mean_dx / m;
  } else if (D == 0 && d < 2) {
    reg = d == 1 ? Regressor::drift : Regressor::intercept;
    beta = mean_dx;
  }
  ArimaFit fit;
  try {
    fit = fixedArima(x, Orders{0, d, 0, 0, D, 0, m}, reg, beta);
  } catch (const FitFailure& e) {
    throw std::runtime_error(std::string("auto.arima: ") + e.what());
  }
  // forecast::Arima's AICc with one parameter (sigma^2): usually -Inf, the fit being exact.
  const double nstar = double(x.size()) - d - D * m;
  const double aicc = fit.aic + 2.0 * (nstar / (nstar - 2) - 1);
  return {fit, aicc};
}

// auto.arima(x) with its defaults; returns the chosen (ML) fit and its AICc.
std::pair<ArimaFit, double> autoArima(const std::vector<double>& x, int m_in, int max_so) {
  const int n = int(x.size());
  if (n == 0) throw std::runtime_error("auto.arima: no data");
  if (isConstant(x)) throw std::runtime_error("auto.arima: the series is constant");
  int m = std::max(1, m_in);
  int max_p = std::min(5, n / 3), max_q = std::min(5, n / 3);
  int max_P = std::min({2, max_so, n / 3 / m}), max_Q = std::min({2, max_so, n / 3 / m});
  int D = 0;
  if (m == 1) {
    max_P = max_Q = 0;
  } else if (n > 2 * m) {
    D = nsdiffs(x, m);
  }
  std::vector<double> dx = D > 0 ? diffLag(x, m) : x;
  int d = ndiffs(dx);
  for (int i = 0; i < d; ++i) dx = diffLag(dx, 1);
  if (dx.empty()) throw std::runtime_error("auto.arima: not enough data to proceed");
  if (isConstant(dx)) return polynomialTrend(x, dx, d, D, m);
  if (m > 1) {
    if (max_P > 0) max_p = std::min(max_p, m - 1);
    if (max_Q > 0) max_q = std::min(max_q, m - 1);
  }
  const bool approximation = n > 150 || m > 12;
  double offset = 0;
  if (approximation) {
    // stats::arima(x, order = c(0, d, 0), seasonal = c(0, D, 0)): include.mean's default.
    try {
      const ArimaFit f0 =
          fitArima(x, Orders{0, d, 0, 0, D, 0, m},
                   d + D == 0 ? Regressor::intercept : Regressor::none, FitMethod::css_ml);
      offset = -2 * f0.loglik - n * std::log(f0.sigma2);
    } catch (const FitFailure&) {
      offset = 0;
    }
  }
  const bool allowdrift = d + D == 1, allowmean = d + D == 0;
  bool constant = allowdrift || allowmean;
  const Search search{x, d, D, m, approximation, offset, n <= 3};

  int start_p = 2, start_q = 2, start_P = 1, start_Q = 1;
  if (n < 10) {
    start_p = std::min(start_p, 1);
    start_q = std::min(start_q, 1);
    start_P = start_Q = 0;
  }
  int p = std::min(start_p, max_p), q = std::min(start_q, max_q);
  int P = std::min(start_P, max_P), Q = std::min(start_Q, max_Q);
  const int nmodels = 94;
  struct Row {
    Candidate c;
    double ic;
  };
  std::vector<Row> results;
  auto seen = [&](const Candidate& c) {
    for (const Row& r : results)
      if (r.c.p == c.p && r.c.q == c.q && r.c.P == c.P && r.c.Q == c.Q &&
          r.c.constant == c.constant)
        return true;
    return false;
  };
  Scored best = search.myarima({p, q, P, Q, constant}, approximation);
  results.push_back({{p, q, P, Q, constant}, best.ic});
  auto tryStart = [&](const Candidate& c) {
    Scored s = search.myarima(c, approximation);
    results.push_back({c, s.ic});
    if (s.ic < best.ic) {
      best = std::move(s);
      return true;
    }
    return false;
  };
  if (tryStart({0, 0, 0, 0, constant})) p = q = P = Q = 0;
  if (max_p > 0 || max_P > 0) {
    const Candidate c{max_p > 0 ? 1 : 0, 0, (m > 1 && max_P > 0) ? 1 : 0, 0, constant};
    if (tryStart(c)) {
      p = c.p;
      P = c.P;
      q = Q = 0;
    }
  }
  if (max_q > 0 || max_Q > 0) {
    const Candidate c{0, max_q > 0 ? 1 : 0, 0, (m > 1 && max_Q > 0) ? 1 : 0, constant};
    if (tryStart(c)) {
      p = P = 0;
      Q = c.Q;
      q = c.q;
    }
  }
  if (constant) {
    if (tryStart({0, 0, 0, 0, false})) p = q = P = Q = 0;
  }

  // The stepwise neighbourhood, in auto.arima's order; the first improvement restarts it.
  int k = int(results.size());
  int startk = 0;
  while (startk < k && k < nmodels) {
    startk = k;
    struct Move {
      int dp, dq, dP, dQ;
      bool allowed;
    };
    const Move moves[] = {
        {0, 0, -1, 0, P > 0},
        {0, 0, 0, -1, Q > 0},
        {0, 0, +1, 0, P < max_P},
        {0, 0, 0, +1, Q < max_Q},
        {0, 0, -1, -1, Q > 0 && P > 0},
        {0, 0, -1, +1, Q < max_Q && P > 0},
        {0, 0, +1, -1, Q > 0 && P < max_P},
        {0, 0, +1, +1, Q < max_Q && P < max_P},
        {-1, 0, 0, 0, p > 0},
        {0, -1, 0, 0, q > 0},
        {+1, 0, 0, 0, p < max_p},
        {0, +1, 0, 0, q < max_q},
        {-1, -1, 0, 0, q > 0 && p > 0},
        {-1, +1, 0, 0, q < max_q && p > 0},
        {+1, -1, 0, 0, q > 0 && p < max_p},
        {+1, +1, 0, 0, q < max_q && p < max_p},
    };
    bool improved = false;
    for (const Move& mv : moves) {
      if (!mv.allowed) continue;
      const Candidate c{p + mv.dp, q + mv.dq, P + mv.dP, Q + mv.dQ, constant};
      if (seen(c)) continue;
      ++k;
      if (k > nmodels) break;
      Scored s = search.myarima(c, approximation);
      results.push_back({c, s.ic});
      if (s.ic < best.ic) {
        best = std::move(s);
        p = c.p;
        q = c.q;
        P = c.P;
        Q = c.Q;
        improved = true;
        break;
      }
    }
    if (improved || k > nmodels) continue;
    if (allowdrift || allowmean) {
      const Candidate c{p, q, P, Q, !constant};
      if (!seen(c)) {
        ++k;
        if (k > nmodels) continue;
        Scored s = search.myarima(c, approximation);
        results.push_back({c, s.ic});
        if (s.ic < best.ic) {
          best = std::move(s);
          constant = !constant;
        }
      }
    }
  }

  if (approximation && best.fit) {
    // Refit without the approximation, best CSS score first, until one fits.
    std::vector<size_t> order(results.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return results[a].ic < results[b].ic; });
    for (size_t i : order) {
      Scored s = search.myarima(results[i].c, false);
      if (s.ic < kInf) {
        best = std::move(s);
        break;
      }
    }
  }
  if (!best.fit || best.ic == kInf) throw std::runtime_error("auto.arima: no suitable ARIMA model");
  return {*best.fit, best.aicc};
}

}  // namespace

UnivariateForecast autoArimaForecast(const UnivariateProblem& p) {
  checkProblem(p);
  const std::vector<double> train(p.y.begin(), p.y.begin() + p.fit_end);
  const auto [fit, aicc] = autoArima(train, int(p.period), int(p.max_seasonal_order));

  // Forecast::Arima(y, model = fit): the same coefficients, the filter over all of y.
  const int64_t L = int64_t(p.y.size());
  const int narma = fit.orders.p + fit.orders.q + fit.orders.P + fit.orders.Q;
  const double beta = fit.regressor == Regressor::none ? 0.0 : fit.coef[narma];
  std::vector<double> z(L);
  for (int64_t t = 0; t < L; ++t) z[t] = p.y[t] - beta * regressorAt(fit.regressor, t);
  const int H = int(p.horizon);
  std::vector<double> mean = kalmanForecasts(z, fit, p.origins, H);
  for (size_t k = 0; k < p.origins.size(); ++k)
    for (int h = 1; h <= H; ++h)
      mean[k * H + h - 1] += beta * regressorAt(fit.regressor, p.origins[k] + h);

  UnivariateForecast out;
  out.mean = std::move(mean);
  out.model = arimaString(fit);
  out.aicc = aicc;
  return out;
}

}  // namespace rsalab::forecast
