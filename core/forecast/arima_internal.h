// SPDX-License-Identifier: GPL-3.0-or-later
// Internals of the automatic-ARIMA anchor (arima.cpp), shared by its arima_*.cpp parts: a port of
// stats::arima (arima_fit.cpp), of its likelihood's Kalman filter (arima_kalman.cpp), of R's
// optim BFGS (arima_optim.cpp) and of the differencing tests auto.arima relies on
// (arima_tests.cpp). Not part of the anchors' interface.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace rsalab::forecast::arima_internal {

// stats::arima failed where R would have thrown (optim's non-finite values, a non-stationary AR
// part from CSS, a singular Hessian): auto.arima scores such a model as ic = Inf.
struct FitFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Orders {
  int p = 0, d = 0, q = 0;
  int P = 0, D = 0, Q = 0;
  int m = 1;  // the period; seasonal orders are ignored when m == 1
};

// The one regressor auto.arima can add: an intercept (d + D == 0) or a drift 1..n (d + D == 1).
enum class Regressor { none, intercept, drift };
enum class FitMethod { css, css_ml };

struct ArimaFit {
  Orders orders;
  Regressor regressor = Regressor::none;
  std::vector<double> coef;   // ar, ma, sar, sma as R reports them, then the regressor's beta
  std::vector<double> phi;    // the expanded AR polynomial (seasonal product), as model$phi
  std::vector<double> theta;  // the expanded MA polynomial, as model$theta
  std::vector<double> delta;  // the differencing polynomial, as model$Delta
  double objective = 0;       // optim's final value (0.5 log σ² + …)
  double sigma2 = 0;          // CSS: the conditional variance; ML: ssq / n.used
  double loglik = 0;
  double aic = 0;  // NaN for CSS (as stats::arima)
  int n_used = 0;
  bool var_nan = false;  // forecast:::checkarima: a NaN standard error
};

// R's optim(par, fn, method = "BFGS", control = list(parscale)) (arima_optim.cpp); par and
// value in the original units. Throws FitFailure where optim throws (non-finite values).
using Objective = std::function<double(const std::vector<double>&)>;
struct OptimResult {
  std::vector<double> par;
  double value = 0;
  int convergence = 0;  // 1: maxit reached
};
OptimResult optimBfgs(const Objective& f, const std::vector<double>& x0,
                      const std::vector<double>& parscale, int maxit = 100);
// optim's hessian = TRUE: optimhess at par, symmetrised.
Eigen::MatrixXd optimHess(const Objective& f, const std::vector<double>& par,
                          const std::vector<double>& parscale);
// solve(a, b) as R's solve.default: throws FitFailure on a computationally singular a.
Eigen::MatrixXd rSolve(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

// ARIMA_Like (arima_kalman.cpp): sums over the non-diffuse steps (gain < 1e4).
struct LikeResult {
  double ssq = 0, sumlog = 0;
  int nu = 0;
};
LikeResult arimaLike(const std::vector<double>& y, const std::vector<double>& phi,
                     const std::vector<double>& theta, const std::vector<double>& delta);

// Port of stats::arima(x, order, seasonal, xreg, include.mean, method) with transform.pars = TRUE,
// SSinit = "Gardner1980", optim BFGS. Throws FitFailure where R would throw.
ArimaFit fitArima(const std::vector<double>& x, const Orders& o, Regressor reg, FitMethod method);

// stats::arima with every coefficient fixed and no ARMA part: auto.arima's fallback when the
// differenced series is constant (a polynomial trend, beta its slope or level).
ArimaFit fixedArima(const std::vector<double>& x, const Orders& o, Regressor reg, double beta);

// Regressor value at 0-based time t (drift: t + 1, as forecast::Arima's 1:n).
inline double regressorAt(Regressor reg, int64_t t) {
  return reg == Regressor::intercept ? 1.0 : reg == Regressor::drift ? double(t + 1) : 0.0;
}

// Minimum modulus of the roots of 1 - c1 z - … (sign = -1) or 1 + c1 z + … (sign = +1), as
// myarima's polyroot test, after truncating at the last |c| > 1e-8; 2 when there are none.
double minRootModulus(const std::vector<double>& c, double sign);

// Runs the fixed model's Kalman filter (the same recursion as ARIMA_Like) over z, the series with
// the regressor removed, and after the update at each origin forecasts z h = 1..horizon ahead.
std::vector<double> kalmanForecasts(const std::vector<double>& z, const ArimaFit& fit,
                                    const std::vector<int64_t>& origins, int horizon);

bool isConstant(const std::vector<double>& x);
int ndiffs(std::vector<double> x);                 // KPSS (urca::ur.kpss "mu"), alpha 0.05, max.d 2
int nsdiffs(const std::vector<double>& x, int m);  // "seas": STL seasonal strength > 0.64
double seasonalStrength(const std::vector<double>& x, int m);

}  // namespace rsalab::forecast::arima_internal
