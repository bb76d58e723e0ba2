// SPDX-License-Identifier: GPL-3.0-or-later
// The exact Gaussian likelihood of stats::arima: the Kalman filter of arima.c's ARIMA_Like on
// makeARIMA's state space (r ARMA states, then the lagged levels the differencing polynomial
// needs, with a diffuse prior of variance kappa = 1e6), started from Gardner et al.'s (1980)
// stationary covariance (getQ0, via AS154's inclu2). The same filter, with the fitted model
// fixed, produces the anchor's forecasts.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/forecast/arima_internal.h"

namespace rsalab::forecast::arima_internal {
namespace {

constexpr double kKappa = 1e6;  // makeARIMA's prior variance of the differenced states

// ---------------------------------------------------------------------------------------------
// Gardner, Harvey & Phillips (1980) initial state covariance: getQ0 of arima.c, via AS154's inclu2.

void inclu2(long np, const double* xnext, double* xrow, double ynext, double* d, double* rbar,
            double* thetab) {
  for (long i = 0; i < np; ++i) xrow[i] = xnext[i];
  long ithisr = 0;
  for (long i = 0; i < np; ++i) {
    if (xrow[i] != 0.0) {
      const double xi = xrow[i], di = d[i], dpi = di + xi * xi;
      d[i] = dpi;
      const double cbar = di / dpi, sbar = xi / dpi;
      for (long k = i + 1; k < np; ++k) {
        const double xk = xrow[k], rbthis = rbar[ithisr];
        xrow[k] = xk - xi * rbthis;
        rbar[ithisr++] = cbar * rbthis + sbar * xk;
      }
      const double xk = ynext;
      ynext = xk - xi * thetab[i];
      thetab[i] = cbar * thetab[i] + sbar * xk;
      if (di == 0.0) return;
    } else {
      ithisr = ithisr + np - i - 1;
    }
  }
}

// Returns the r × r matrix, column-major.
std::vector<double> getQ0(const std::vector<double>& phi, const std::vector<double>& theta) {
  const long p = long(phi.size()), q = long(theta.size());
  const long r = std::max(p, q + 1);
  const long np = r * (r + 1) / 2, nrbar = np * (np - 1) / 2;
  std::vector<double> xnext(np), xrow(np), rbar(std::max(nrbar, 1L)), thetab(np), V(np);
  for (long ind = 0, j = 0; j < r; ++j) {
    const double vj = j == 0 ? 1.0 : (j - 1 < q ? theta[j - 1] : 0.0);
    for (long i = j; i < r; ++i) {
      const double vi = i == 0 ? 1.0 : (i - 1 < q ? theta[i - 1] : 0.0);
      V[ind++] = vi * vj;
    }
  }
  std::vector<double> P(r * r, 0.0);
  if (r == 1) {
    P[0] = 1.0 / (1.0 - phi[0] * phi[0]);
    return P;
  }
  if (p > 0) {
    long ind = 0, ind1 = -1;
    const long npr = np - r, npr1 = npr + 1;
    long indj = npr, ind2 = npr - 1;
    for (long j = 0; j < r; ++j) {
      const double phij = j < p ? phi[j] : 0.0;
      xnext[indj++] = 0.0;
      long indi = npr1 + j;
      for (long i = j; i < r; ++i) {
        const double ynext = V[ind++];
        const double phii = i < p ? phi[i] : 0.0;
        if (j != r - 1) {
          xnext[indj] = -phii;
          if (i != r - 1) {
            xnext[indi] -= phij;
            xnext[++ind1] = -1.0;
          }
        }
        xnext[npr] = -phii * phij;
        if (++ind2 >= np) ind2 = 0;
        xnext[ind2] += 1.0;
        inclu2(np, xnext.data(), xrow.data(), ynext, P.data(), rbar.data(), thetab.data());
        xnext[ind2] = 0.0;
        if (i != r - 1) {
          xnext[indi++] = 0.0;
          xnext[ind1] = 0.0;
        }
      }
    }
    long ithisr = nrbar - 1, im = np - 1;
    for (long i = 0; i < np; ++i) {
      double bi = thetab[im];
      long jm = np - 1;
      for (long j = 0; j < i; ++j) bi -= rbar[ithisr--] * P[jm--];
      P[im--] = bi;
    }
    ind = npr;
    for (long i = 0; i < r; ++i) xnext[i] = P[ind++];
    ind = np - 1;
    ind1 = npr - 1;
    for (long i = 0; i < npr; ++i) P[ind--] = P[ind1--];
    for (long i = 0; i < r; ++i) P[i] = xnext[i];
  } else {
    long indn = np, ind = np;
    for (long i = 0; i < r; ++i)
      for (long j = 0; j <= i; ++j) {
        --ind;
        P[ind] = V[ind];
        if (j != 0) P[ind] += P[--indn];
      }
  }
  for (long i = r - 1, ind = np; i > 0; --i)
    for (long j = r - 1; j >= i; --j) P[r * i + j] = P[--ind];
  for (long i = 0; i < r - 1; ++i)
    for (long j = i + 1; j < r; ++j) P[i + r * j] = P[j + r * i];
  return P;
}

// ---------------------------------------------------------------------------------------------
// The Kalman filter of ARIMA_Like on makeARIMA's state space (state: r ARMA states, then the d
// lagged levels that the differencing polynomial Delta needs).

class ArimaKalman {
 public:
  ArimaKalman(const std::vector<double>& phi, const std::vector<double>& theta,
              const std::vector<double>& delta)
      : phi_(phi), theta_(theta), delta_(delta) {
    p_ = int(phi.size());
    q_ = int(theta.size());
    r_ = std::max(p_, q_ + 1);
    d_ = int(delta.size());
    rd_ = r_ + d_;
    a_.assign(rd_, 0.0);
    anew_.assign(rd_, 0.0);
    M_.assign(rd_, 0.0);
    P_.assign(rd_ * rd_, 0.0);
    Pnew_.assign(rd_ * rd_, 0.0);
    mm_.assign(rd_ * rd_, 0.0);
    if (r_ > 1) {
      const std::vector<double> Q0 = getQ0(phi, theta);
      for (int j = 0; j < r_; ++j)
        for (int i = 0; i < r_; ++i) Pnew_[i + rd_ * j] = Q0[i + r_ * j];
    } else {
      Pnew_[0] = p_ > 0 ? 1.0 / (1.0 - phi[0] * phi[0]) : 1.0;
    }
    for (int i = r_; i < rd_; ++i) Pnew_[i + rd_ * i] = kKappa;
  }

