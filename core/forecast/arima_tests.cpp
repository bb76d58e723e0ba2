// SPDX-License-Identifier: GPL-3.0-or-later
// The differencing tests auto.arima runs before its search: forecast::ndiffs (KPSS, as
// urca::ur.kpss type "mu" with the short Bartlett window) and forecast::nsdiffs (the "seas"
// heuristic: seasonal strength of an STL decomposition, stats::stl's Fortran ported literally,
// since the 0.64 threshold is close on real series such as lynx).
#include <algorithm>
#include <cmath>

#include "core/forecast/arima_internal.h"

namespace rsalab::forecast::arima_internal {
namespace {

// urca's p-value: linear interpolation in the critical-value table, clamped (approx, rule = 2).
double kpssPValue(double stat) {
  static const double cval[4] = {0.347, 0.463, 0.574, 0.739};
  static const double pct[4] = {0.10, 0.05, 0.025, 0.01};
  if (stat <= cval[0]) return pct[0];
  if (stat >= cval[3]) return pct[3];
  for (int i = 0; i < 3; ++i)
    if (stat <= cval[i + 1])
      return pct[i] + (pct[i + 1] - pct[i]) * (stat - cval[i]) / (cval[i + 1] - cval[i]);
  return pct[3];
}

double kpssStat(const std::vector<double>& y) {
  const size_t n = y.size();
  const int lmax = int(std::trunc(3 * std::sqrt(double(n)) / 13));  // ndiffs' use.lag
  double mean = 0;
  for (double v : y) mean += v;
  mean /= double(n);
  std::vector<double> res(n);
  for (size_t i = 0; i < n; ++i) res[i] = y[i] - mean;
  double S = 0, num = 0, s2 = 0;
  for (size_t i = 0; i < n; ++i) {
    S += res[i];
    num += S * S;
    s2 += res[i] * res[i];
  }
  num /= double(n) * double(n);
  s2 /= double(n);
  double den = s2;
  for (int l = 1; l <= lmax; ++l) {
    double cov = 0;
    for (size_t t = size_t(l); t < n; ++t) cov += res[t] * res[t - l];
    den += 2.0 / double(n) * (1.0 - double(l) / (lmax + 1)) * cov;
  }
  return num / den;
}

// ---------------------------------------------------------------------------------------------
// stats::stl (non-robust: inner = 2, outer = 0). Arrays are 1-based as in the Fortran, via the
// offset pointers below, so that the index arithmetic reads as the original.

void stlest(const double* y, int n, int len, int ideg, double xs, double* ys, int nleft, int nright,
            double* w, bool userw, const double* rw, bool* ok) {
  const double range = double(n) - 1.0;
  double h = std::max(xs - double(nleft), double(nright) - xs);
  if (len > n) h += double((len - n) / 2);
  const double h9 = 0.999 * h, h1 = 0.001 * h;
  double a = 0.0;
  for (int j = nleft; j <= nright; ++j) {
    const double r = std::fabs(double(j) - xs);
    if (r <= h9) {
      w[j] = r <= h1 ? 1.0 : std::pow(1.0 - std::pow(r / h, 3), 3);
      if (userw) w[j] = rw[j] * w[j];
      a += w[j];
    } else {
      w[j] = 0.0;
    }
  }
  if (a <= 0.0) {
    *ok = false;
    return;
  }
  *ok = true;
  for (int j = nleft; j <= nright; ++j) w[j] /= a;
  if (h > 0.0 && ideg > 0) {
    a = 0.0;
    for (int j = nleft; j <= nright; ++j) a += w[j] * double(j);
    double b = xs - a, c = 0.0;
    for (int j = nleft; j <= nright; ++j) c += w[j] * (double(j) - a) * (double(j) - a);
    if (std::sqrt(c) > 0.001 * range) {
      b /= c;
      for (int j = nleft; j <= nright; ++j) w[j] *= b * (double(j) - a) + 1.0;
    }
  }
  double s = 0.0;
  for (int j = nleft; j <= nright; ++j) s += w[j] * y[j];
  *ys = s;
}

void stless(const double* y, int n, int len, int ideg, int njump, bool userw, const double* rw,
            double* ys, double* res) {
  if (n < 2) {
    ys[1] = y[1];
    return;
  }
  const int newnj = std::min(njump, n - 1);
  int nleft = 0, nright = 0;
  bool ok;
  if (len >= n) {
    nleft = 1;
    nright = n;
    for (int i = 1; i <= n; i += newnj) {
      stlest(y, n, len, ideg, double(i), &ys[i], nleft, nright, res, userw, rw, &ok);
      if (!ok) ys[i] = y[i];
    }
  } else if (newnj == 1) {
    const int nsh = (len + 1) / 2;
    nleft = 1;
    nright = len;
    for (int i = 1; i <= n; ++i) {
      if (i > nsh && nright != n) {
        ++nleft;
        ++nright;
      }
      stlest(y, n, len, ideg, double(i), &ys[i], nleft, nright, res, userw, rw, &ok);
      if (!ok) ys[i] = y[i];
    }
  } else {
    const int nsh = (len + 1) / 2;
    for (int i = 1; i <= n; i += newnj) {
      if (i < nsh) {
        nleft = 1;
        nright = len;
      } else if (i >= n - nsh + 1) {
        nleft = n - len + 1;
        nright = n;
      } else {
        nleft = i - nsh + 1;
        nright = len + i - nsh;
      }
      stlest(y, n, len, ideg, double(i), &ys[i], nleft, nright, res, userw, rw, &ok);
      if (!ok) ys[i] = y[i];
    }
  }
  if (newnj != 1) {
    for (int i = 1; i <= n - newnj; i += newnj) {
      const double delta = (ys[i + newnj] - ys[i]) / double(newnj);
      for (int j = i + 1; j <= i + newnj - 1; ++j) ys[j] = ys[i] + delta * double(j - i);
    }
    const int k = ((n - 1) / newnj) * newnj + 1;
    if (k != n) {
      stlest(y, n, len, ideg, double(n), &ys[n], nleft, nright, res, userw, rw, &ok);
      if (!ok) ys[n] = y[n];
      if (k != n - 1) {
        const double delta = (ys[n] - ys[k]) / double(n - k);
        for (int j = k + 1; j <= n - 1; ++j) ys[j] = ys[k] + delta * double(j - k);
      }
    }
  }
}

void stlma(const double* x, int n, int len, double* ave) {
  const int newn = n - len + 1;
  const double flen = double(len);
  double v = 0.0;
  for (int i = 1; i <= len; ++i) v += x[i];
  ave[1] = v / flen;
  if (newn > 1) {
    int k = len, m = 0;
    for (int j = 2; j <= newn; ++j) {
      ++k;
      ++m;
      v = v - x[m] + x[k];
      ave[j] = v / flen;
    }
  }
}

void stlfts(const double* x, int n, int np, double* trend, double* work) {
  stlma(x, n, np, trend);
  stlma(trend, n - np + 1, np, work);
  stlma(work, n - 2 * np + 2, 3, trend);
}

void stlss(const double* y, int n, int np, int ns, int isdeg, int nsjump, bool userw,
           const double* rw, double* season, double* work1, double* work2, double* work3,
           double* work4) {
  for (int j = 1; j <= np; ++j) {
    const int k = (n - j) / np + 1;
    for (int i = 1; i <= k; ++i) work1[i] = y[(i - 1) * np + j];
    if (userw)
      for (int i = 1; i <= k; ++i) work3[i] = rw[(i - 1) * np + j];
    stless(work1, k, ns, isdeg, nsjump, userw, work3, work2 + 1, work4);
    bool ok;
    int nright = std::min(ns, k);
    stlest(work1, k, ns, isdeg, 0.0, &work2[1], 1, nright, work4, userw, work3, &ok);
    if (!ok) work2[1] = work2[2];
    const int nleft = std::max(1, k - ns + 1);
    stlest(work1, k, ns, isdeg, double(k + 1), &work2[k + 2], nleft, k, work4, userw, work3, &ok);
    if (!ok) work2[k + 2] = work2[k + 1];
    for (int m = 1; m <= k + 2; ++m) season[(m - 1) * np + j] = work2[m];
  }
}

// Returns season and trend (0-based vectors of length n).
void stl(const std::vector<double>& y0, int np, int ns, int nt, int nl, int isdeg, int itdeg,
         int ildeg, int nsjump, int ntjump, int nljump, int ni, std::vector<double>& season0,
         std::vector<double>& trend0) {
  const int n = int(y0.size());
  auto odd3 = [](int v) {
    v = std::max(3, v);
    return v % 2 == 0 ? v + 1 : v;
  };
  ns = odd3(ns);
  nt = odd3(nt);
  nl = odd3(nl);
  np = std::max(2, np);
  const int wn = n + 2 * np;
  std::vector<double> ybuf(n + 1), rwbuf(n + 1, 1.0), sbuf(n + 1), tbuf(n + 1, 0.0);
  std::vector<std::vector<double>> work(5, std::vector<double>(wn + 1, 0.0));
  for (int i = 1; i <= n; ++i) ybuf[i] = y0[i - 1];
  double *y = ybuf.data(), *rw = rwbuf.data(), *season = sbuf.data(), *trend = tbuf.data();
  double *w1 = work[0].data(), *w2 = work[1].data(), *w3 = work[2].data(), *w4 = work[3].data(),
         *w5 = work[4].data();
  const bool userw = false;
  for (int j = 1; j <= ni; ++j) {  // stlstp
    for (int i = 1; i <= n; ++i) w1[i] = y[i] - trend[i];
    stlss(w1, n, np, ns, isdeg, nsjump, userw, rw, w2, w3, w4, w5, season);
    stlfts(w2, wn, np, w3, w1);
    stless(w3, n, nl, ildeg, nljump, false, w4, w1, w5);
    for (int i = 1; i <= n; ++i) season[i] = w2[np + i] - w1[i];
    for (int i = 1; i <= n; ++i) w1[i] = y[i] - season[i];
    stless(w1, n, nt, itdeg, ntjump, userw, rw, trend, w3);
  }
  season0.assign(sbuf.begin() + 1, sbuf.end());
  trend0.assign(tbuf.begin() + 1, tbuf.end());
}

double variance(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(v.size());
  double s = 0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s / double(v.size() - 1);
}

}  // namespace

// forecast:::is.constant: all.equal(x, rep(x[1], n)), i.e. mean relative difference < 1.5e-8.
bool isConstant(const std::vector<double>& x) {
  if (x.empty()) return true;
  double num = 0, den = 0;
  for (double v : x) {
    num += std::fabs(v - x[0]);
    den += std::fabs(v);
  }
  if (num == 0) return true;
  if (den > 0 && std::isfinite(den)) return num / den < 1.5e-8;
  return num / double(x.size()) < 1.5e-8;
}

int ndiffs(std::vector<double> x) {
  int d = 0;
  if (isConstant(x)) return d;
  bool dodiff = kpssPValue(kpssStat(x)) < 0.05;
  while (dodiff && d < 2) {
    ++d;
    std::vector<double> dx(x.size() - 1);
    for (size_t i = 1; i < x.size(); ++i) dx[i - 1] = x[i] - x[i - 1];
    x.swap(dx);
    if (isConstant(x)) return d;
    if (x.size() < 2) return d;
    dodiff = kpssPValue(kpssStat(x)) < 0.05;
  }
  return d;
}

// forecast:::seas.heuristic on mstl(x): stl with s.window = 11 and stl's defaults otherwise.
double seasonalStrength(const std::vector<double>& x, int m) {
  const int n = int(x.size());
  const int swindow = 11;
  auto nextodd = [](double v) {
    int r = int(std::nearbyint(v));
    return r % 2 == 0 ? r + 1 : r;
  };
  const int twindow = nextodd(std::ceil(1.5 * m / (1.0 - 1.5 / swindow)));
  const int lwindow = nextodd(m);
  const int sjump = int(std::ceil(swindow / 10.0)), tjump = int(std::ceil(twindow / 10.0)),
            ljump = int(std::ceil(lwindow / 10.0));
  std::vector<double> season, trend;
  stl(x, m, swindow, twindow, lwindow, 0, 1, 1, sjump, tjump, ljump, 2, season, trend);
  std::vector<double> rem(n), remseas(n);
  for (int i = 0; i < n; ++i) {
    rem[i] = x[i] - season[i] - trend[i];
    remseas[i] = rem[i] + season[i];
  }
  return std::max(0.0, std::min(1.0, 1.0 - variance(rem) / variance(remseas)));
}

int nsdiffs(const std::vector<double>& x, int m) {
  if (isConstant(x)) return 0;
  if (m >= int(x.size())) return 0;
  // stl() refuses n <= 2m; nsdiffs turns that error into 0 seasonal differences.
  if (int(x.size()) <= 2 * m) return 0;
  // max.D = 1: a single test decides.
  return seasonalStrength(x, m) > 0.64 ? 1 : 0;
}

}  // namespace rsalab::forecast::arima_internal
