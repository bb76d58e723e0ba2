// SPDX-License-Identifier: GPL-3.0-or-later
// ALiBi (engine/models/alibi.h; arXiv 2108.12409) and FoX (engine/models/fox.h; arXiv
// 2503.02130), the two softmax attentions with a decay inside the softmax: the layer's parallel
// form equals a literal float64 loop over i and j ≤ i written from the papers' equations (with
// padded keys left out); and the inspection record carries the softmax weights and the decays
// (ALiBi's e^(−m_h), FoX's f_t). (Causality, step() against forward() and FoX's forget-gate
// gradient against central differences: the self-test's causality, kv-cache and
// gradients/fox-forget-gate checks, tests/test_selftest.cpp.)
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/core/registry/model_registry.h"
#include "engine/models/alibi.h"
#include "engine/models/fox.h"
#include "engine/models/model_factory.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

const auto kF64 = torch::TensorOptions().dtype(torch::kFloat64);

// The layer's output by loops over b, h, i and j ≤ i from its weights: scores q_i·k_j/√Dh plus
// the paper's bias (ALiBi: −m_h (i − j), m_h = 2^(−8h/H), h = 1..H; FoX: Σ_{k=j+1..i} log σ(w_h·x_k
// + b_h)), a softmax over the unpadded j ≤ i, Σ_j w_ij v_j, then W_O. `weights` gets w (B, H, T,
// T) when given.
torch::Tensor literalLayer(SelfAttentionImpl& layer, const torch::Tensor& x,
                           const torch::Tensor& key_padding = {},
                           torch::Tensor* weights = nullptr) {
  torch::NoGradGuard no_grad;
  const int64_t B = x.size(0), T = x.size(1), D = x.size(2), H = layer.heads(), Dh = D / H;
  const bool fox = layer.kind() == attentionKind("fox");
  std::map<std::string, torch::Tensor> p;
  for (const auto& item : layer.named_parameters()) p[item.key()] = item.value();
  auto qkv = torch::matmul(x, p.at("qkv.weight").t()) + p.at("qkv.bias");  // (B, T, 3D)
  auto qa = qkv.accessor<double, 3>();
  auto xa = x.accessor<double, 3>();
  auto y = torch::zeros({B, T, D}, kF64);
  if (weights) *weights = torch::zeros({B, H, T, T}, kF64);
  auto log_gate = [&](int64_t b, int64_t k, int64_t h) {  // log σ(w_h·x_k + b_h)
    double z = p.at("forget.bias")[h].item<double>();
    for (int64_t c = 0; c < D; ++c) z += p.at("forget.weight")[h][c].item<double>() * xa[b][k][c];
    return -std::log1p(std::exp(-z));
  };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const double slope = std::pow(2.0, -8.0 * static_cast<double>(h + 1) / H);
      for (int64_t i = 0; i < T; ++i) {
        std::vector<double> s(static_cast<size_t>(i + 1), -INFINITY);
        double top = -INFINITY;
        for (int64_t j = 0; j <= i; ++j) {
          if (key_padding.defined() && key_padding[b][j].item<bool>()) continue;
          double dot = 0;
          for (int64_t c = 0; c < Dh; ++c) dot += qa[b][i][h * Dh + c] * qa[b][j][D + h * Dh + c];
          double bias = 0;
          if (fox) {
            for (int64_t k = j + 1; k <= i; ++k) bias += log_gate(b, k, h);
          } else {
            bias = -slope * static_cast<double>(i - j);
          }
          s[j] = dot / std::sqrt(static_cast<double>(Dh)) + bias;
          top = std::max(top, s[j]);
        }
        double sum = 0;
        for (double& v : s) sum += (v = std::isinf(v) ? 0.0 : std::exp(v - top));
        for (int64_t j = 0; j <= i; ++j) {
          const double w = sum > 0 ? s[j] / sum : 0.0;
          if (weights) (*weights)[b][h][i][j] = w;
          for (int64_t c = 0; c < Dh; ++c) y[b][i][h * Dh + c] += w * qa[b][j][2 * D + h * Dh + c];
        }
      }
    }
  return torch::matmul(y, p.at("out.weight").t()) + p.at("out.bias");  // (B, T, D)
}

