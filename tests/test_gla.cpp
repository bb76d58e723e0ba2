// SPDX-License-Identifier: GPL-3.0-or-later
// Gated linear attention (engine/models/gla.h; Yang et al., arXiv 2312.06635): the chunkwise
// training form, the recurrent form (step) and a literal loop of the paper's recurrence
// S_t = diag(α_t) S_{t−1} + k_tᵀ v_t written from the weights agree in float64 for any length and
// block size, with α near 0 and near 1; causality and key padding; the inspection record carries
// W (W·V = the output before the norm and gate) and the per-token decay. (Every parameter's
// gradient against central differences: the self-test's gradients/gla-layer,
// tests/test_selftest.cpp.)
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/core/config/flops.h"
#include "engine/models/gla.h"
#include "engine/models/transformer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

const auto kF64 = torch::TensorOptions().dtype(torch::kFloat64);

struct Literal {
  torch::Tensor o;  // (B, H, T, Dh): q_t S_t, before GroupNorm and the gate
  torch::Tensor y;  // (B, T, D): the layer's output
  torch::Tensor W;  // (B, H, T, T): Σ_c q_ic k_jc Π_{l=j+1..i} α_lc
};

// The layer by loops over b, h, t from its weights: α_t = σ(x W_α1 W_α2 + b_α)^(1/16) as a power
// (not through logs), the recurrence S_t = diag(α_t) S_{t−1} + k_tᵀ v_t, o_t = q_t S_t with
// k/√Dh; W by products of α; GroupNorm per head (biased variance, the module's eps), then
// W_O(swish(x W_r + b_r) ⊙ ·). key_padding (B, T), optional: a padded step is skipped (the state
// passes through unchanged) and its key gets no weight.
Literal literalGla(GatedLinearAttentionImpl& layer, const torch::Tensor& x,
                   const torch::Tensor& key_padding = {}) {
  torch::NoGradGuard no_grad;
  const int64_t B = x.size(0), T = x.size(1), D = x.size(2), H = layer.heads(), Dh = D / H;
  std::map<std::string, torch::Tensor> p;
  for (const auto& item : layer.named_parameters()) p[item.key()] = item.value();
  auto qkv = torch::matmul(x, p.at("qkv.weight").t()) + p.at("qkv.bias");  // (B, T, 3D)
  auto logit = torch::matmul(torch::matmul(x, p.at("decay_down.weight").t()),
                             p.at("decay_up.weight").t()) +
               p.at("decay_up.bias");  // (B, T, D)
  auto qa = qkv.accessor<double, 3>();
  auto za = logit.accessor<double, 3>();
  auto padded = [&](int64_t b, int64_t t) {
    return key_padding.defined() && key_padding[b][t].item<bool>();
  };
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  auto alpha = [&](int64_t b, int64_t t, int64_t j) {
    return std::pow(1.0 / (1.0 + std::exp(-za[b][t][j])), 1.0 / 16.0);
  };
  Literal out;
  out.o = torch::zeros({B, H, T, Dh}, kF64);
  out.W = torch::zeros({B, H, T, T}, kF64);
  auto oa = out.o.accessor<double, 4>();
  auto wa = out.W.accessor<double, 4>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<double> S(static_cast<size_t>(Dh * Dh), 0.0);  // S[c][e]
      for (int64_t t = 0; t < T; ++t) {
        if (!padded(b, t)) {
          for (int64_t c = 0; c < Dh; ++c)
            for (int64_t e = 0; e < Dh; ++e) {
              const double k = qa[b][t][D + h * Dh + c] * scale, v = qa[b][t][2 * D + h * Dh + e];
              S[c * Dh + e] = alpha(b, t, h * Dh + c) * S[c * Dh + e] + k * v;
            }
        }
        for (int64_t e = 0; e < Dh; ++e) {
          double sum = 0;
          for (int64_t c = 0; c < Dh; ++c) sum += qa[b][t][h * Dh + c] * S[c * Dh + e];
          oa[b][h][t][e] = sum;
        }
        for (int64_t j = 0; j <= t; ++j) {  // W_tj
          if (padded(b, j)) continue;
          double w = 0;
          for (int64_t c = 0; c < Dh; ++c) {
            double decay = 1;
            for (int64_t l = j + 1; l <= t; ++l)
              if (!padded(b, l)) decay *= alpha(b, l, h * Dh + c);
            w += qa[b][t][h * Dh + c] * qa[b][j][D + h * Dh + c] * scale * decay;
          }
          wa[b][h][t][j] = w;
        }
      }
    }
  const double eps = layer.groupNorm()->options.eps();
  auto normed = torch::zeros({B, T, D}, kF64);
  auto na = normed.accessor<double, 3>();
  auto gw = p.at("norm.weight").accessor<double, 1>(), gb = p.at("norm.bias").accessor<double, 1>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < Dh; ++c) mean += oa[b][h][t][c] / Dh;
        for (int64_t c = 0; c < Dh; ++c)
          var += (oa[b][h][t][c] - mean) * (oa[b][h][t][c] - mean) / Dh;
        for (int64_t c = 0; c < Dh; ++c)
          na[b][t][h * Dh + c] =
              (oa[b][h][t][c] - mean) / std::sqrt(var + eps) * gw[h * Dh + c] + gb[h * Dh + c];
      }
  auto g = torch::matmul(x, p.at("gate.weight").t()) + p.at("gate.bias");  // (B, T, D)
  out.y = torch::matmul(g * torch::sigmoid(g) * normed, p.at("out.weight").t()) + p.at("out.bias");
  return out;
}

