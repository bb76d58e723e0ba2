// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/arima_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "engine/core/forecast/minimise.h"
#include "engine/core/forecast/series_tools.h"

namespace rsalab::forecast::arima {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// a(B) · b(B), coefficients by power of B.
std::vector<double> multiply(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size() + b.size() - 1, 0.0);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  return out;
}

// 1 + sign · (c_1 B^step + c_2 B^{2·step} + …)
std::vector<double> lagPolynomial(const std::vector<double>& c, int64_t step, double sign) {
  std::vector<double> out(c.size() * static_cast<size_t>(step) + 1, 0.0);
  out[0] = 1;
  for (size_t i = 0; i < c.size(); ++i) out[(i + 1) * static_cast<size_t>(step)] = sign * c[i];
  return out;
}

// Partial autocorrelations from unconstrained values, kept a hair inside (−1, 1) so that the
// stationary covariance stays finite.
constexpr double kPartialLimit = 0.999999;
std::vector<double> partials(const double* x, int k) {
  std::vector<double> r(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i)
    r[static_cast<size_t>(i)] = std::clamp(std::tanh(x[i]), -kPartialLimit, kPartialLimit);
  return r;
}

// The minimiser's vector: x = [p | q | P | Q | mean], the mean as μ = centre + spread · x.
struct Packing {
  Order order;
  double centre = 0, spread = 1;
  int size() const { return order.p + order.q + order.P + order.Q + (order.constant ? 1 : 0); }
  Coefficients coefficients(const std::vector<double>& x) const {
    Coefficients c;
    const double* at = x.data();
    c.ar = coefficientsFromPartials(partials(at, order.p));
    at += order.p;
    c.ma = coefficientsFromPartials(partials(at, order.q));
    for (double& v : c.ma) v = -v;
    at += order.q;
    c.sar = coefficientsFromPartials(partials(at, order.P));
    at += order.P;
    c.sma = coefficientsFromPartials(partials(at, order.Q));
    for (double& v : c.sma) v = -v;
    at += order.Q;
    c.mean = order.constant ? centre + spread * *at : 0.0;
    return c;
  }
};

// Reads v[i], zero before the series' start.
double before(const std::vector<double>& v, int64_t i) {
  return i >= 0 ? v[static_cast<size_t>(i)] : 0.0;
}

