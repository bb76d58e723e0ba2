// SPDX-License-Identifier: GPL-3.0-or-later
// StarSaber on the blocked attention kernel: the split-value kernel (keys before a row read
// v_past, the row itself and later keys v_future) against the materialised form written with
// plain LibTorch ops, and the StarSaber layer's training path (blocked, W U Q as one product)
// against its inspected path (the (B, H, T, T) weights, as before the blocked kernel), in
// float64: outputs and every gradient. Block sizes split the rows into several blocks (T not a
// multiple of the rows) and group several heads per block.
#include "engine/kernels/blocked_attention.h"
#include "engine/models/starsaber.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// tril(G, −1)·v_past + triu(G)·v_future, G = softmax(q kᵀ·scale + causal mask).
torch::Tensor materialised(const torch::Tensor& q, const torch::Tensor& k,
                           const torch::Tensor& v_past, const torch::Tensor& v_future, double scale,
                           bool causal) {
  const int64_t T = q.size(2);
  auto s = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, T, T)
  if (causal) s = s.masked_fill(torch::ones({T, T}, torch::kBool).triu(1), -INFINITY);
  auto G = torch::softmax(s, -1);
  return torch::matmul(G.tril(-1), v_past) + torch::matmul(G.triu(0), v_future);
}

}  // namespace

class TestStarSaberBlocked : public QObject {
  Q_OBJECT
 private slots:
  void splitValuesMatchMaterialisedForm_data() {
    QTest::addColumn<bool>("causal");
    QTest::addColumn<qlonglong>("blockValues");
    QTest::addColumn<qlonglong>("length");
    // H = 3, T = 37: 64 values -> row blocks of 16, 16, 5, one head each; 3·37·37 -> one block
    // of all rows and heads; T = 1: the diagonal only.
    for (bool causal : {true, false}) {
      const std::string c = causal ? "causal" : "bidirectional";
      QTest::newRow((c + ", row blocks").c_str()) << causal << 64LL << 37LL;
      QTest::newRow((c + ", head groups").c_str()) << causal << 3LL * 37 * 37 << 37LL;
      QTest::newRow((c + ", T = 7, default blocks").c_str())
          << causal << qlonglong{kAttentionBlockValues} << 7LL;
      QTest::newRow((c + ", T = 1").c_str()) << causal << 64LL << 1LL;
    }
  }
  void splitValuesMatchMaterialisedForm() {
    QFETCH(bool, causal);
    QFETCH(qlonglong, blockValues);
    QFETCH(qlonglong, length);
    torch::manual_seed(11);
    const int64_t B = 2, H = 3, T = length, Dh = 4;
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    std::vector<torch::Tensor> in;  // q, k, v_past, v_future
    for (int i = 0; i < 4; ++i) in.push_back(torch::randn({B, H, T, Dh}, f64).requires_grad_());
    auto weights = torch::randn({B, H, T, Dh}, f64);
    const double scale = 0.6;
    auto gradsOf = [&](const torch::Tensor& y) {
      for (auto& t : in) {
        if (t.grad().defined()) t.mutable_grad().zero_();
      }
      (y * weights).sum().backward();
      std::vector<torch::Tensor> g{y.detach()};
      for (auto& t : in) g.push_back(t.grad().clone());
      return g;
    };
    auto fast =
        gradsOf(blockedSplitValueAttention(in[0], in[1], in[2], in[3], scale, causal, blockValues));
    auto reference = gradsOf(materialised(in[0], in[1], in[2], in[3], scale, causal));
    const std::vector<std::string> names = {"output", "dq", "dk", "d v_past", "d v_future"};
    for (size_t i = 0; i < fast.size(); ++i) {
      QVERIFY2(test::checkClose(fast[i], reference[i], 1e-10, names[i]), names[i].c_str());
    }
    // Without autograd (evaluation) the forward is the same.
    torch::NoGradGuard no_grad;
    QVERIFY(test::checkClose(
        blockedSplitValueAttention(in[0], in[1], in[2], in[3], scale, causal, blockValues),
        reference[0], 1e-10, "no-grad output"));
  }