SelfAttention layerFor(const std::string& kind) {
  SelfAttention layer;
  if (kind == "alibi") {
    layer = std::make_shared<AlibiAttentionImpl>(12, 3);
  } else {
    auto fox = std::make_shared<ForgettingAttentionImpl>(12, 3);
    torch::NoGradGuard no_grad;
    // Gates spread over (0, 1), some near 1 and some small, so that F is far from 1 and 0.
    fox->named_parameters()["forget.bias"].copy_(torch::tensor({3.0, 0.0, -2.0}));
    layer = fox;
  }
  layer->to(torch::kFloat64);
  return layer;
}

void addKindRows() {
  QTest::addColumn<QString>("kind");
  QTest::newRow("alibi") << QString("alibi");
  QTest::newRow("fox") << QString("fox");
}

}  // namespace

class TestAlibiFox : public QObject {
  Q_OBJECT
 private slots:
  void slopesAreThePapers() {
    auto m = alibiSlopes(8);
    for (int64_t h = 0; h < 8; ++h) QCOMPARE(m[h].item<double>(), std::pow(0.5, h + 1.0));
    QCOMPARE(alibiSlopes(4)[0].item<double>(), 0.25);  // 2^(−8/4)
    QVERIFY(modelInfo("alibi").has(NoPositionalEncoding) &&
            modelInfo("fox").has(NoPositionalEncoding));
    QVERIFY(modelInfo("alibi").causalOnly() && modelInfo("fox").causalOnly());
  }

  // H = 6 is not a power of two: the paper's text gives 2^(−8h/6), h = 1..6; the authors' code
  // (get_slopes) the slopes of H = 4 (2^−2, 2^−4, 2^−6, 2^−8), then the 1st and 3rd of H = 8
  // (2^−1, 2^−3). At a power of two both rules give the same slopes.
  void slopesAtSixHeadsByBothRules() {
    const double text[] = {std::pow(2.0, -4.0 / 3),  std::pow(2.0, -8.0 / 3),  1.0 / 16,
                           std::pow(2.0, -16.0 / 3), std::pow(2.0, -20.0 / 3), 1.0 / 256};
    const double code[] = {1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2, 1.0 / 8};
    const auto t = alibiSlopes(6), c = alibiSlopes(6, AlibiSlopes::Code);
    QCOMPARE(t.size(0), int64_t{6});
    QCOMPARE(c.size(0), int64_t{6});
    for (int64_t h = 0; h < 6; ++h) {
      QVERIFY(std::abs(t[h].item<double>() - text[h]) < 1e-15);
      QCOMPARE(c[h].item<double>(), code[h]);  // powers of two: exact
    }
    QVERIFY(torch::equal(alibiSlopes(8), alibiSlopes(8, AlibiSlopes::Code)));
    QVERIFY(torch::equal(alibiSlopes(1), alibiSlopes(1, AlibiSlopes::Code)));
    // H = 3: the slope of H = 2 (2^−4, 2^−8), then the first of H = 4 (2^−2).
    const auto three = alibiSlopes(3, AlibiSlopes::Code);
    QCOMPARE(three[0].item<double>(), 1.0 / 16);
    QCOMPARE(three[1].item<double>(), 1.0 / 256);
    QCOMPARE(three[2].item<double>(), 1.0 / 4);
  }

