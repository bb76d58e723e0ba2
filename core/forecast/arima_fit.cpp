// SPDX-License-Identifier: GPL-3.0-or-later
// A port of stats::arima as auto.arima calls it (R's src/library/stats/R/arima.R and
// src/arima.c: ARIMA_transPars, partrans, ARIMA_CSS, maInvert, the CSS-ML sequence); the
// likelihood (ARIMA_Like, getQ0) is in arima_kalman.cpp and R's optim BFGS in arima_optim.cpp.
// Ported literally rather than re-derived: auto.arima's
// choice between models often turns on small AICc differences, so the same optimiser path, the
// same starting values and the same Gardner (1980) initial covariance matter.
#include <gsl/gsl_errno.h>
#include <gsl/gsl_poly.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>

#include "core/forecast/arima_internal.h"

namespace rsalab::forecast::arima_internal {
namespace {

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------
// Parameter transformations (arima.c).

struct Arma {
  int mp, mq, msp, msq, ns, d, D;
  int narma() const { return mp + mq + msp + msq; }
};

void partrans(int p, const double* raw, double* out) {
  std::vector<double> work(p);
  for (int j = 0; j < p; ++j) work[j] = out[j] = std::tanh(raw[j]);
  for (int j = 1; j < p; ++j) {
    const double a = out[j];
    for (int k = 0; k < j; ++k) work[k] -= a * out[j - k - 1];
    for (int k = 0; k < j; ++k) out[k] = work[k];
  }
}

void invpartrans(int p, const double* phi, double* out) {
  std::vector<double> work(p);
  for (int j = 0; j < p; ++j) work[j] = out[j] = phi[j];
  for (int j = p - 1; j > 0; --j) {
    const double a = out[j];
    for (int k = 0; k < j; ++k) work[k] = (out[k] + a * out[j - k - 1]) / (1 - a * a);
    for (int k = 0; k < j; ++k) out[k] = work[k];
  }
  for (int j = 0; j < p; ++j) out[j] = std::atanh(out[j]);
}

std::vector<double> undoPars(const std::vector<double>& in, const Arma& a) {
  std::vector<double> out = in;
  if (a.mp > 0) partrans(a.mp, in.data(), out.data());
  const int v = a.mp + a.mq;
  if (a.msp > 0) partrans(a.msp, in.data() + v, out.data() + v);
  return out;
}

std::vector<double> invTrans(const std::vector<double>& in, const Arma& a) {
  std::vector<double> out = in;
  if (a.mp > 0) invpartrans(a.mp, in.data(), out.data());
  const int v = a.mp + a.mq;
  if (a.msp > 0) invpartrans(a.msp, in.data() + v, out.data() + v);
  return out;
}

// ARIMA_Gradtrans: the Jacobian of undoPars by forward differences (eps = 1e-3).
Eigen::MatrixXd gradTrans(const std::vector<double>& raw, const Arma& a) {
  constexpr double eps = 1e-3;
  const int n = int(raw.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Identity(n, n);
  auto block = [&](int off, int len) {
    if (len <= 0) return;
    std::vector<double> w1(raw.begin() + off, raw.begin() + off + len), w2(len), w3(len);
    partrans(len, w1.data(), w2.data());
    for (int i = 0; i < len; ++i) {
      w1[i] += eps;
      partrans(len, w1.data(), w3.data());
      for (int j = 0; j < len; ++j) A(off + i, off + j) = (w3[j] - w2[j]) / eps;
      w1[i] -= eps;
    }
  };
  block(0, a.mp);
  block(a.mp + a.mq, a.msp);
  return A;
}

// ARIMA_transPars: expands the seasonal product into phi and theta.
void transPars(const std::vector<double>& in, const Arma& a, bool trans, std::vector<double>& phi,
               std::vector<double>& theta) {
  const std::vector<double> params = trans ? undoPars(in, a) : in;
  const int p = a.mp + a.ns * a.msp, q = a.mq + a.ns * a.msq;
  phi.assign(p, 0.0);
  theta.assign(q, 0.0);
  for (int i = 0; i < a.mp; ++i) phi[i] = params[i];
  for (int i = 0; i < a.mq; ++i) theta[i] = params[i + a.mp];
  for (int j = 0; j < a.msp; ++j) {
    phi[(j + 1) * a.ns - 1] += params[j + a.mp + a.mq];
    for (int i = 0; i < a.mp; ++i) phi[(j + 1) * a.ns + i] -= params[i] * params[j + a.mp + a.mq];
  }
  for (int j = 0; j < a.msq; ++j) {
    theta[(j + 1) * a.ns - 1] += params[j + a.mp + a.mq + a.msp];
    for (int i = 0; i < a.mq; ++i)
      theta[(j + 1) * a.ns + i] += params[i + a.mp] * params[j + a.mp + a.mq + a.msp];
  }
}

// Roots of the polynomial c[0] + c[1] z + … (c.back() != 0).
std::vector<std::complex<double>> polyroot(const std::vector<double>& c) {
  const size_t deg = c.size() - 1;
  std::vector<std::complex<double>> roots;
  if (deg == 0) return roots;
  if (deg == 1) return {std::complex<double>(-c[0] / c[1], 0.0)};
  std::vector<double> z(2 * deg);
  gsl_set_error_handler_off();
  gsl_poly_complex_workspace* w = gsl_poly_complex_workspace_alloc(c.size());
  const int status = gsl_poly_complex_solve(c.data(), c.size(), w, z.data());
  gsl_poly_complex_workspace_free(w);
  if (status != GSL_SUCCESS) throw FitFailure("polyroot failed");
  for (size_t i = 0; i < deg; ++i) roots.emplace_back(z[2 * i], z[2 * i + 1]);
  return roots;
}

// arima()'s arCheck: all roots of 1 - ar1 z - … outside the unit circle.
bool arCheck(const double* ar, int n) {
  int p = 0;
  for (int i = 0; i < n; ++i)
    if (ar[i] != 0) p = i + 1;
  if (p == 0) return true;
  std::vector<double> c(p + 1);
  c[0] = 1;
  for (int i = 0; i < p; ++i) c[i + 1] = -ar[i];
  for (const auto& r : polyroot(c))
    if (!(std::abs(r) > 1)) return false;
  return true;
}

// arima()'s maInvert: reflects MA roots inside the unit circle.
void maInvert(double* ma, int q) {
  int q0 = 0;
  for (int i = 0; i < q; ++i)
    if (ma[i] != 0) q0 = i + 1;
  if (q0 == 0) return;
  std::vector<double> c(q0 + 1);
  c[0] = 1;
  for (int i = 0; i < q0; ++i) c[i + 1] = ma[i];
  std::vector<std::complex<double>> roots = polyroot(c);
  bool any = false;
  for (const auto& r : roots) any = any || std::abs(r) < 1;
  if (!any) return;
  if (q0 == 1) {
    ma[0] = 1 / ma[0];
    for (int i = 1; i < q; ++i) ma[i] = 0;
    return;
  }
  for (auto& r : roots)
    if (std::abs(r) < 1) r = 1.0 / r;
  std::vector<std::complex<double>> x{1.0};
  for (const auto& r : roots) {
    std::vector<std::complex<double>> nx(x.size() + 1, 0.0);
    for (size_t i = 0; i < x.size(); ++i) nx[i] += x[i];
    for (size_t i = 0; i < x.size(); ++i) nx[i + 1] -= x[i] / r;
    x = nx;
  }
  for (int i = 0; i < q; ++i) ma[i] = i < q0 ? x[i + 1].real() : 0.0;
}

// ARIMA_CSS: the conditional sum of squares / nu.
double arimaCss(const std::vector<double>& y, const Arma& arma, const std::vector<double>& phi,
                const std::vector<double>& theta, int ncond) {
  const int n = int(y.size()), p = int(phi.size()), q = int(theta.size());
  std::vector<double> w = y, resid(n, 0.0);
  for (int i = 0; i < arma.d; ++i)
    for (int l = n - 1; l > 0; --l) w[l] -= w[l - 1];
  const int ns = arma.ns;
  for (int i = 0; i < arma.D; ++i)
    for (int l = n - 1; l >= ns; --l) w[l] -= w[l - ns];
  double ssq = 0.0;
  int nu = 0;
  for (int l = ncond; l < n; ++l) {
    double tmp = w[l];
    for (int j = 0; j < p; ++j) tmp -= phi[j] * w[l - j - 1];
    for (int j = 0; j < std::min(l - ncond, q); ++j) tmp -= theta[j] * resid[l - j - 1];
    resid[l] = tmp;
    if (!std::isnan(tmp)) {
      ++nu;
      ssq += tmp * tmp;
    }
  }
  return ssq / double(nu);
}

// makeARIMA's Delta: (1 - B)^d (1 - B^m)^D, negated and without its leading 1.
std::vector<double> makeDelta(const Orders& o) {
  auto conv = [](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> ab(a.size() + b.size() - 1, 0.0);
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < b.size(); ++j) ab[i + j] += a[i] * b[j];
    return ab;
  };
  std::vector<double> Delta{1.0};
  for (int i = 0; i < o.d; ++i) Delta = conv(Delta, {1.0, -1.0});
  for (int i = 0; i < o.D; ++i) {
    std::vector<double> s(o.m + 1, 0.0);
    s[0] = 1;
    s[o.m] = -1;
    Delta = conv(Delta, s);
  }
  std::vector<double> delta(Delta.begin() + 1, Delta.end());
  for (double& v : delta) v = -v;
  return delta;
}

std::vector<double> diffLag(const std::vector<double>& x, int lag) {
  std::vector<double> out;
  for (size_t i = size_t(lag); i < x.size(); ++i) out.push_back(x[i] - x[i - lag]);
  return out;
}

}  // namespace

double minRootModulus(const std::vector<double>& c, double sign) {
  int last = 0;
  for (size_t i = 0; i < c.size(); ++i)
    if (std::fabs(c[i]) > 1e-8) last = int(i) + 1;
  if (last == 0) return 2.0;
  std::vector<double> poly(last + 1);
  poly[0] = 1;
  for (int i = 0; i < last; ++i) poly[i + 1] = sign * c[i];
  double m = 2.0;
  for (const auto& r : polyroot(poly)) m = std::min(m, std::abs(r));
  return m;
}

ArimaFit fitArima(const std::vector<double>& x, const Orders& o, Regressor reg, FitMethod method) {
  const int m = o.m;
  const Arma arma{o.p, o.q, o.P, o.Q, m, o.d, o.D};
  const int narma = arma.narma(), n = int(x.size());
  for (double v : x)
    if (!std::isfinite(v)) throw FitFailure("the fit range holds a missing value");

  const std::vector<double> delta = makeDelta(o);
  const int n_used = n - int(delta.size());
  if (n_used <= 0) throw FitFailure("too few non-missing observations");

  const bool has_reg = reg != Regressor::none;
  std::vector<double> xreg;
  std::vector<double> init0(narma, 0.0), parscale(narma, 1.0);
  if (has_reg) {
    xreg.resize(n);
    for (int t = 0; t < n; ++t) xreg[t] = regressorAt(reg, t);
    // lm(dx ~ dxreg - 1) on the differenced data gives the start and the scale.
    std::vector<double> dx = x, dr = xreg;
    for (int i = 0; i < o.d; ++i) {
      dx = diffLag(dx, 1);
      dr = diffLag(dr, 1);
    }
    if (m > 1)
      for (int i = 0; i < o.D; ++i) {
        dx = diffLag(dx, m);
        dr = diffLag(dr, m);
      }
    auto lm1 = [](const std::vector<double>& yv, const std::vector<double>& xv, double* b,
                  double* se) {
      double sxx = 0, sxy = 0;
      for (size_t i = 0; i < yv.size(); ++i) {
        sxx += xv[i] * xv[i];
        sxy += xv[i] * yv[i];
      }
      if (sxx == 0) return false;
      *b = sxy / sxx;
      double rss = 0;
      for (size_t i = 0; i < yv.size(); ++i) rss += std::pow(yv[i] - *b * xv[i], 2);
      *se = std::sqrt(rss / double(yv.size() - 1) / sxx);
      return true;
    };
    double b = 0, se = 0;
    if (!(dx.size() > 1 && lm1(dx, dr, &b, &se)) && !lm1(x, xreg, &b, &se))
      throw FitFailure("the regressor is degenerate");
    init0.push_back(b);
    parscale.push_back(10 * se);
  }
  const int npar = int(init0.size());
  for (double s : parscale)
    if (!(s > 0) || !std::isfinite(s)) throw FitFailure("degenerate parameter scale");

  auto removeReg = [&](const std::vector<double>& par) {
    if (!has_reg) return x;
    std::vector<double> z(n);
    for (int t = 0; t < n; ++t) z[t] = x[t] - xreg[t] * par[narma];
    return z;
  };

  int ncond = o.d + o.D * m + o.p + m * o.P;
  const Objective armaCss = [&](const std::vector<double>& par) {
    std::vector<double> phi, theta;
    transPars(par, arma, false, phi, theta);
    return 0.5 * std::log(arimaCss(removeReg(par), arma, phi, theta, ncond));
  };
  const Objective armaFn = [&](const std::vector<double>& par) {
    std::vector<double> phi, theta;
    transPars(par, arma, true, phi, theta);
    const LikeResult r = arimaLike(removeReg(par), phi, theta, delta);
    const double s2 = r.ssq / r.nu;
    return 0.5 * (std::log(s2) + r.sumlog / r.nu);
  };

  ArimaFit fit;
  fit.orders = o;
  fit.regressor = reg;
  fit.delta = delta;
  fit.n_used = n_used;
  Eigen::MatrixXd var;
  OptimResult res;
  std::vector<double> coef;
  if (method == FitMethod::css) {
    res = npar > 0 ? optimBfgs(armaCss, init0, parscale) : OptimResult{{}, armaCss({}), 0};
    coef = res.par;
    transPars(coef, arma, false, fit.phi, fit.theta);
    fit.sigma2 = arimaCss(removeReg(coef), arma, fit.phi, fit.theta, ncond);
    if (npar > 0) {
      const Eigen::MatrixXd H = optimHess(armaCss, coef, parscale) * double(n_used);
      var = rSolve(H, Eigen::MatrixXd::Identity(npar, npar));
    }
  } else {
    std::vector<double> init = init0;
    if (npar > 0) {
      res = optimBfgs(armaCss, init0, parscale);
      if (res.convergence == 0) init = res.par;
    }
    if (arma.mp > 0 && !arCheck(init.data(), arma.mp))
      throw FitFailure("non-stationary AR part from CSS");
    if (arma.msp > 0 && !arCheck(init.data() + arma.mp + arma.mq, arma.msp))
      throw FitFailure("non-stationary seasonal AR part from CSS");
    ncond = 0;
    init = invTrans(init, arma);
    if (arma.mq > 0) maInvert(init.data() + arma.mp, arma.mq);
    if (arma.msq > 0) maInvert(init.data() + arma.mp + arma.mq + arma.msp, arma.msq);
    if (npar > 0) {
      res = optimBfgs(armaFn, init, parscale);
    } else {
      res = OptimResult{{}, armaFn({}), 0};
    }
    coef = res.par;
    if (arma.mq > 0) maInvert(coef.data() + arma.mp, arma.mq);
    if (arma.msq > 0) maInvert(coef.data() + arma.mp + arma.mq + arma.msp, arma.msq);
    if (coef != res.par) res.value = armaFn(coef);  // optim(maxit = 0) at the inverted point
    if (npar > 0) {
      const Eigen::MatrixXd H = optimHess(armaFn, coef, parscale) * double(n_used);
      const Eigen::MatrixXd A = gradTrans(coef, arma);
      var = A.transpose() * rSolve(H, A);
    }
    coef = undoPars(coef, arma);
    transPars(coef, arma, false, fit.phi, fit.theta);
    const LikeResult r = arimaLike(removeReg(coef), fit.phi, fit.theta, delta);
    fit.sigma2 = r.ssq / n_used;
  }
  fit.coef = coef;
  fit.objective = res.value;
  const double value = 2 * n_used * res.value + n_used + n_used * std::log(2 * kPi);
  fit.loglik = -0.5 * value;
  fit.aic =
      method == FitMethod::css ? std::numeric_limits<double>::quiet_NaN() : value + 2 * npar + 2;
  for (int i = 0; i < var.rows(); ++i)
    if (!(var(i, i) >= 0)) fit.var_nan = true;
  // makeARIMA pads theta to r - 1; the root tests truncate trailing zeros, so it is left as is.
  return fit;
}

ArimaFit fixedArima(const std::vector<double>& x, const Orders& o, Regressor reg, double beta) {
  ArimaFit fit;
  fit.orders = o;
  fit.regressor = reg;
  fit.delta = makeDelta(o);
  const int n = int(x.size());
  fit.n_used = n - int(fit.delta.size());
  if (fit.n_used <= 0) throw FitFailure("too few non-missing observations");
  if (reg != Regressor::none) fit.coef.push_back(beta);
  std::vector<double> z(n);
  for (int t = 0; t < n; ++t) z[t] = x[t] - beta * regressorAt(reg, t);
  const LikeResult r = arimaLike(z, fit.phi, fit.theta, fit.delta);
  fit.objective = 0.5 * (std::log(r.ssq / r.nu) + r.sumlog / r.nu);
  fit.sigma2 = r.ssq / fit.n_used;
  const double value = 2 * fit.n_used * fit.objective + fit.n_used + fit.n_used * std::log(2 * kPi);
  fit.loglik = -0.5 * value;
  fit.aic = value + 2;  // no free coefficient
  return fit;
}

}  // namespace rsalab::forecast::arima_internal