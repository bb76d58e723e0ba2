// SPDX-License-Identifier: GPL-3.0-or-later
// Linear attention: bidirectional against a literal per-row sum, the implied weights, the state's
// precision. (Parallel == cumulative == chunked == recurrent, their gradients and the layer's
// paths: the self-test's linear-forms and gradients checks, tests/test_selftest.cpp.)
// Seed: linear-attention-transformers-are-rnns-note.txt.
#include "engine/models/linear_attention.h"
#include "support/test_support.h"

using namespace rsalab;

class TestLinearAttention : public QObject {
  Q_OBJECT
 private slots:
  void bidirectionalMatchesRowByRowSum() {
    torch::manual_seed(2);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({1, 2, 9, 3}, opts), k = torch::randn({1, 2, 9, 3}, opts);
    auto v = torch::randn({1, 2, 9, 3}, opts);
    auto fast = linearAttentionParallel(q, k, v, /*causal=*/false);
    auto slow = torch::zeros_like(fast);
    auto fq = torch::elu(q) + 1, fk = torch::elu(k) + 1;
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t i = 0; i < 9; ++i) {
        auto num = torch::zeros({3}, opts);
        double den = 0;
        for (int64_t j = 0; j < 9; ++j) {
          const double s = torch::dot(fq[0][h][i], fk[0][h][j]).item<double>();
          num += s * v[0][h][j];
          den += s;
        }
        slow[0][h][i] = num / (den + kLinearAttentionEps);
      }
    }
    QVERIFY(test::checkClose(fast, slow, 1e-12, "bidirectional"));
  }
  void impliedWeightsReproduceTheOutput() {
    torch::manual_seed(3);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({1, 1, 12, 4}, opts), k = torch::randn({1, 1, 12, 4}, opts);
    auto v = torch::randn({1, 1, 12, 4}, opts);
    auto w = linearAttentionWeights(q, k, /*causal=*/true);  // (1, 1, T, T)
    QVERIFY(test::checkClose(w.sum(-1), torch::ones({1, 1, 12}, opts), 1e-5, "rows sum to 1"));
    QVERIFY(torch::equal(w.triu(1), torch::zeros_like(w)));
    QVERIFY(test::checkClose(torch::matmul(w, v), linearAttentionParallel(q, k, v, true), 1e-5,
                             "weights · V"));
  }
  void stateStaysFloat32UnderLowerPrecisionInputs() {
    auto q = torch::randn({1, 1, 1, 4}).to(torch::kBFloat16);
    torch::Tensor S, z;
    auto y = linearAttentionStep(q, q, q, S, z);
    QCOMPARE(S.scalar_type(), torch::kFloat32);
    QCOMPARE(y.scalar_type(), torch::kBFloat16);
  }
};

RSALAB_TEST_MAIN(TestLinearAttention)
#include "test_linear_attention.moc"