  // The option reaches the model: at H = 6 the same initialisation gives other outputs with the
  // code's slopes (printed: how far apart), the same at H = 4.
  void optionChangesTheModelAtSixHeads() {
    const auto outputs = [](int64_t heads, bool code) {
      ModelOptions o;
      o.model = "alibi";
      o.d_model = 24;
      o.heads = heads;
      o.layers = 2;
      o.alibi_code_slopes = code;
      torch::manual_seed(7);
      auto net = makeSequenceModel(o, ModelIO{1, 0, 1, false});
      net->eval();
      torch::NoGradGuard no_grad;
      torch::manual_seed(8);
      return net->forward(torch::randn({4, 48, 1}));
    };
    const auto text = outputs(6, false), code = outputs(6, true);
    const double largest = (text - code).abs().max().item<double>();
    const double relative = largest / text.abs().max().item<double>();
    qInfo(
        "ALiBi at H = 6, d_model 24, 2 layers, T = 48: the code's slopes move the outputs by "
        "up to %.4g (%.3g %% of the largest output)",
        largest, 100 * relative);
    QVERIFY(largest > 1e-4);
    QVERIFY(torch::equal(outputs(4, false), outputs(4, true)));
  }

  void parallelEqualsTheLoop_data() { addKindRows(); }
  void parallelEqualsTheLoop() {
    QFETCH(QString, kind);
    torch::manual_seed(41);
    auto layer = layerFor(kind.toStdString());
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 13, 12}, kF64);
    QVERIFY(test::checkClose(layer->forward(x), literalLayer(*layer, x), 1e-10, "forward"));
    auto pad = torch::zeros({2, 13}, torch::kBool);
    pad[0][0] = true;  // row 0 of sample 0 has no key at all
    pad[0][5] = true;
    pad[1][9] = true;
    const auto got = layer->forward(x, pad);
    QVERIFY(torch::isfinite(got.narrow(1, 1, 12)).all().item<bool>());
    auto want = literalLayer(*layer, x, pad);
    QVERIFY(test::checkClose(got[1], want[1], 1e-10, "padded, sample 1"));
    QVERIFY(test::checkClose(got[0].narrow(0, 1, 12), want[0].narrow(0, 1, 12), 1e-10, "padded"));
  }

  // The record: per head the softmax weights (rows sum to 1, causal) equal to the loop's, and
  // the decays: ALiBi's e^(−m_h) (one per head), FoX's f_t per query position.
  void inspectionCarriesWeightsAndDecays_data() { addKindRows(); }
  void inspectionCarriesWeightsAndDecays() {
    QFETCH(QString, kind);
    torch::manual_seed(45);
    auto layer = layerFor(kind.toStdString());
    torch::NoGradGuard no_grad;
    const int64_t T = 7;
    auto x = torch::randn({2, T, 12}, kF64);
    InspectionRecord record;
    record.sample = 1;
    record.layers.resize(1);
    const auto inspected = layer->forward(x, {}, LayerObserver(&record.layers[0], 1));
    // On the CPU the plain forward is the blocked kernel (the bias added block by block), the
    // inspected one the written-out weights: the same values up to float64 rounding.
    QVERIFY(test::checkClose(inspected, layer->forward(x), 1e-12, "inspected vs plain forward"));
    torch::Tensor expected;
    literalLayer(*layer, x, {}, &expected);
    QCOMPARE(record.layers[0].heads.size(), size_t{3});
    for (int64_t h = 0; h < 3; ++h) {
      const auto& head = record.layers[0].heads[static_cast<size_t>(h)];
      auto got = torch::tensor(head.attention.values, kF64).view({T, T});
      QVERIFY(test::checkClose(got, expected[1][h], 1e-6, "record weights"));
      QVERIFY(test::checkClose(got.sum(-1), torch::ones({T}, kF64), 1e-5, "rows sum to 1"));
      if (kind == "alibi") {
        QCOMPARE(head.decay.size(), size_t{1});
        QCOMPARE(head.decay[0], static_cast<float>(std::exp(-std::pow(2.0, -8.0 * (h + 1) / 3))));
      } else {
        QCOMPARE(head.decay.size(), static_cast<size_t>(T));
        auto p = layer->named_parameters();
        auto f = torch::sigmoid(torch::matmul(x[1], p["forget.weight"][h]) + p["forget.bias"][h]);
        QVERIFY(test::checkClose(torch::tensor(head.decay, kF64), f, 1e-6, "f_t"));
      }
    }
  }
};

RSALAB_TEST_MAIN(TestAlibiFox)
#include "test_alibi_fox.moc"
