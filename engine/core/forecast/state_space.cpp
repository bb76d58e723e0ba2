// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/state_space.h"

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

namespace rsalab::forecast::arma {
namespace {

// The covariance recursions stop once a step would change F_t by less than this (relative).
constexpr double kSettled = 1e-15;

// φ_i and θ_j by 1-based lag, zero beyond the polynomial (θ_0 = 1).
double phiAt(const Arma& m, int64_t i) {
  return i >= 1 && i <= static_cast<int64_t>(m.phi.size()) ? m.phi[static_cast<size_t>(i - 1)] : 0;
}
double thetaAt(const Arma& m, int64_t j) {
  if (j == 0) return 1;
  return j >= 1 && j <= static_cast<int64_t>(m.theta.size()) ? m.theta[static_cast<size_t>(j - 1)]
                                                             : 0;
}

}  // namespace

std::vector<double> psiWeights(const Arma& model, int64_t max_lag) {
  std::vector<double> psi(static_cast<size_t>(max_lag + 1), 0.0);
  const auto p = static_cast<int64_t>(model.phi.size());
  for (int64_t j = 0; j <= max_lag; ++j) {
    double v = thetaAt(model, j);
    for (int64_t i = 1; i <= std::min(j, p); ++i)
      v += model.phi[static_cast<size_t>(i - 1)] * psi[static_cast<size_t>(j - i)];
    psi[static_cast<size_t>(j)] = v;
  }
  return psi;
}

std::vector<double> autocovariances(const Arma& model, int64_t max_lag) {
  const auto p = static_cast<int64_t>(model.phi.size());
  const auto q = static_cast<int64_t>(model.theta.size());
  const auto psi = psiWeights(model, q);
  // The right-hand sides Σ_{j=k}^{q} θ_j ψ_{j−k} of γ(k) − Σ φ_i γ(k−i).
  auto rhs = [&](int64_t k) {
    double v = 0;
    for (int64_t j = k; j <= q; ++j) v += thetaAt(model, j) * psi[static_cast<size_t>(j - k)];
    return v;
  };
  std::vector<double> gamma(static_cast<size_t>(std::max(max_lag, p) + 1), 0.0);
  // Lags 0 … p from the p + 1 equations (γ(−h) = γ(h)), then the recursion.
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(p + 1, p + 1);
  Eigen::VectorXd b(p + 1);
  for (int64_t k = 0; k <= p; ++k) {
    for (int64_t i = 1; i <= p; ++i) a(k, std::abs(k - i)) -= model.phi[static_cast<size_t>(i - 1)];
    b(k) = rhs(k);
  }
  const Eigen::VectorXd head = a.partialPivLu().solve(b);
  if (!head.allFinite() || !(head(0) > 0) || (a * head - b).norm() > 1e-8 * (1 + b.norm()))
    throw std::runtime_error("ARMA: the autoregressive part is not stationary");
  for (int64_t k = 0; k <= p; ++k) gamma[static_cast<size_t>(k)] = head(k);
  for (int64_t k = p + 1; k < static_cast<int64_t>(gamma.size()); ++k) {
    double v = rhs(k);
    for (int64_t i = 1; i <= p; ++i)
      v += model.phi[static_cast<size_t>(i - 1)] * gamma[static_cast<size_t>(k - i)];
    gamma[static_cast<size_t>(k)] = v;
  }
  gamma.resize(static_cast<size_t>(max_lag + 1));
  return gamma;
}

std::vector<double> stationaryCovariance(const Arma& model) {
  const int64_t r = model.stateSize();
  const auto gamma = autocovariances(model, r);
  const auto psi = psiWeights(model, r);
  // c[k] = Cov(u_t, α_t(k)) for k = 1 … r + 1 (1-based; c[r + 1] = 0).
  std::vector<double> c(static_cast<size_t>(r + 2), 0.0);
  for (int64_t k = 1; k <= r; ++k) {
    double v = 0;
    for (int64_t j = 0; j <= r - k; ++j)
      v += phiAt(model, k + j) * gamma[static_cast<size_t>(j + 1)] +
           thetaAt(model, k + j - 1) * psi[static_cast<size_t>(j)];
    c[static_cast<size_t>(k)] = v;
  }
  std::vector<double> P(static_cast<size_t>(r * r), 0.0);
  auto at = [&](int64_t i, int64_t l) -> double& { return P[static_cast<size_t>(i * r + l)]; };
  for (int64_t i = r; i >= 1; --i)
    for (int64_t l = r; l >= i; --l) {
      double v = phiAt(model, i) * phiAt(model, l) * gamma[0] +
                 thetaAt(model, i - 1) * thetaAt(model, l - 1) +
                 phiAt(model, i) * c[static_cast<size_t>(l + 1)] +
                 phiAt(model, l) * c[static_cast<size_t>(i + 1)];
      if (i < r && l < r) v += at(i, l);  // P₀(i + 1, l + 1) in 1-based terms
      at(i - 1, l - 1) = at(l - 1, i - 1) = v;
    }
  return P;
}

Filter::Filter(const Arma& model) : size_(model.stateSize()) {
  const auto r = static_cast<size_t>(size_);
  phi_.assign(r, 0.0);
  for (size_t i = 0; i < r; ++i) phi_[i] = phiAt(model, static_cast<int64_t>(i + 1));
  a_.assign(r, 0.0);
  // P₀'s first column: Cov(α_t(i), u_t) = c_{i+1} (the recursion of stationaryCovariance).
  const auto gamma = autocovariances(model, size_);
  const auto psi = psiWeights(model, size_);
  gain_.assign(r, 0.0);
  for (int64_t k = 1; k <= size_; ++k) {
    double v = 0;
    for (int64_t j = 0; j <= size_ - k; ++j)
      v += phiAt(model, k + j) * gamma[static_cast<size_t>(j + 1)] +
           thetaAt(model, k + j - 1) * psi[static_cast<size_t>(j)];
    gain_[static_cast<size_t>(k - 1)] = v;
  }
  variance_ = gain_[0];  // γ(0)
  multiplyT(gain_);
  w_ = gain_;
  m_ = -1 / variance_;
}

void Filter::multiplyT(std::vector<double>& x) const {
  const double first = x[0];
  const auto r = x.size();
  for (size_t i = 0; i + 1 < r; ++i) x[i] = phi_[i] * first + x[i + 1];
  x[r - 1] = phi_[r - 1] * first;
}

Filter::Step Filter::update(double u) {
  const auto r = static_cast<size_t>(size_);
  const double v = u - a_[0], F = variance_;
  const double* phi = phi_.data();
  double* a = a_.data();
  double* k = gain_.data();
  double* w = w_.data();
  // a_{t+1} = T a_t + k_t v / F.
  const double a0 = a[0], step = v / F;
  for (size_t i = 0; i + 1 < r; ++i) a[i] = phi[i] * a0 + a[i + 1] + k[i] * step;
  a[r - 1] = phi[r - 1] * a0 + k[r - 1] * step;
  if (settled_) return {v, F};
  // The covariance recursions, skipped once the whole covariance change m w w' is negligible
  // (the filter has reached its steady state: F = 1 and a fixed gain). The first element of w
  // alone would not do: a seasonal model's w travels up the state and can pass through zero.
  const double w0 = w[0];
  double norm2 = 0;
  for (size_t i = 0; i < r; ++i) norm2 += w[i] * w[i];
  if (std::abs(m_) * norm2 <= kSettled * F) {
    settled_ = true;
    return {v, F};
  }
  const double next_variance = F + m_ * w0 * w0;
  const double gain_step = m_ * w0, w_step = w0 / F;
  for (size_t i = 0; i < r; ++i) {
    const double tw = phi[i] * w0 + (i + 1 < r ? w[i + 1] : 0.0);  // (T w)_i
    w[i] = tw - k[i] * w_step;
    k[i] += gain_step * tw;
  }
  m_ = m_ * F / next_variance;
  variance_ = next_variance;
  return {v, F};
}

void Filter::forecast(int64_t horizon, double* out) const {
  std::vector<double> x(a_);
  for (int64_t h = 0; h < horizon; ++h) {
    out[h] = x[0];
    multiplyT(x);
  }
}

double Likelihood::neg2LogLikelihood() const {
  const double nd = static_cast<double>(n);
  return nd * std::log(2 * M_PI * sigma2()) + nd + log_det;
}

double Likelihood::logLikelihood(double sigma2) const {
  const double nd = static_cast<double>(n);
  return -0.5 * (nd * std::log(2 * M_PI * sigma2) + log_det + sum_squares / sigma2);
}

Likelihood kalmanLikelihood(const Arma& model, const double* u, int64_t n) {
  Filter filter(model);
  Likelihood out;
  out.n = n;
  for (int64_t t = 0; t < n; ++t) {
    const auto step = filter.update(u[t]);
    out.sum_squares += step.error * step.error / step.variance;
    out.log_det += std::log(step.variance);
  }
  return out;
}

}  // namespace rsalab::forecast::arma
