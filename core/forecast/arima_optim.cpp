// SPDX-License-Identifier: GPL-3.0-or-later
// R's optim(method = "BFGS") as stats::arima calls it: vmmin (src/appl/optim.c) with optim's
// central-difference gradient (ndeps = 1e-3) on the parscale'd parameters, reltol =
// sqrt(DBL_EPSILON), maxit = 100, and optimhess for the Hessian. Ported rather than replaced by
// GSL's BFGS: where the optimiser stops decides AICc ties in auto.arima's search.
#include <cmath>
#include <limits>

#include "core/forecast/arima_internal.h"

namespace rsalab::forecast::arima_internal {
namespace {

// The objective on the scaled parameters u = par / parscale, with optim's fmingr gradient.
class ScaledFn {
 public:
  ScaledFn(const Objective& f, const std::vector<double>& parscale) : f_(f), ps_(parscale) {}
  double value(const std::vector<double>& u) const {
    std::vector<double> x(u.size());
    for (size_t i = 0; i < u.size(); ++i) x[i] = u[i] * ps_[i];
    return f_(x);
  }
  std::vector<double> gradient(std::vector<double> u) const {
    constexpr double ndeps = 1e-3;
    std::vector<double> g(u.size());
    for (size_t i = 0; i < u.size(); ++i) {
      const double ui = u[i];
      u[i] = ui + ndeps;
      const double v1 = value(u);
      u[i] = ui - ndeps;
      const double v2 = value(u);
      u[i] = ui;
      g[i] = (v1 - v2) / (2 * ndeps);
      if (!std::isfinite(g[i])) throw FitFailure("non-finite finite-difference value");
    }
    return g;
  }
  const std::vector<double>& parscale() const { return ps_; }

 private:
  const Objective& f_;
  std::vector<double> ps_;
};

// vmmin, line for line (abstol = -Inf).
OptimResult vmmin(const ScaledFn& fn, std::vector<double> b, int maxit) {
  constexpr double stepredn = 0.2, acctol = 0.0001, reltest = 10.0;
  const double reltol = std::sqrt(std::numeric_limits<double>::epsilon());
  const double abstol = -std::numeric_limits<double>::infinity();
  const int n = int(b.size());
  OptimResult r;
  double f = fn.value(b);
  if (maxit <= 0) {
    r.par = b;
    r.value = f;
    return r;
  }
  if (!std::isfinite(f)) throw FitFailure("initial value in 'vmmin' is not finite");
  double fmin = f;
  std::vector<double> g = fn.gradient(b), t(n), X(n), c(n);
  std::vector<std::vector<double>> B(n, std::vector<double>(n, 0.0));
  int iter = 1, gradcount = 1, ilast = gradcount, count = 0;
  do {
    if (ilast == gradcount) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) B[i][j] = 0.0;
        B[i][i] = 1.0;
      }
    }
    for (int i = 0; i < n; ++i) {
      X[i] = b[i];
      c[i] = g[i];
    }
    double gradproj = 0.0;
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int j = 0; j <= i; ++j) s -= B[i][j] * g[j];
      for (int j = i + 1; j < n; ++j) s -= B[j][i] * g[j];
      t[i] = s;
      gradproj += s * g[i];
    }
    if (gradproj < 0.0) {
      double steplength = 1.0;
      bool accpoint = false;
      do {
        count = 0;
        for (int i = 0; i < n; ++i) {
          b[i] = X[i] + steplength * t[i];
          if (reltest + X[i] == reltest + b[i]) ++count;
        }
        if (count < n) {
          f = fn.value(b);
          accpoint = std::isfinite(f) && f <= fmin + gradproj * steplength * acctol;
          if (!accpoint) steplength *= stepredn;
        }
      } while (!(count == n || accpoint));
      const bool enough = f > abstol && std::fabs(f - fmin) > reltol * (std::fabs(fmin) + reltol);
      if (!enough) {
        count = n;
        fmin = f;
      }
      if (count < n) {
        fmin = f;
        g = fn.gradient(b);
        ++gradcount;
        ++iter;
        double D1 = 0.0;
        for (int i = 0; i < n; ++i) {
          t[i] = steplength * t[i];
          c[i] = g[i] - c[i];
          D1 += t[i] * c[i];
        }
        if (D1 > 0) {
          double D2 = 0.0;
          for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j <= i; ++j) s += B[i][j] * c[j];
            for (int j = i + 1; j < n; ++j) s += B[j][i] * c[j];
            X[i] = s;
            D2 += s * c[i];
          }
          D2 = 1.0 + D2 / D1;
          for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j)
              B[i][j] += (D2 * t[i] * t[j] - X[i] * t[j] - t[i] * X[j]) / D1;
        } else {
          ilast = gradcount;
        }
      } else if (ilast < gradcount) {
        count = 0;
        ilast = gradcount;
      }
    } else {
      count = 0;
      if (ilast == gradcount)
        count = n;
      else
        ilast = gradcount;
    }
    if (iter >= maxit) break;
    if (gradcount - ilast > 2 * n) ilast = gradcount;
  } while (count != n || ilast != gradcount);
  r.par = b;
  r.value = fmin;
  r.convergence = iter < maxit ? 0 : 1;
  return r;
}

}  // namespace

OptimResult optimBfgs(const Objective& f, const std::vector<double>& x0,
                      const std::vector<double>& parscale, int maxit) {
  ScaledFn fn(f, parscale);
  std::vector<double> u(x0.size());
  for (size_t i = 0; i < u.size(); ++i) u[i] = x0[i] / parscale[i];
  OptimResult r = vmmin(fn, u, maxit);
  for (size_t i = 0; i < u.size(); ++i) r.par[i] *= parscale[i];
  return r;
}

Eigen::MatrixXd optimHess(const Objective& f, const std::vector<double>& par,
                          const std::vector<double>& parscale) {
  constexpr double ndeps = 1e-3;
  ScaledFn fn(f, parscale);
  const size_t n = par.size();
  std::vector<double> dpar(n);
  for (size_t i = 0; i < n; ++i) dpar[i] = par[i] / parscale[i];
  Eigen::MatrixXd H(n, n);
  for (size_t i = 0; i < n; ++i) {
    const double eps = ndeps / parscale[i];
    dpar[i] += eps;
    const std::vector<double> df1 = fn.gradient(dpar);
    dpar[i] -= 2 * eps;
    const std::vector<double> df2 = fn.gradient(dpar);
    for (size_t j = 0; j < n; ++j)
      H(i, j) = (df1[j] - df2[j]) / (2 * eps * parscale[i] * parscale[j]);
    dpar[i] += eps;
  }
  return 0.5 * (H + H.transpose());
}

Eigen::MatrixXd rSolve(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (!a.allFinite()) throw FitFailure("non-finite Hessian");
  Eigen::PartialPivLU<Eigen::MatrixXd> lu(a);
  if (!(lu.rcond() >= std::numeric_limits<double>::epsilon()))
    throw FitFailure("system is computationally singular");
  return lu.solve(b);
}

}  // namespace rsalab::forecast::arima_internal