// D = 12, H = 3 (Dh = 4), float64, with a non-trivial GroupNorm affine; the decay bias b_α set to
// `bias` (NaN: left at its initialisation).
GatedLinearAttentionImpl layerFor(double bias = std::nan("")) {
  GatedLinearAttentionImpl layer(/*d_model=*/12, /*heads=*/3);
  layer.to(torch::kFloat64);
  torch::NoGradGuard no_grad;
  layer.groupNorm()->weight.normal_(1.0, 0.3);
  layer.groupNorm()->bias.normal_(0.0, 0.3);
  if (!std::isnan(bias)) layer.decayUp()->bias.fill_(bias);
  return layer;
}

ModelOptions glaOptions() {
  ModelOptions o;
  o.model = "gla";
  o.d_model = 16;
  o.heads = 4;
  o.layers = 2;
  return o;
}

// Decay bias rows: the initialisation (α ≈ 0.96), α near 0 (−30: α ≈ 0.15 a step, a block's
// Σ log α ≈ −30; −1000: α ≈ e^−62.5, a block's Σ log α ≈ −1000, beyond exp's float64 range) and
// α near 1 (+30: log α ≈ −6e−15).
void addBiasRows() {
  QTest::addColumn<double>("bias");
  QTest::newRow("init") << std::nan("");
  QTest::newRow("alpha~0 (bias -30)") << -30.0;
  QTest::newRow("alpha~0 (bias -1000)") << -1000.0;
  QTest::newRow("alpha~1 (bias +30)") << 30.0;
}

bool allFinite(const torch::Tensor& t) { return torch::isfinite(t).all().item<bool>(); }

}  // namespace

class TestGla : public QObject {
  Q_OBJECT
 private slots:
  // The constants flops.h repeats (it stays torch-free) are the model's.
  void flopsConstantsAreTheModels() {
    QCOMPARE(kGlaFlopsChunk, static_cast<double>(kGlaChunk));
    QCOMPARE(kGlaFlopsGateRank, static_cast<double>(kGlaGateRank));
    QVERIFY(forwardFlops("gla", StepShape{}) > 0);
  }

