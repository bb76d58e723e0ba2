// SPDX-License-Identifier: GPL-3.0-or-later
// A stationary ARMA(p, q) as a linear Gaussian state-space model, and its Kalman filter
// (Durbin & Koopman, "Time Series Analysis by State Space Methods", chapters 3–4 and 7).
//
// The model, with unit innovation variance (σ² is concentrated out by the callers):
//   φ(B) u_t = θ(B) ε_t,   φ(B) = 1 − φ_1 B − … − φ_p B^p,   θ(B) = 1 + θ_1 B + … + θ_q B^q.
// The state has r = max(p, q + 1) elements; its first is u_t and element i (0-based) is the part
// of u_{t+i} already fixed by time t:
//   u_t = Z α_t,  Z = (1, 0, …, 0);   α_{t+1} = T α_t + R ε_{t+1},
//   T = [φ | shift] (column 0 holds φ_1 … φ_r, ones above the diagonal),
//   R = (1, θ_1, …, θ_{r−1})'.
// The filter starts from the stationary distribution: mean 0 and covariance P₀ = T P₀ T' + R R'.
// P₀ is built from the autocovariances γ(k) and the ψ-weights of the ARMA (Brockwell & Davis,
// "Time Series: Theory and Methods", §3.3) through the element recursion
//   P₀(i, l) = φ_i φ_l γ(0) + θ_{i−1} θ_{l−1} + φ_i c_{l+1} + φ_l c_{i+1} + P₀(i+1, l+1),
//   c_k = Cov(u_t, α_t(k)) = Σ_j [φ_{k+j} γ(j+1) + θ_{k+j−1} ψ_j]      (1-based i, l, k),
// which needs one (p + 1)-square linear solve instead of the r²-square one of the Lyapunov
// equation. The filter itself needs only P₀'s first column (c_1 … c_r): from a stationary start
// the predicted covariance changes by a rank-one matrix each step, P_{t+1} − P_t = m_t w_t w_t',
// so the filter runs on the Chandrasekhar-type recursions (Morf, Sidhu & Kailath 1974) for the
// variance F_t, the gain k_t = T P_t Z' and the pair (w_t, m_t): O(r) a step instead of O(r²):
//   F_{t+1} = F_t + m_t w_{t,0}²,   k_{t+1} = k_t + m_t w_{t,0} T w_t,
//   w_{t+1} = T w_t − k_t w_{t,0} / F_t,   m_{t+1} = m_t F_t / F_{t+1},
// from F_1 = γ(0), k_1 = w_1 = T P₀ Z', m_1 = −1 / F_1; the state moves by
// a_{t+1} = T a_t + k_t v_t / F_t. Once m_t w_t w_t' is negligible the filter has reached its
// steady state (F = 1, a fixed gain) and only the state moves.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rsalab::forecast::arma {

struct Arma {
  std::vector<double> phi;    // φ_1 … φ_p (a stationary φ(B))
  std::vector<double> theta;  // θ_1 … θ_q
  int64_t stateSize() const {
    return std::max<int64_t>(static_cast<int64_t>(phi.size()),
                             static_cast<int64_t>(theta.size()) + 1);
  }
};

// ψ_0 … ψ_maxLag of u_t = Σ ψ_j ε_{t−j}.
std::vector<double> psiWeights(const Arma& model, int64_t max_lag);
// γ(0) … γ(maxLag) for σ² = 1. Throws std::runtime_error when φ(B) is (numerically) not stationary.
std::vector<double> autocovariances(const Arma& model, int64_t max_lag);
// P₀, r × r, row-major.
std::vector<double> stationaryCovariance(const Arma& model);

class Filter {
 public:
  explicit Filter(const Arma& model);
  struct Step {
    double error;     // v_t = u_t − E[u_t | u_0 … u_{t−1}]
    double variance;  // F_t: its variance, in units of σ²
  };
  // Takes u_t.
  Step update(double u);
  // E[u_{t+h} | u_0 … u_t] for h = 1 … H after the last update, into out[0 … H).
  void forecast(int64_t horizon, double* out) const;

 private:
  void multiplyT(std::vector<double>& x) const;  // x ← T x
  std::vector<double> phi_;                      // φ padded to the state size
  int64_t size_;
  std::vector<double> a_;     // the predicted state a_{t|t−1}
  std::vector<double> gain_;  // k_t = T P_t Z'
  std::vector<double> w_;
  double variance_ = 1, m_ = 0;  // F_t and m_t
  bool settled_ = false;
};

struct Likelihood {
  double sum_squares = 0;  // Σ v_t² / F_t
  double log_det = 0;      // Σ log F_t
  int64_t n = 0;
  double sigma2() const { return sum_squares / static_cast<double>(n); }  // σ̂²
  // −2 log L at σ² = σ̂²: n log(2π σ̂²) + n + Σ log F_t.
  double neg2LogLikelihood() const;
  // log L at a given σ².
  double logLikelihood(double sigma2) const;
};
// The exact Gaussian likelihood of u_0 … u_{n−1} by the prediction-error decomposition.
Likelihood kalmanLikelihood(const Arma& model, const double* u, int64_t n);

}  // namespace rsalab::forecast::arma