// The CSS criterion ½ log(S / n) at the minimiser's point x, S the sum of the squared
// innovations e_t from row `from` on (e_t = 0 before the expanded AR order p'), and, when asked,
// its gradient. Writing the model as e = Θ⁻¹ Φ u (Φ = φ(B)Φ(B^m), Θ = θ(B)Θ(B^m),
// u = w − μ), each derivative ∂e/∂c is the moving-average recursion d_t = ξ_t − Σ θ_k d_{t−k}
// of its own input ξ: −B^i Φ(B^m) u for the AR coefficient φ_i, −B^{mi} φ(B) u for Φ_i,
// −B^j Θ(B^m) e for θ_j, −B^{mj} θ(B) e for Θ_j and −Φ(1) for μ. One pass each, instead of two
// evaluations each for central differences. The chain to x goes through each factor's
// Durbin–Levinson map (differenced numerically: it is a small polynomial map, no data).
double cssCriterionAt(const std::vector<double>& w, const Packing& packing, int64_t from,
                      const std::vector<double>& x, std::vector<double>* gradient) {
  const Order& o = packing.order;
  const Coefficients c = packing.coefficients(x);
  const arma::Arma model = expand(c, o.m);
  const auto n = static_cast<int64_t>(w.size());
  const auto p = static_cast<int64_t>(model.phi.size());
  std::vector<std::pair<int64_t, double>> ar, ma;  // the nonzero lags only
  for (int64_t i = 0; i < p; ++i)
    if (model.phi[static_cast<size_t>(i)] != 0)
      ar.emplace_back(i + 1, model.phi[static_cast<size_t>(i)]);
  for (size_t j = 0; j < model.theta.size(); ++j)
    if (model.theta[j] != 0) ma.emplace_back(static_cast<int64_t>(j + 1), model.theta[j]);
  std::vector<double> u(w.size()), e(w.size(), 0.0);
  for (size_t t = 0; t < w.size(); ++t) u[t] = w[t] - c.mean;
  const int64_t first = std::max(p, from);
  double sum = 0;
  int64_t count = 0;
  for (int64_t t = p; t < n; ++t) {
    double v = u[static_cast<size_t>(t)];
    for (const auto& [lag, phi] : ar) v -= phi * u[static_cast<size_t>(t - lag)];
    for (const auto& [lag, theta] : ma) v -= theta * before(e, t - lag);
    e[static_cast<size_t>(t)] = v;
    if (t >= first) sum += v * v, ++count;
  }
  if (!(sum > 0) || !std::isfinite(sum) || count == 0) return kInf;
  const double value = 0.5 * std::log(sum / static_cast<double>(count));
  if (!gradient) return value;

  std::vector<double> d(w.size());
  auto sensitivity = [&](auto&& xi) {  // ∂(½ log S)/∂c = Σ e_t ∂e_t/∂c / S
    std::fill(d.begin(), d.end(), 0.0);
    double g = 0;
    for (int64_t t = p; t < n; ++t) {
      double v = xi(t);
      for (const auto& [lag, theta] : ma) v -= theta * before(d, t - lag);
      d[static_cast<size_t>(t)] = v;
      if (t >= first) g += e[static_cast<size_t>(t)] * v;
    }
    return g / sum;
  };
  // The filtered series the inputs ξ need: Φ(B^m) u, φ(B) u, Θ(B^m) e, θ(B) e.
  const auto m = o.m;
  std::vector<double> su(w.size(), 0.0), nu(w.size(), 0.0), se(w.size(), 0.0), ne(w.size(), 0.0);
  for (int64_t t = 0; t < n; ++t) {
    const auto i = static_cast<size_t>(t);
    su[i] = u[i], nu[i] = u[i], se[i] = e[i], ne[i] = e[i];
    for (size_t l = 0; l < c.sar.size(); ++l)
      su[i] -= c.sar[l] * before(u, t - m * static_cast<int64_t>(l + 1));
    for (size_t l = 0; l < c.ar.size(); ++l)
      nu[i] -= c.ar[l] * before(u, t - static_cast<int64_t>(l + 1));
    for (size_t l = 0; l < c.sma.size(); ++l)
      se[i] += c.sma[l] * before(e, t - m * static_cast<int64_t>(l + 1));
    for (size_t l = 0; l < c.ma.size(); ++l)
      ne[i] += c.ma[l] * before(e, t - static_cast<int64_t>(l + 1));
  }
  // By coefficient, in the packing's order (φ, θ, Φ, Θ), then through the partials to x.
  gradient->assign(x.size(), 0.0);
  size_t offset = 0;
  auto factor = [&](const std::vector<double>& input, int64_t step, int k, double sign) {
    std::vector<double> by_coefficient(static_cast<size_t>(k));
    for (int i = 1; i <= k; ++i)
      by_coefficient[static_cast<size_t>(i - 1)] =
          sensitivity([&](int64_t t) { return -before(input, t - step * i); });
    // The factor's coefficients are sign · DL(r), r = tanh(x) (clamped).
    std::vector<double> r = partials(x.data() + offset, k);
    constexpr double h = 1e-6;
    for (int i = 0; i < k; ++i) {
      std::vector<double> up(r), down(r);
      up[static_cast<size_t>(i)] += h;
      down[static_cast<size_t>(i)] -= h;
      const auto a = coefficientsFromPartials(up), b = coefficientsFromPartials(down);
      double g = 0;
      for (int j = 0; j < k; ++j)
        g += by_coefficient[static_cast<size_t>(j)] * sign *
             (a[static_cast<size_t>(j)] - b[static_cast<size_t>(j)]) / (2 * h);
      const double th = std::tanh(x[offset + static_cast<size_t>(i)]);
      (*gradient)[offset + static_cast<size_t>(i)] =
          std::abs(th) < kPartialLimit ? g * (1 - th * th) : 0.0;
    }
    offset += static_cast<size_t>(k);
  };
  factor(su, 1, o.p, 1.0);
  factor(se, 1, o.q, -1.0);
  factor(nu, m, o.P, 1.0);
  factor(ne, m, o.Q, -1.0);
  if (o.constant) {
    double at_one = 1;  // Φ(1) of the expanded AR polynomial
    for (double phi : model.phi) at_one -= phi;
    (*gradient)[offset] = packing.spread * sensitivity([&](int64_t) { return -at_one; });
  }
  return value;
}