  // One step of ARIMA_Like at time l (sUP = 0): predicts, then updates with y (NaN: no update).
  // Returns the innovation and its scaled variance (gain).
  void step(int64_t l, double y, double* resid_out, double* gain_out) {
    predictState(a_, anew_);
    if (l > 0) predictCovariance();
    if (!std::isnan(y)) {
      double resid = y - anew_[0];
      for (int i = 0; i < d_; ++i) resid -= delta_[i] * anew_[r_ + i];
      for (int i = 0; i < rd_; ++i) {
        double tmp = Pnew_[i];
        for (int j = 0; j < d_; ++j) tmp += Pnew_[i + (r_ + j) * rd_] * delta_[j];
        M_[i] = tmp;
      }
      double gain = M_[0];
      for (int j = 0; j < d_; ++j) gain += delta_[j] * M_[r_ + j];
      for (int i = 0; i < rd_; ++i) a_[i] = anew_[i] + M_[i] * resid / gain;
      for (int i = 0; i < rd_; ++i)
        for (int j = 0; j < rd_; ++j) P_[i + j * rd_] = Pnew_[i + j * rd_] - M_[i] * M_[j] / gain;
      *resid_out = resid;
      *gain_out = gain;
    } else {
      a_ = anew_;
      P_ = Pnew_;
      *resid_out = std::numeric_limits<double>::quiet_NaN();
      *gain_out = std::numeric_limits<double>::quiet_NaN();
    }
  }

  // Point forecasts of the observation 1..h steps after the last update.
  void forecast(int h, double* out) const {
    std::vector<double> a = a_, an(rd_);
    for (int k = 0; k < h; ++k) {
      predictState(a, an);
      double f = an[0];
      for (int i = 0; i < d_; ++i) f += delta_[i] * an[r_ + i];
      out[k] = f;
      a.swap(an);
    }
  }

 private:
  void predictState(const std::vector<double>& a, std::vector<double>& anew) const {
    for (int i = 0; i < r_; ++i) {
      double tmp = i < r_ - 1 ? a[i + 1] : 0.0;
      if (i < p_) tmp += phi_[i] * a[0];
      anew[i] = tmp;
    }
    if (d_ > 0) {
      for (int i = r_ + 1; i < rd_; ++i) anew[i] = a[i - 1];
      double tmp = a[0];
      for (int i = 0; i < d_; ++i) tmp += delta_[i] * a[r_ + i];
      anew[r_] = tmp;
    }
  }

