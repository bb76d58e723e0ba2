// SPDX-License-Identifier: GPL-3.0-or-later
// Linear attention: parallel == cumulative == chunked == recurrent step-by-step (outputs and
// gradients); bidirectional against a literal per-row sum.
// Seed: linear-attention-transformers-are-rnns-note.txt.
#include <limits>
#include <vector>

#include "engine/models/linear_attention.h"
#include "support/finite_differences.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {
// Key padding (2, T): sequence 0 unpadded; sequence 1 with its last quarter and, for T > 2, its
// middle key padded.
torch::Tensor paddingFor(int64_t T) {
  auto pad = torch::zeros({2, T}, torch::kBool);
  for (int64_t t = 0; t < T; ++t) pad[1][t] = t >= T - T / 4 || (T > 2 && t == T / 2);
  return pad;
}
}  // namespace

class TestLinearAttention : public QObject {
  Q_OBJECT
 private slots:
  void causalParallelEqualsCumulativeEqualsRecurrent() {
    torch::manual_seed(1);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({2, 3, 20, 4}, opts), k = torch::randn({2, 3, 20, 4}, opts);
    auto v = torch::randn({2, 3, 20, 4}, opts);
    auto parallel = linearAttentionParallel(q, k, v, /*causal=*/true);
    auto cumulative = linearAttentionCumulative(q, k, v);
    torch::Tensor S, z;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < 20; ++t) {
      steps.push_back(
          linearAttentionStep(q.narrow(2, t, 1), k.narrow(2, t, 1), v.narrow(2, t, 1), S, z));
    }
    auto recurrent = torch::cat(steps, 2);
    QVERIFY(test::checkClose(cumulative, parallel, 1e-12, "cumulative vs parallel"));
    QVERIFY(test::checkClose(recurrent, parallel, 1e-12, "recurrent vs parallel"));
  }
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
  void chunkedEqualsParallelCumulativeAndRecurrent_data() {
    QTest::addColumn<int>("T");
    QTest::addColumn<int>("chunk");
    QTest::addColumn<bool>("padded");
    for (bool padded : {false, true}) {
      const char* p = padded ? "padded" : "no padding";
      QTest::addRow("T20 C4 (multiple), %s", p) << 20 << 4 << padded;
      QTest::addRow("T20 C6 (not a multiple), %s", p) << 20 << 6 << padded;
      QTest::addRow("T20 C1, %s", p) << 20 << 1 << padded;
      QTest::addRow("T20 C20 (= T), %s", p) << 20 << 20 << padded;
      QTest::addRow("T20 C64 (> T), %s", p) << 20 << 64 << padded;
      QTest::addRow("T7 C3, %s", p) << 7 << 3 << padded;
      QTest::addRow("T1 C4, %s", p) << 1 << 4 << padded;
    }
  }
  void chunkedEqualsParallelCumulativeAndRecurrent() {
    QFETCH(int, T);
    QFETCH(int, chunk);
    QFETCH(bool, padded);
    torch::manual_seed(4);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({2, 3, T, 4}, opts), k = torch::randn({2, 3, T, 4}, opts);
    auto v = torch::randn({2, 3, T, 5}, opts);
    auto pad = padded ? paddingFor(T) : torch::Tensor();
    auto chunked = linearAttentionChunked(q, k, v, chunk, pad);
    auto parallel = linearAttentionParallel(q, k, v, /*causal=*/true, pad);
    QVERIFY(test::checkClose(chunked, parallel, 1e-10, "chunked vs parallel"));
    QVERIFY(test::checkClose(chunked, linearAttentionCumulative(q, k, v, pad), 1e-10,
                             "chunked vs cumulative"));
    // The recurrent form has no key padding: a key of −inf has φ = elu(−inf) + 1 = 0 exactly.
    auto k_rec = pad.defined() ? k.masked_fill(pad.unsqueeze(1).unsqueeze(-1),
                                               -std::numeric_limits<double>::infinity())
                               : k;
    torch::Tensor S, z;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t) {
      steps.push_back(
          linearAttentionStep(q.narrow(2, t, 1), k_rec.narrow(2, t, 1), v.narrow(2, t, 1), S, z));
    }
    QVERIFY(test::checkClose(chunked, torch::cat(steps, 2), 1e-10, "chunked vs recurrent"));
  }
  void chunkedGradientsEqualParallel_data() {
    QTest::addColumn<int>("T");
    QTest::addColumn<int>("chunk");
    QTest::addColumn<bool>("padded");
    QTest::addRow("T24 C8") << 24 << 8 << false;
    QTest::addRow("T23 C8") << 23 << 8 << false;
    QTest::addRow("T23 C5 padded") << 23 << 5 << true;
    QTest::addRow("T23 C1 padded") << 23 << 1 << true;
    QTest::addRow("T23 C32 padded") << 23 << 32 << true;
  }
  void chunkedGradientsEqualParallel() {
    QFETCH(int, T);
    QFETCH(int, chunk);
    QFETCH(bool, padded);
    torch::manual_seed(5);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto pad = padded ? paddingFor(T) : torch::Tensor();
    auto w = torch::randn({2, 3, T, 4}, opts);  // a random linear functional of the output
    std::vector<torch::Tensor> grads[2];
    for (int form = 0; form < 2; ++form) {
      torch::manual_seed(6);
      auto q = torch::randn({2, 3, T, 4}, opts).requires_grad_();
      auto k = torch::randn({2, 3, T, 4}, opts).requires_grad_();
      auto v = torch::randn({2, 3, T, 4}, opts).requires_grad_();
      auto y = form == 0 ? linearAttentionChunked(q, k, v, chunk, pad)
                         : linearAttentionParallel(q, k, v, /*causal=*/true, pad);
      (y * w).sum().backward();
      grads[form] = {q.grad(), k.grad(), v.grad()};
    }
    const char* names[] = {"dq", "dk", "dv"};
    for (int i = 0; i < 3; ++i) {
      QVERIFY(test::checkClose(grads[0][i], grads[1][i], 1e-9, names[i]));
    }
  }
  // Autograd through the chunked form against central finite differences (float64, tiny case).
  void chunkedGradientsMatchFiniteDifferences() {
    torch::manual_seed(7);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    std::vector<torch::Tensor> in = {torch::randn({1, 2, 5, 2}, opts),
                                     torch::randn({1, 2, 5, 2}, opts),
                                     torch::randn({1, 2, 5, 3}, opts)};
    auto pad = torch::tensor({false, false, true, false, false}).view({1, 5});
    auto w = torch::randn({1, 2, 5, 3}, opts);
    auto f = [&](const std::vector<torch::Tensor>& x) {
      return (linearAttentionChunked(x[0], x[1], x[2], /*chunk=*/2, pad) * w).sum();
    };
    for (auto& x : in) x.requires_grad_();
    f(in).backward();
    const auto numeric = test::finiteDifferences(f, in);
    for (size_t i = 0; i < in.size(); ++i) {
      QVERIFY(test::checkClose(in[i].grad(), numeric[i], 1e-6, "finite differences"));
    }
  }
  // The layer: the chunked training path (linear_cumulative) equals the masked parallel one.
  void layerChunkedPathEqualsParallelPath() {
    auto x = torch::randn({2, 19, 16}, torch::kFloat64);
    auto pad = paddingFor(19);
    torch::Tensor y[2];
    for (int cumulative = 0; cumulative < 2; ++cumulative) {
      torch::manual_seed(8);
      auto attn = std::make_shared<LinearAttentionImpl>(16, 4, /*causal=*/true, cumulative == 1);
      attn->to(torch::kFloat64);
      y[cumulative] = attn->forward(x, pad);
    }
    QVERIFY(test::checkClose(y[1], y[0], 1e-10, "chunked layer vs parallel layer"));
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