// The mean's unit and centre: the differenced series' own.
Packing makePacking(const std::vector<double>& w, const Order& order) {
  Packing packing{order, 0.0, 1.0};
  if (order.constant) {
    packing.centre = sampleMean(w);
    packing.spread = std::sqrt(populationVariance(w));
    if (!(packing.spread > 0)) packing.spread = 1;
  }
  return packing;
}

arma::Likelihood exactLikelihood(const std::vector<double>& w, const Coefficients& c, int64_t m) {
  std::vector<double> u(w);
  for (double& v : u) v -= c.mean;
  return arma::kalmanLikelihood(expand(c, m), u.data(), static_cast<int64_t>(u.size()));
}

double aicc(double neg2_loglik, int parameters, int64_t n) {
  const double k = parameters, nd = static_cast<double>(n);
  if (nd - k - 1 <= 0) return kInf;
  return neg2_loglik + 2 * k + 2 * k * (k + 1) / (nd - k - 1);
}

}  // namespace

bool Order::operator<(const Order& o) const {
  return std::tie(p, d, q, P, D, Q, m, constant) <
         std::tie(o.p, o.d, o.q, o.P, o.D, o.Q, o.m, o.constant);
}

std::string describe(const Order& o) {
  auto triple = [](int a, int b, int c) {
    return "(" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + ")";
  };
  std::string s = "ARIMA" + triple(o.p, o.d, o.q);
  if (o.P > 0 || o.D > 0 || o.Q > 0) s += triple(o.P, o.D, o.Q) + "[" + std::to_string(o.m) + "]";
  const int differences = o.d + o.D;
  if (o.constant)
    s += differences == 0 ? " with non-zero mean" : " with drift";
  else if (differences == 0)
    s += " with zero mean";
  return s;
}

std::vector<double> differencingPolynomial(int d, int D, int64_t m) {
  std::vector<double> c{1.0};
  for (int i = 0; i < d; ++i) c = multiply(c, {1.0, -1.0});
  for (int i = 0; i < D; ++i) c = multiply(c, lagPolynomial({1.0}, m, -1.0));
  return c;
}

std::vector<double> difference(const std::vector<double>& y, int d, int D, int64_t m) {
  const auto c = differencingPolynomial(d, D, m);
  const auto K = static_cast<int64_t>(c.size()) - 1;
  const auto n = static_cast<int64_t>(y.size());
  std::vector<double> w;
  for (int64_t t = K; t < n; ++t) {
    double v = 0;
    for (int64_t k = 0; k <= K; ++k)
      if (c[static_cast<size_t>(k)] != 0)
        v += c[static_cast<size_t>(k)] * y[static_cast<size_t>(t - k)];
    w.push_back(v);
  }
  return w;
}

arma::Arma expand(const Coefficients& c, int64_t m) {
  arma::Arma out;
  const auto ar = multiply(lagPolynomial(c.ar, 1, -1.0), lagPolynomial(c.sar, m, -1.0));
  const auto ma = multiply(lagPolynomial(c.ma, 1, 1.0), lagPolynomial(c.sma, m, 1.0));
  for (size_t i = 1; i < ar.size(); ++i) out.phi.push_back(-ar[i]);
  for (size_t j = 1; j < ma.size(); ++j) out.theta.push_back(ma[j]);
  return out;
}

bool nearUnitRoot(const Coefficients& c, int64_t m) {
  auto negated = [](std::vector<double> v) {
    for (double& x : v) x = -x;
    return v;
  };
  // The roots of Φ(B^m) are the m-th roots of Φ's: |z| ≥ 1.01 for all of them exactly when Φ's
  // own lie outside 1.01^m.
  constexpr double kMargin = 1.01;
  const double seasonal = std::pow(kMargin, static_cast<double>(std::max<int64_t>(1, m)));
  return !rootsOutside(negated(c.ar), kMargin) || !rootsOutside(c.ma, kMargin) ||
         !rootsOutside(negated(c.sar), seasonal) || !rootsOutside(c.sma, seasonal);
}