  void predictCovariance() {
    const int r = r_, rd = rd_, p = p_, q = q_, d = d_;
    const double* P = P_.data();
    double* Pnew = Pnew_.data();
    double* mm = mm_.data();
    if (d == 0) {
      for (int i = 0; i < r; ++i) {
        const double vi = i == 0 ? 1.0 : (i - 1 < q ? theta_[i - 1] : 0.0);
        for (int j = 0; j < r; ++j) {
          double tmp = j == 0 ? vi : (j - 1 < q ? vi * theta_[j - 1] : 0.0);
          if (i < p && j < p) tmp += phi_[i] * phi_[j] * P[0];
          if (i < r - 1 && j < r - 1) tmp += P[i + 1 + r * (j + 1)];
          if (i < p && j < r - 1) tmp += phi_[i] * P[j + 1];
          if (j < p && i < r - 1) tmp += phi_[j] * P[i + 1];
          Pnew[i + r * j] = tmp;
        }
      }
      return;
    }
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < rd; ++j) {
        double tmp = 0.0;
        if (i < p) tmp += phi_[i] * P[rd * j];
        if (i < r - 1) tmp += P[i + 1 + rd * j];
        mm[i + rd * j] = tmp;
      }
    for (int j = 0; j < rd; ++j) {
      double tmp = P[rd * j];
      for (int k = 0; k < d; ++k) tmp += delta_[k] * P[r + k + rd * j];
      mm[r + rd * j] = tmp;
    }
    for (int i = 1; i < d; ++i)
      for (int j = 0; j < rd; ++j) mm[r + i + rd * j] = P[r + i - 1 + rd * j];
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < rd; ++j) {
        double tmp = 0.0;
        if (i < p) tmp += phi_[i] * mm[j];
        if (i < r - 1) tmp += mm[rd * (i + 1) + j];
        Pnew[j + rd * i] = tmp;
      }
    for (int j = 0; j < rd; ++j) {
      double tmp = mm[j];
      for (int k = 0; k < d; ++k) tmp += delta_[k] * mm[rd * (r + k) + j];
      Pnew[rd * r + j] = tmp;
    }
    for (int i = 1; i < d; ++i)
      for (int j = 0; j < rd; ++j) Pnew[rd * (r + i) + j] = mm[rd * (r + i - 1) + j];
    for (int i = 0; i <= q; ++i) {
      const double vi = i == 0 ? 1.0 : theta_[i - 1];
      for (int j = 0; j <= q; ++j) Pnew[i + rd * j] += vi * (j == 0 ? 1.0 : theta_[j - 1]);
    }
  }

  const std::vector<double>& phi_;
  const std::vector<double>& theta_;
  const std::vector<double>& delta_;
  int p_, q_, r_, d_, rd_;
  std::vector<double> a_, anew_, M_, P_, Pnew_, mm_;
};

}  // namespace

LikeResult arimaLike(const std::vector<double>& y, const std::vector<double>& phi,
                     const std::vector<double>& theta, const std::vector<double>& delta) {
  ArimaKalman kf(phi, theta, delta);
  LikeResult r;
  for (size_t l = 0; l < y.size(); ++l) {
    double resid, gain;
    kf.step(int64_t(l), y[l], &resid, &gain);
    if (!std::isnan(y[l]) && gain < 1e4) {  // the diffuse start is left out, as ARIMA_Like
      ++r.nu;
      r.ssq += resid * resid / gain;
      r.sumlog += std::log(gain);
    }
  }
  return r;
}

std::vector<double> kalmanForecasts(const std::vector<double>& z, const ArimaFit& fit,
                                    const std::vector<int64_t>& origins, int horizon) {
  ArimaKalman kf(fit.phi, fit.theta, fit.delta);
  std::vector<double> out(origins.size() * size_t(horizon));
  size_t k = 0;
  for (int64_t l = 0; l < int64_t(z.size()) && k < origins.size(); ++l) {
    double resid, gain;
    kf.step(l, z[l], &resid, &gain);
    while (k < origins.size() && origins[k] == l) {
      kf.forecast(horizon, out.data() + k * horizon);
      ++k;
    }
  }
  return out;
}

}  // namespace rsalab::forecast::arima_internal
