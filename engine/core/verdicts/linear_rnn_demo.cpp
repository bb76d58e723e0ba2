// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/linear_rnn_demo.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace rsalab {

namespace {

constexpr int kN = LinearRnnDemo::kN;
using Mat = std::vector<double>;  // row-major, sizes in the callers

Mat matmul(const Mat& a, const Mat& b, int n, int k, int m) {  // (n×k)(k×m)
  Mat c(static_cast<size_t>(n * m), 0.0);
  for (int i = 0; i < n; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < m; ++j) c[i * m + j] += a[i * k + p] * b[p * m + j];
  return c;
}

Mat inverse(Mat a, int n) {  // Gauss–Jordan with partial pivoting
  Mat inv(static_cast<size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i) inv[i * n + i] = 1;
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(a[r * n + c]) > std::abs(a[pivot * n + c])) pivot = r;
    if (std::abs(a[pivot * n + c]) < 1e-12) throw std::runtime_error("singular matrix");
    for (int j = 0; j < n; ++j) {
      std::swap(a[c * n + j], a[pivot * n + j]);
      std::swap(inv[c * n + j], inv[pivot * n + j]);
    }
    const double d = a[c * n + c];
    for (int j = 0; j < n; ++j) a[c * n + j] /= d, inv[c * n + j] /= d;
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r * n + c];
      for (int j = 0; j < n; ++j)
        a[r * n + j] -= f * a[c * n + j], inv[r * n + j] -= f * inv[c * n + j];
    }
  }
  return inv;
}

enum class Kind { kRegular, kCos, kSin };

// The literal REM, as remByLoops in engine/models/rem_reference.h (causal, dilation 1), written out
// here because that header pulls in LibTorch through rem_builder.h and widgets/ must not:
// P[i][j] = base^m · (1 | cos mθ | sin mθ) for the lag m = i − j ≥ 1, else 0.
Mat remLoops(Kind kind, double base, double theta, int T) {
  Mat P(static_cast<size_t>(T * T), 0.0);
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < i; ++j) {
      const int m = i - j;
      double value = std::pow(base, m);
      if (kind == Kind::kCos) value *= std::cos(theta * m);
      if (kind == Kind::kSin) value *= std::sin(theta * m);
      P[static_cast<size_t>(i * T + j)] = value;
    }
  }
  return P;
}

}  // namespace

LinearRnnDemo LinearRnnDemo::random(unsigned seed, int T) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  LinearRnnDemo d;
  d.T = T;
  d.lambda1 = 0.9 * u(rng);
  d.lambda2 = 0.9 * u(rng);
  d.gamma = 0.7 + 0.25 * std::abs(u(rng));  // < 0.95: spectral radius < 1
  d.theta = 0.3 + 1.2 * std::abs(u(rng));   // radians
  d.S.assign(kN * kN, 0.0);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) d.S[i * kN + j] = (i == j ? 1.0 : 0.0) + 0.4 * u(rng);
  d.S_inv = inverse(d.S, kN);
  // D = blockdiag(λ₁, λ₂, γR(θ)), R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]] (eigenvalues γe^{±iθ}).
  Mat D(kN * kN, 0.0);
  D[0] = d.lambda1;
  D[1 * kN + 1] = d.lambda2;
  D[2 * kN + 2] = d.gamma * std::cos(d.theta);
  D[2 * kN + 3] = -d.gamma * std::sin(d.theta);
  D[3 * kN + 2] = d.gamma * std::sin(d.theta);
  D[3 * kN + 3] = d.gamma * std::cos(d.theta);
  d.W = matmul(matmul(d.S, D, kN, kN, kN), d.S_inv, kN, kN, kN);
  d.Z.resize(static_cast<size_t>(T * kN));
  for (double& z : d.Z) z = u(rng);
  return d;
}

std::vector<std::complex<double>> LinearRnnDemo::eigenvalues() const {
  return {lambda1, lambda2, std::polar(gamma, theta), std::polar(gamma, -theta)};
}

double LinearRnnDemo::spectralRadius() const {
  return std::max({std::abs(lambda1), std::abs(lambda2), gamma});
}

// h_t = W h_{t−1} + z_t, h_{−1} = 0.
std::vector<double> LinearRnnDemo::byRecurrence() const {
  Mat H(static_cast<size_t>(T * kN), 0.0);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < kN; ++i) {
      double v = Z[t * kN + i];
      if (t > 0)
        for (int j = 0; j < kN; ++j) v += W[i * kN + j] * H[(t - 1) * kN + j];
      H[t * kN + i] = v;
    }
  return H;
}

// W^m = Σ_r λ_r^m s_r s̃_r + γ^m cos(mθ)·S_c S̃_c + γ^m sin(mθ)·S_c E S̃_c, with s_r the columns of
// S, s̃_r the rows of S⁻¹, S_c / S̃_c those of the rotation block and E = [[0, −1], [1, 0]].
// Rows of H are h_tᵀ = Σ_m z_{t−m}ᵀ (W^m)ᵀ, so
//   H = Z + Σ_r P_reg(λ_r) Z (s_r s̃_r)ᵀ + P_cos(γ, θ) Z (S_c S̃_c)ᵀ + P_sin(γ, θ) Z (S_c E S̃_c)ᵀ,
// the spec's form with 2·Re(c_k b_kᵀ) = (S_c S̃_c)ᵀ and −2·Im(c_k b_kᵀ) = (S_c E S̃_c)ᵀ.
std::vector<double> LinearRnnDemo::byRems() const {
  Mat H = Z;
  auto addTerm = [&](const Mat& P, const Mat& M) {  // H += P · Z · Mᵀ, M is kN × kN
    Mat Mt(kN * kN);
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) Mt[i * kN + j] = M[j * kN + i];
    const Mat term = matmul(matmul(P, Z, T, T, kN), Mt, T, kN, kN);
    for (size_t k = 0; k < H.size(); ++k) H[k] += term[k];
  };
  auto outer = [&](const std::vector<std::pair<int, int>>& pairs) {  // Σ coef · s_a s̃_b
    Mat M(kN * kN, 0.0);
    for (const auto& [a, b] : pairs) {
      const double sign = a < 0 ? -1.0 : 1.0;
      const int col = std::abs(a) - 1, row = b;
      for (int i = 0; i < kN; ++i)
        for (int j = 0; j < kN; ++j) M[i * kN + j] += sign * S[i * kN + col] * S_inv[row * kN + j];
    }
    return M;
  };
  // Column indices are 1-based in `outer` so that a negative one can carry the sign.
  addTerm(remLoops(Kind::kRegular, lambda1, 0, T), outer({{1, 0}}));
  addTerm(remLoops(Kind::kRegular, lambda2, 0, T), outer({{2, 1}}));
  addTerm(remLoops(Kind::kCos, gamma, theta, T), outer({{3, 2}, {4, 3}}));
  // S_c E S̃_c = −s₃ s̃₄ + s₄ s̃₃.
  addTerm(remLoops(Kind::kSin, gamma, theta, T), outer({{-3, 3}, {4, 2}}));
  return H;
}

double LinearRnnDemo::maxError() const {
  const Mat a = byRecurrence(), b = byRems();
  double err = 0;
  for (size_t k = 0; k < a.size(); ++k) err = std::max(err, std::abs(a[k] - b[k]));
  return err;
}

}  // namespace rsalab