double cssCriterion(const std::vector<double>& w, const Order& order, int64_t css_from,
                    const std::vector<double>& x, std::vector<double>* gradient) {
  return cssCriterionAt(w, makePacking(w, order), css_from, x, gradient);
}

Coefficients coefficientsAt(const std::vector<double>& w, const Order& order,
                            const std::vector<double>& x) {
  return makePacking(w, order).coefficients(x);
}

Fit fit(const std::vector<double>& w, const Order& order, Method method, int64_t css_from,
        int exact_iterations) {
  Fit out;
  out.order = order;
  out.method = method;
  out.aicc = kInf;
  const auto n = static_cast<int64_t>(w.size());
  const Packing packing = makePacking(w, order);
  const int k = packing.size();
  const int64_t p_expanded = order.p + order.m * order.P;
  if (n - std::max(p_expanded, css_from) < k + 3) return out;  // too few rows for the order

  auto cssObjective = [&](int64_t from) -> DifferentiableObjective {
    return [&, from](const std::vector<double>& x, std::vector<double>* gradient) {
      return cssCriterionAt(w, packing, from, x, gradient);
    };
  };
  const Objective exactObjective = [&](const std::vector<double>& x) {
    try {
      const auto lik = exactLikelihood(w, packing.coefficients(x), order.m);
      if (!(lik.sum_squares > 0)) return kInf;
      return 0.5 * (std::log(lik.sigma2()) + lik.log_det / static_cast<double>(lik.n));
    } catch (const std::runtime_error&) {
      return kInf;
    }
  };
  std::vector<double> x(static_cast<size_t>(k), 0.0);
  const std::vector<double> scale(static_cast<size_t>(k), 1.0);
  BfgsOptions options;
  options.max_iterations = 100;
  if (k > 0) {
    // CSS from several starts (the CSS surface of an order with several AR and MA terms has more
    // than one basin, and which one a descent from zero reaches depends on the parameterisation):
    // every partial autocorrelation at tanh(0), tanh(±½), and the AR and MA blocks at opposite
    // signs; the lowest CSS wins. The mean's coordinate starts at the series' mean each time.
    const DifferentiableObjective css = cssObjective(method == Method::Css ? css_from : 0);
    const int ar_terms = order.p + order.P;
    auto start = [&](double ar, double ma) {
      std::vector<double> s(static_cast<size_t>(k), 0.0);
      for (int i = 0; i < order.p; ++i) s[static_cast<size_t>(i)] = ar;
      for (int i = 0; i < order.q; ++i) s[static_cast<size_t>(order.p + i)] = ma;
      for (int i = 0; i < order.P; ++i) s[static_cast<size_t>(order.p + order.q + i)] = ar;
      for (int i = 0; i < order.Q; ++i)
        s[static_cast<size_t>(order.p + order.q + order.P + i)] = ma;
      return s;
    };
    const bool mixed = ar_terms > 0 && order.q + order.Q > 0;
    std::vector<std::vector<double>> starts{start(0, 0)};
    if (ar_terms + order.q + order.Q > 1)
      for (double a : {0.5, -0.5}) {
        starts.push_back(start(a, a));
        if (mixed) starts.push_back(start(a, -a));
      }
    MinimiseResult best, from_zero;
    best.value = kInf;
    for (const auto& s : starts) {
      const auto r = minimiseBfgs(css, s, scale, options);
      if (&s == &starts.front()) from_zero = r;
      if (r.value < best.value) best = r;
    }
    if (std::isfinite(best.value)) x = best.x;
    if (method == Method::Exact) {
      // From the CSS estimate, as R's CSS-ML, and from the descent from zero's estimate when that
      // is another one (the lowest CSS does not always lead to the highest likelihood); from the
      // origin when the filter fails at both.
      options.max_iterations = exact_iterations;
      MinimiseResult exact;
      exact.value = kInf;
      for (const auto* s : {&best.x, &from_zero.x}) {
        if (s == &from_zero.x && from_zero.x == best.x) break;
        if (!std::isfinite(exactObjective(*s))) continue;
        const auto r = minimiseBfgs(exactObjective, *s, scale, options);
        if (r.value < exact.value) exact = r;
      }
      if (!std::isfinite(exact.value))
        exact = minimiseBfgs(exactObjective, std::vector<double>(x.size(), 0.0), scale, options);
      x = exact.x;
    }
  }
  out.coef = packing.coefficients(x);
  if (method == Method::Css) {
    const double value = cssCriterionAt(w, packing, css_from, x, nullptr);
    if (!std::isfinite(value)) return out;
    out.observations = n - std::max(p_expanded, css_from);
    out.sigma2 = std::exp(2 * value);
    out.neg2_loglik = static_cast<double>(out.observations) * (std::log(2 * M_PI * out.sigma2) + 1);
  } else {
    arma::Likelihood lik;
    try {
      lik = exactLikelihood(w, out.coef, order.m);
    } catch (const std::runtime_error&) {
      return out;
    }
    if (!(lik.sum_squares > 0) || !std::isfinite(lik.sum_squares)) return out;
    out.observations = lik.n;
    out.sigma2 = lik.sigma2();
    out.neg2_loglik = lik.neg2LogLikelihood();
  }
  out.aicc = aicc(out.neg2_loglik, k + 1, out.observations);
  return out;
}