  void layerTrainingPathEqualsInspectedPath_data() {
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("gated");
    for (bool causal : {true, false}) {
      for (bool gated : {false, true}) {
        const std::string name =
            std::string(causal ? "causal" : "bidirectional") + (gated ? ", gated" : "");
        QTest::newRow(name.c_str()) << causal << gated;
      }
    }
  }
  // The layer without a record runs the blocked kernel; with one, the materialised G.
  void layerTrainingPathEqualsInspectedPath() {
    QFETCH(bool, causal);
    QFETCH(bool, gated);
    torch::manual_seed(12);
    StarSaberLayerImpl layer(12, 3, causal, gated);
    layer.to(torch::kFloat64);
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto h = torch::randn({2, 23, 12}, f64), x = torch::randn({2, 23, 12}, f64);
    auto weights = torch::randn({2, 23, 12}, f64);
    auto gradsOf = [&](LayerInspection* record) {
      layer.zero_grad();
      auto y = layer.forward(h, x, {}, LayerObserver(record, 0));
      (y * weights).sum().backward();
      std::vector<torch::Tensor> g = {y.detach()};
      for (const auto& p : layer.named_parameters()) g.push_back(p.value().grad().clone());
      return g;
    };
    auto fast = gradsOf(nullptr);
    LayerInspection record;
    auto inspected = gradsOf(&record);
    QCOMPARE(record.heads.size(), size_t{3});
    const auto names = layer.named_parameters().keys();
    QCOMPARE(fast.size(), names.size() + 1);
    for (size_t i = 0; i < fast.size(); ++i) {
      const std::string what = i == 0 ? "output" : "d " + names[i - 1];
      QVERIFY2(test::checkClose(fast[i], inspected[i], 1e-10, what), what.c_str());
    }
  }
  // The fixed-point claim's map: equationMap(h, x) is the layer's own F, (forward − h) / α, and
  // recordFixedPoint's h* is a fixed point of it, ‖F(h*) − h*‖ ≤ ε·‖h*‖ (checked here in float64
  // by applying F once more), with the recorded distance ‖h − h*‖ / ‖h*‖ recomputed by hand.
  // Small weights make F a contraction, so it converges.
  void recordFixedPointFindsAFixedPointOfTheLastMap() {
    torch::manual_seed(13);
    StarSaberLayerImpl layer(12, 3, /*causal=*/false, /*gated=*/false);
    layer.to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    for (auto& p : layer.named_parameters()) p.value().mul_(0.5);
    layer.alpha.fill_(0.7);
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto h = torch::randn({2, 9, 12}, f64), x = torch::randn({2, 9, 12}, f64);
    QVERIFY(test::checkClose(layer.equationMap(h, x), (layer.forward(h, x) - h) / 0.7, 1e-12,
                             "F = (forward − h) / α"));
    LayerInspection record;
    recordFixedPoint(layer, h, x, {}, /*sample=*/1, record);
    QVERIFY(record.fixed_point_converged);
    QVERIFY(record.fixed_point_iterations > 1 &&
            record.fixed_point_iterations < kFixedPointIterations);
    // Iterate by hand as many times from sample 1's h.
    auto z = h.narrow(0, 1, 1);
    for (int64_t k = 0; k < record.fixed_point_iterations; ++k)
      z = layer.equationMap(z, x.narrow(0, 1, 1));
    const double step = (layer.equationMap(z, x.narrow(0, 1, 1)) - z).norm().item<double>() /
                        z.norm().item<double>();
    QVERIFY2(step <= kFixedPointTolerance, std::to_string(step).c_str());
    const double distance = (h.narrow(0, 1, 1) - z).norm().item<double>() / z.norm().item<double>();
    QVERIFY(std::abs(distance - record.fixed_point_distance) < 1e-9 * (1 + distance));
    QVERIFY(distance > 0);
  }
};

RSALAB_TEST_MAIN(TestStarSaberBlocked)
#include "test_starsaber_blocked.moc"