  // The layer (chunkwise form) == the literal loop, to 1e-10 in float64, for lengths below, at
  // and across block boundaries (not multiples of C too), and glaChunked with other block
  // lengths == the loop's o.
  void chunkedEqualsLoop_data() { addBiasRows(); }
  void chunkedEqualsLoop() {
    QFETCH(double, bias);
    torch::manual_seed(41);
    auto layer = layerFor(bias);
    torch::NoGradGuard no_grad;
    for (int64_t T : {1, 7, 16, 17, 45}) {
      auto x = torch::randn({2, T, 12}, kF64);
      const auto lit = literalGla(layer, x);
      const auto got = layer.forward(x);
      QVERIFY(allFinite(got));
      QVERIFY(test::checkClose(got, lit.y, 1e-10, qPrintable(QString("forward T=%1").arg(T))));
      auto [q, k, v, log_alpha] = layer.project(x);
      for (int64_t chunk : {1, 3, 8, 16, 32, 64}) {
        const auto o = glaChunked(q, k, v, log_alpha, chunk);
        QVERIFY(allFinite(o));
        QVERIFY(test::checkClose(o, lit.o, 1e-10,
                                 qPrintable(QString("chunked T=%1 C=%2").arg(T).arg(chunk))));
      }
    }
  }

  // float32 with α near 0 stays finite and near the float64 loop.
  void float32StaysFinite_data() { addBiasRows(); }
  void float32StaysFinite() {
    QFETCH(double, bias);
    torch::manual_seed(42);
    auto layer = layerFor(bias);
    auto x = torch::randn({2, 40, 12}, kF64);
    const auto lit = literalGla(layer, x);
    layer.to(torch::kFloat32);
    auto y = layer.forward(x.to(torch::kFloat32));
    QVERIFY(allFinite(y));
    QVERIFY(test::checkClose(y.to(torch::kFloat64), lit.y, 1e-3, "float32 vs float64 loop"));
    y.sum().backward();
    for (const auto& p : layer.parameters()) QVERIFY(allFinite(p.grad()));
  }

