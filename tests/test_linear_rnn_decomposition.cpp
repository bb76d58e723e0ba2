// SPDX-License-Identifier: GPL-3.0-or-later
// The RSA paper's decomposition: a linear RNN h_t = W h_{t−1} + U x_t equals the lag-0 term plus
// regular REMs (real eigenvalues) and cos/sin REMs (complex pairs). Spec models.md "Why REMs".
#include <cmath>

#include "engine/models/rem_builder.h"
#include "support/test_support.h"

using namespace rsalab;

class TestLinearRnnDecomposition : public QObject {
  Q_OBJECT
 private slots:
  void linearRnnEqualsSumOfRems() {
    torch::manual_seed(7);
    const int64_t n = 5, m_in = 3, T = 64;
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    // W = S · blockdiag(λ1, λ2, λ3, γR(θ)) · S⁻¹: real eigenvalues 0.9, −0.75, 0.3 and the pair
    // 0.85·e^{±i·2π/7}; spectral radius 0.9 < 1.
    const double g = 0.85, th = 2 * M_PI / 7;
    auto D = torch::zeros({n, n}, f64);
    D[0][0] = 0.9;
    D[1][1] = -0.75;
    D[2][2] = 0.3;
    D[3][3] = g * std::cos(th);
    D[3][4] = -g * std::sin(th);
    D[4][3] = g * std::sin(th);
    D[4][4] = g * std::cos(th);
    auto S = torch::randn({n, n}, f64) + 2 * torch::eye(n, f64);
    auto W = torch::matmul(torch::matmul(S, D), torch::inverse(S));
    auto U = torch::randn({n, m_in}, f64);
    auto X = torch::randn({T, m_in}, f64);

    // Reference: run the recurrence.
    auto H_loop = torch::zeros({T, n}, f64);
    auto h = torch::zeros({n}, f64);
    for (int64_t t = 0; t < T; ++t) {
      h = torch::mv(W, h) + torch::mv(U, X[t]);
      H_loop[t] = h;
    }

    // Decomposition from the eigen-decomposition of W (complex).
    auto eig = torch::linalg::eig(W);
    auto values = std::get<0>(eig), B = std::get<1>(eig);  // right eigenvectors as columns
    auto C = torch::linalg::inv(B);                        // rows: left eigenvectors c_rᵀ
    auto Z = torch::matmul(X, U.t());                      // rows (U x_t)ᵀ: (T, n)
    auto H = Z.clone();
    std::vector<RemHeadSpec> specs;
    std::vector<double> bases, thetas;
    std::vector<torch::Tensor> mixers;  // n × n real matrices multiplying Z from the right
    for (int64_t r = 0; r < n; ++r) {
      const auto lam = values[r];
      const double re = torch::real(lam).item<double>(), im = torch::imag(lam).item<double>();
      auto cb = torch::outer(C[r], B.select(1, r));  // c_r b_rᵀ (n × n, complex)
      if (std::abs(im) < 1e-12) {
        specs.push_back({RemKind::Regular, 1});
        bases.push_back(re);
        thetas.push_back(0);
        mixers.push_back(torch::real(cb));
      } else if (im > 0) {  // one of each conjugate pair: 2·[P_cos Z Re(cb) − P_sin Z Im(cb)]
        const double gamma = std::hypot(re, im), theta = std::atan2(im, re);
        specs.push_back({RemKind::Cos, 1});
        bases.push_back(gamma);
        thetas.push_back(theta);
        mixers.push_back(2 * torch::real(cb));
        specs.push_back({RemKind::Sin, 1});
        bases.push_back(gamma);
        thetas.push_back(theta);
        mixers.push_back(-2 * torch::imag(cb));
      }
    }
    QCOMPARE(specs.size(), size_t{5});  // 3 regular + cos and sin of one pair

    RemBuilder builder(specs, RemInit{}, /*causal=*/true);
    builder->to(torch::kFloat64);
    {
      torch::NoGradGuard no_grad;
      int64_t r = 0, c = 0;
      for (size_t k = 0; k < specs.size(); ++k) {
        if (specs[k].kind == RemKind::Regular) {
          builder->eta[r++] = std::atanh(bases[k]);
        } else {
          builder->nu[c] = std::log(bases[k] / (1 - bases[k]));
          builder->theta_raw[c++] = thetas[k];
        }
      }
      auto P = builder->build(T);  // (5, T, T)
      for (size_t k = 0; k < specs.size(); ++k) {
        H = H + torch::matmul(torch::matmul(P[static_cast<int64_t>(k)], Z), mixers[k]);
      }
    }
    const double max_err = (H - H_loop).abs().max().item<double>();
    qInfo("linear RNN vs REM decomposition: max error %.3g", max_err);
    QVERIFY2(max_err <= 1e-6, "decomposition differs from the recurrence");
  }
};

RSALAB_TEST_MAIN(TestLinearRnnDecomposition)
#include "test_linear_rnn_decomposition.moc"