Fit evaluate(const std::vector<double>& w, const Order& order, const Coefficients& coef) {
  Fit out;
  out.order = order;
  out.coef = coef;
  out.aicc = kInf;
  arma::Likelihood lik;
  try {
    lik = exactLikelihood(w, coef, order.m);
  } catch (const std::runtime_error&) {
    return out;
  }
  if (!(lik.sum_squares > 0) || !std::isfinite(lik.sum_squares)) return out;
  out.observations = lik.n;
  out.sigma2 = lik.sigma2();
  out.neg2_loglik = lik.neg2LogLikelihood();
  out.aicc = aicc(out.neg2_loglik, makePacking(w, order).size() + 1, out.observations);
  return out;
}

std::vector<double> originForecasts(const Order& o, const Coefficients& coef,
                                    const std::vector<double>& y,
                                    const std::vector<int64_t>& origins, int64_t horizon) {
  const auto c = differencingPolynomial(o.d, o.D, o.m);
  const auto K = static_cast<int64_t>(c.size()) - 1;
  const auto all = difference(y, o.d, o.D, o.m);  // all[t] belongs to y[t + K]
  arma::Filter filter(expand(coef, o.m));
  const int64_t H = horizon;
  std::vector<double> mean(origins.size() * static_cast<size_t>(H));
  std::vector<double> u(static_cast<size_t>(H)), path(static_cast<size_t>(K + H));
  size_t k = 0;
  auto emit = [&](int64_t origin) {
    filter.forecast(H, u.data());
    // path[i] is y[origin − K + 1 + i]: K observed values, then the forecasts.
    for (int64_t i = 0; i < K; ++i)
      path[static_cast<size_t>(i)] = y[static_cast<size_t>(origin - K + 1 + i)];
    for (int64_t h = 1; h <= H; ++h) {
      double v = u[static_cast<size_t>(h - 1)] + coef.mean;
      for (int64_t j = 1; j <= K; ++j)
        v -= c[static_cast<size_t>(j)] * path[static_cast<size_t>(K - 1 + h - j)];
      path[static_cast<size_t>(K - 1 + h)] = v;
      mean[k * static_cast<size_t>(H) + static_cast<size_t>(h - 1)] = v;
    }
  };
  if (!origins.empty() && origins.front() < K - 1)
    throw std::runtime_error("ARIMA: an origin precedes the differencing");
  if (k < origins.size() && origins[k] == K - 1) emit(K - 1), ++k;
  for (size_t t = 0; t < all.size() && k < origins.size(); ++t) {
    filter.update(all[t] - coef.mean);
    if (origins[k] == static_cast<int64_t>(t) + K) emit(origins[k]), ++k;
  }
  return mean;
}

}  // namespace rsalab::forecast::arima
