// SPDX-License-Identifier: GPL-3.0-or-later
// One seasonal ARIMA(p, d, q)(P, D, Q)[m] order, fitted to a series that is differenced first:
//   w_t = (1 − B)^d (1 − B^m)^D y_t,   φ(B) Φ(B^m) (w_t − μ) = θ(B) Θ(B^m) ε_t,
// with μ present only when the order has a constant (d + D ≤ 1: a mean when nothing is
// differenced, a drift otherwise). The likelihood is the one of w, so orders with the same d and
// D compare by AICc. Two estimators:
//   conditional sum of squares (CSS): the innovations computed by the ARMA recursion with the
//     first residuals set to zero, summed from a chosen row on (the order search passes one
//     common row so that every candidate is scored on the same observations);
//   exact maximum likelihood: the Kalman filter of engine/core/forecast/state_space.h, started from
//   the
//     CSS estimate.
// Both optimise unconstrained parameters: each of φ, Φ, θ, Θ comes from partial
// autocorrelations tanh(x) through the Durbin–Levinson recursion, so every candidate is
// stationary and invertible (for the moving averages the sign is flipped: θ(B) = 1 − Σ a_j B^j
// with a the recursion's coefficients).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/forecast/state_space.h"

namespace rsalab::forecast::arima {

struct Order {
  int p = 0, d = 0, q = 0;
  int P = 0, D = 0, Q = 0;
  int64_t m = 1;
  bool constant = false;
  bool operator<(const Order& o) const;
  bool operator==(const Order& o) const { return !(*this < o) && !(o < *this); }
};
// As R prints it: "ARIMA(2,1,1)(0,1,1)[12] with drift", "ARIMA(2,0,3) with non-zero mean".
std::string describe(const Order& order);

// (1 − B)^d (1 − B^m)^D as c_0 = 1, c_1, …: w_t = Σ_k c_k y_{t−k}.
std::vector<double> differencingPolynomial(int d, int D, int64_t m);
std::vector<double> difference(const std::vector<double>& y, int d, int D, int64_t m);

struct Coefficients {
  std::vector<double> ar, ma, sar, sma;  // φ, θ, Φ, Θ (signs as in the model above)
  double mean = 0;                       // μ (0 without a constant)
};
// The ARMA in B alone: φ(B)Φ(B^m) and θ(B)Θ(B^m) multiplied out.
arma::Arma expand(const Coefficients& c, int64_t m);
// True when a root of the expanded AR or MA polynomial, φ(B)Φ(B^m) or θ(B)Θ(B^m), lies within
// 1.01 of the unit circle (forecast::auto.arima's rule): such a fit sits on the edge of
// stationarity or invertibility and is not used. For the seasonal factors that is a root of Φ or
// Θ (in its own variable) within 1.01^m.
bool nearUnitRoot(const Coefficients& c, int64_t m);

enum class Method { Css, Exact };

// The minimiser's point x for `order` on w: [p | q | P | Q | mean] (each autoregressive or
// moving-average block the factor's partial autocorrelations as tanh(x); the mean as the
// series' mean plus x standard deviations). Exposed for the tests.
Coefficients coefficientsAt(const std::vector<double>& w, const Order& order,
                            const std::vector<double>& x);
// The CSS criterion ½ log(S / n) at x (S over the rows from css_from, and from the expanded AR
// order, on) and, when `gradient` is not null, its gradient in x (analytic).
double cssCriterion(const std::vector<double>& w, const Order& order, int64_t css_from,
                    const std::vector<double>& x, std::vector<double>* gradient);

struct Fit {
  Order order;
  Coefficients coef;
  Method method = Method::Exact;
  double sigma2 = 0;
  double neg2_loglik = 0;  // −2 log L (for CSS its conditional-likelihood approximation)
  double aicc = 0;         // +∞ when the fit failed
  int64_t observations = 0;
};

// Fits `order` to the differenced series w. `css_from`: the first row whose CSS residual counts
// (raised to the expanded AR order when smaller); `exact_iterations`: the exact likelihood's
// BFGS budget (each of its iterations costs 2k + 1 filter passes or more).
Fit fit(const std::vector<double>& w, const Order& order, Method method, int64_t css_from = 0,
        int exact_iterations = 100);

// The exact likelihood of `order` with the coefficients fixed (no fitting): −2 log L, σ̂² and
// the AICc as fit() reports them (AICc +∞ when the filter fails).
Fit evaluate(const std::vector<double>& w, const Order& order, const Coefficients& coef);

// The fixed model run over the whole series y: its differenced series filtered from the
// stationary start, and at every origin o (increasing, o ≥ d + mD − 1) the forecasts of
// y[o+1] … y[o+H] summed back through the differencing polynomial; origins × H, row-major.
// Throws std::runtime_error when an origin precedes the differencing.
std::vector<double> originForecasts(const Order& order, const Coefficients& coef,
                                    const std::vector<double>& y,
                                    const std::vector<int64_t>& origins, int64_t horizon);

}  // namespace rsalab::forecast::arima