  // step() after step() == the loop (the layer), and through the whole model == forward on the
  // prefix; the state is (B, H, Dh, Dh) whatever T.
  void recurrentEqualsForward_data() { addBiasRows(); }
  void recurrentEqualsForward() {
    QFETCH(double, bias);
    torch::manual_seed(43);
    auto layer = layerFor(bias);
    torch::NoGradGuard no_grad;
    const int64_t T = 35;
    auto x = torch::randn({2, T, 12}, kF64);
    AttentionState state;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t) steps.push_back(layer.step(x.narrow(1, t, 1), state));
    QVERIFY(test::checkClose(torch::cat(steps, 1), literalGla(layer, x).y, 1e-10, "step vs loop"));
    QCOMPARE(state.length, T);
    QCOMPARE(state.S.sizes().vec(), (std::vector<int64_t>{2, 3, 4, 4}));
  }
  // Changing x_t leaves every output before t unchanged (and changes the output at t), across
  // block boundaries.
  void causal() {
    torch::manual_seed(45);
    auto layer = layerFor();
    torch::NoGradGuard no_grad;
    auto x = torch::randn({1, 40, 12}, kF64);
    const auto base = layer.forward(x);
    for (int64_t t : {0, 5, 16, 31, 39}) {
      auto changed = x.clone();
      changed[0][t] += torch::randn({12}, kF64);
      const auto y = layer.forward(changed);
      QVERIFY(torch::equal(y.narrow(1, 0, t), base.narrow(1, 0, t)));
      QVERIFY((y[0][t] - base[0][t]).abs().max().item<double>() > 1e-6);
    }
  }

  // Padded keys get no weight and no decay: the loop that skips them, and the real tokens of a
  // padded sequence == the same sequence without its pads.
  void paddedKeysAreTransparent() {
    torch::manual_seed(46);
    auto layer = layerFor();
    torch::NoGradGuard no_grad;
    const int64_t T = 21;
    auto x = torch::randn({2, T, 12}, kF64);
    auto pad = torch::zeros({2, T}, torch::kBool);
    pad[0][0] = true;  // row 0 has no key at all
    pad[0][4] = true;
    pad[0][17] = true;
    pad[1][20] = true;
    const auto got = layer.forward(x, pad);
    QVERIFY(allFinite(got));
    const auto lit = literalGla(layer, x, pad);
    QVERIFY(test::checkClose(got, lit.y, 1e-10, "padded vs loop"));
    std::vector<int64_t> real;
    for (int64_t t = 0; t < T; ++t)
      if (!pad[0][t].item<bool>()) real.push_back(t);
    auto index = torch::tensor(real, torch::kLong);
    const auto alone = layer.forward(x.narrow(0, 0, 1).index_select(1, index));
    QVERIFY(test::checkClose(got.narrow(0, 0, 1).index_select(1, index), alone, 1e-10,
                             "padded batch vs the sequence alone"));
    // The pads change something (else the test above proves nothing).
    QVERIFY((got - layer.forward(x)).abs().max().item<double>() > 1e-6);
  }

  // W · V == o (the output before GroupNorm and the gate), W as the loop builds it; the record of
  // an inspected model call carries the sample's W per head and its decay per token, in (0, 1].
  void inspectedMatrixReproducesTheOutput() {
    torch::manual_seed(48);
    auto layer = layerFor();
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 23, 12}, kF64);
    auto [q, k, v, log_alpha] = layer.project(x);
    const auto W = glaAttentionMatrix(q, k, log_alpha);  // (B, H, T, T)
    const auto lit = literalGla(layer, x);
    QVERIFY(test::checkClose(W, lit.W, 1e-12, "W vs loop"));
    QVERIFY(test::checkClose(torch::matmul(W, v), glaChunked(q, k, v, log_alpha), 1e-10, "W V"));
    QVERIFY(torch::equal(W.triu(1), torch::zeros_like(W)));  // causal

    TransformerModelImpl net(glaOptions(), ModelIO{3, 0, 2, false});
    net.to(torch::kFloat64);
    const int64_t T = 9;
    auto xs = torch::randn({3, T, 3}, kF64);
    InspectionRecord record;
    record.sample = 1;
    QVERIFY(test::checkClose(net.forward(xs, &record), net.forward(xs), 0.0, "inspected vs plain"));
    QCOMPARE(record.layers.size(), size_t{2});
    auto p = net.named_parameters();
    auto h0 = torch::matmul(xs, p["input_proj.weight"].t()) + p["input_proj.bias"];  // no PE
    auto& attn = dynamic_cast<GatedLinearAttentionImpl&>(*net.blocks()[0]->attention());
    auto ln = net.blocks()[0]->named_modules()["ln1"]->as<torch::nn::LayerNorm>();
    QVERIFY(ln != nullptr);
    const auto expected = literalGla(attn, ln->forward(h0));
    auto [q0, k0, v0, la0] = attn.project(ln->forward(h0));
    const auto decay = la0.mean(-1).exp();  // (B, H, T)
    for (int64_t h = 0; h < 4; ++h) {
      const auto& head = record.layers[0].heads[static_cast<size_t>(h)];
      QCOMPARE(head.attention.rows, T);
      QCOMPARE(head.attention.cols, T);
      auto got = torch::tensor(head.attention.values, torch::kFloat64).view({T, T});
      QVERIFY(test::checkClose(got, expected.W[1][h], 1e-6, "record W"));
      QCOMPARE(head.decay.size(), static_cast<size_t>(T));
      for (int64_t t = 0; t < T; ++t) {
        const double d = head.decay[static_cast<size_t>(t)];
        QVERIFY(d > 0 && d <= 1);
        QVERIFY(std::abs(d - decay[1][h][t].item<double>()) < 1e-6);
      }
    }
  }
};

RSALAB_TEST_MAIN(TestGla)
#include "test_gla.moc"
