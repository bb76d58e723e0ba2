// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-scale retention (engine/models/retention.h; RetNet, arXiv 2307.08621): the parallel form,
// the recurrent form (step) and a literal loop over n and m ≤ n written from the paper's
// equations agree in float64, with and without rotation, with fixed and learnable decays; the
// inspection record carries R̃ and γ_h = 1 − 2^(−5−h); and RetNet trains on the causal tasks.
// (Parallel vs recurrent and the learnable decay's gradient against central differences: the
// self-test's linear-forms/retnet and gradients/retnet-decay, tests/test_selftest.cpp.)
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/registry/task_registry.h"
#include "engine/models/retention.h"
#include "engine/models/transformer.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

const auto kF64 = torch::TensorOptions().dtype(torch::kFloat64);

// The layer's output by loops over b, h, n and m ≤ n, from its weights: the paper's Eq. 4–5 (with
// q_n e^{inθ}, k_m e^{imθ} as 2-D rotations when `rotation`), the score normalisation (D̃, R/√Dh,
// R̃), GroupNorm per head (biased variance, the module's eps), then W_O(swish(x W_G) ⊙ ·).
// key_padding (B, T), optional: true keys are left out. `weights`, when given, gets R̃.
torch::Tensor literalRetention(RetentionImpl& layer, const torch::Tensor& x, bool rotation,
                               const torch::Tensor& key_padding = {},
                               torch::Tensor* weights = nullptr) {
  torch::NoGradGuard no_grad;
  const int64_t B = x.size(0), T = x.size(1), D = x.size(2), H = layer.heads(), Dh = D / H;
  std::map<std::string, torch::Tensor> p;
  for (const auto& item : layer.named_parameters()) p[item.key()] = item.value();
  auto qkv = torch::matmul(x, p.at("qkv.weight").t()) + p.at("qkv.bias");  // (B, T, 3D)
  auto q = qkv.narrow(2, 0, D).contiguous(), k = qkv.narrow(2, D, D).contiguous(),
       v = qkv.narrow(2, 2 * D, D).contiguous();
  auto qa = q.accessor<double, 3>(), ka = k.accessor<double, 3>(), va = v.accessor<double, 3>();
  std::vector<double> gamma(static_cast<size_t>(H));
  for (int64_t h = 0; h < H; ++h) {
    gamma[h] = p.count("decay_logit")
                   ? 1.0 / (1.0 + std::exp(-p.at("decay_logit")[h].item<double>()))
                   : 1.0 - std::pow(2.0, -5.0 - static_cast<double>(h));
  }
  // Channel c of head h of row r at position t, rotated by t·θ_i when `rotation`.
  auto rotated = [&](const torch::TensorAccessor<double, 3>& a, int64_t b, int64_t t, int64_t h,
                     int64_t c) {
    const double x0 = a[b][t][h * Dh + c];
    if (!rotation) return x0;
    const int64_t i = c / 2;
    const double angle =
        static_cast<double>(t) * std::pow(10000.0, -2.0 * static_cast<double>(i) / Dh);
    const double a0 = a[b][t][h * Dh + 2 * i], a1 = a[b][t][h * Dh + 2 * i + 1];
    return c % 2 == 0 ? a0 * std::cos(angle) - a1 * std::sin(angle)
                      : a0 * std::sin(angle) + a1 * std::cos(angle);
  };
  auto padded = [&](int64_t b, int64_t m) {
    return key_padding.defined() && key_padding[b][m].item<bool>();
  };
  auto y = torch::zeros({B, T, D}, kF64);
  if (weights) *weights = torch::zeros({B, H, T, T}, kF64);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t n = 0; n < T; ++n) {
        double decay_sum = 0;  // Σ_m D_nm
        for (int64_t m = 0; m <= n; ++m)
          if (!padded(b, m)) decay_sum += std::pow(gamma[h], static_cast<double>(n - m));
        std::vector<double> r(static_cast<size_t>(n + 1), 0.0);
        double row_sum = 0;
        for (int64_t m = 0; m <= n; ++m) {
          if (padded(b, m)) continue;
          double dot = 0;
          for (int64_t c = 0; c < Dh; ++c) dot += rotated(qa, b, n, h, c) * rotated(ka, b, m, h, c);
          r[m] = dot / std::sqrt(static_cast<double>(Dh)) *
                 std::pow(gamma[h], static_cast<double>(n - m)) / std::sqrt(decay_sum);
          row_sum += r[m];
        }
        const double den = std::max(std::abs(row_sum), 1.0);
        for (int64_t m = 0; m <= n; ++m) {
          if (weights) (*weights)[b][h][n][m] = r[m] / den;
          for (int64_t c = 0; c < Dh; ++c) y[b][n][h * Dh + c] += r[m] / den * va[b][m][h * Dh + c];
        }
      }
  // GroupNorm: one group per head over its Dh channels, at each position.
  const double eps = layer.groupNorm()->options.eps();
  auto normed = torch::zeros_like(y);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < T; ++n)
      for (int64_t h = 0; h < H; ++h) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < Dh; ++c) mean += y[b][n][h * Dh + c].item<double>() / Dh;
        for (int64_t c = 0; c < Dh; ++c) {
          const double d = y[b][n][h * Dh + c].item<double>() - mean;
          var += d * d / Dh;
        }
        for (int64_t c = 0; c < Dh; ++c) {
          const int64_t j = h * Dh + c;
          normed[b][n][j] = (y[b][n][j].item<double>() - mean) / std::sqrt(var + eps) *
                                p.at("norm.weight")[j].item<double>() +
                            p.at("norm.bias")[j].item<double>();
        }
      }
  auto g = torch::matmul(x, p.at("gate.weight").t()) + p.at("gate.bias");  // (B, T, D)
  auto gated = g * torch::sigmoid(g) * normed;                             // swish
  return torch::matmul(gated, p.at("out.weight").t()) + p.at("out.bias");  // (B, T, D)
}

RetentionImpl layerFor(bool learnable, bool rotation) {
  RetentionImpl layer(/*d_model=*/12, /*heads=*/3, learnable, rotation);
  layer.to(torch::kFloat64);
  torch::NoGradGuard no_grad;
  if (learnable) layer.decay_logit.copy_(torch::tensor({0.3, 2.0, 4.5}, kF64));  // off the init
  // A non-trivial GroupNorm affine, so that its parameters are checked too.
  layer.groupNorm()->weight.normal_(1.0, 0.3);
  layer.groupNorm()->bias.normal_(0.0, 0.3);
  return layer;
}

ModelOptions retnetOptions(bool learnable, bool rotation) {
  ModelOptions o;
  o.model = "retnet";
  o.d_model = 16;
  o.heads = 4;
  o.layers = 2;
  o.retnet_learnable_decay = learnable;
  o.retnet_rotation = rotation;
  return o;
}

void addFormRows() {
  QTest::addColumn<bool>("learnable");
  QTest::addColumn<bool>("rotation");
  for (bool learnable : {false, true})
    for (bool rotation : {false, true})
      QTest::newRow(qPrintable(QString("%1/%2").arg(learnable ? "learnable" : "fixed",
                                                    rotation ? "rotation" : "no-rotation")))
          << learnable << rotation;
}

}  // namespace

class TestRetention : public QObject {
  Q_OBJECT
 private slots:
  void defaultDecaysAreThePapers() {
    const auto gamma = retentionDefaultDecays(4);
    for (int64_t h = 0; h < 4; ++h)
      QCOMPARE(gamma[h].item<double>(), 1.0 - std::pow(2.0, -5.0 - static_cast<double>(h)));
    // The learnable parametrisation starts there, and σ keeps it in (0, 1).
    RetentionImpl layer(8, 4, /*learnable_decay=*/true, /*rotation=*/false);
    QVERIFY(test::checkClose(layer.decays(), gamma, 1e-7, "sigma(nu) at init"));
  }

  // Parallel form == recurrent form (step after step) == the literal loop, to 1e-10 in float64.
  void parallelRecurrentAndLoopAgree_data() { addFormRows(); }
  void parallelRecurrentAndLoopAgree() {
    QFETCH(bool, learnable);
    QFETCH(bool, rotation);
    torch::manual_seed(31);
    auto layer = layerFor(learnable, rotation);
    torch::NoGradGuard no_grad;
    const int64_t B = 2, T = 19;
    auto x = torch::randn({B, T, 12}, kF64);
    const auto parallel = layer.forward(x);  // (B, T, D)
    torch::Tensor loop_weights;
    const auto loop = literalRetention(layer, x, rotation, {}, &loop_weights);
    QVERIFY(test::checkClose(parallel, loop, 1e-10, "parallel vs loop"));
    AttentionState state;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t) steps.push_back(layer.step(x.narrow(1, t, 1), state));
    QVERIFY(test::checkClose(torch::cat(steps, 1), loop, 1e-10, "recurrent vs loop"));
    QCOMPARE(state.length, T);
    QCOMPARE(state.S.size(-1), int64_t{4});  // O(1) state: (B, H, Dh, Dh), whatever T
    // R̃ of the parallel form against the loop's.
    torch::Tensor q, k, v;
    {
      auto qkv = torch::matmul(x, layer.named_parameters()["qkv.weight"].t()) +
                 layer.named_parameters()["qkv.bias"];
      auto split = [&](int64_t i) {
        return qkv.narrow(2, 12 * i, 12).view({B, T, 3, 4}).transpose(1, 2);  // (B, H, T, Dh)
      };
      q = split(0), k = split(1), v = split(2);
    }
    if (rotation) q = retentionRotate(q, 0), k = retentionRotate(k, 0);
    torch::Tensor weights;
    retentionParallel(q, k, v, layer.logDecays(), {}, &weights);
    QVERIFY(test::checkClose(weights, loop_weights, 1e-12, "R~ vs loop"));
  }

  // Padded keys are left out of every sum (D_nm = 0), as the loop that skips them.
  void paddedKeysAreLeftOut() {
    torch::manual_seed(32);
    auto layer = layerFor(/*learnable=*/false, /*rotation=*/true);
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 9, 12}, kF64);
    auto pad = torch::zeros({2, 9}, torch::kBool);
    pad[0][0] = true;  // the first key of sample 0: row 0 has no key at all
    pad[0][4] = true;
    pad[1][7] = true;
    const auto got = layer.forward(x, pad);
    QVERIFY(torch::isfinite(got).all().item<bool>());
    QVERIFY(test::checkClose(got, literalRetention(layer, x, true, pad), 1e-10, "padded"));
  }

  // The model: step() from position 0 equals forward() on every prefix, tokens and features.
  void generationStepsEqualForward_data() { addFormRows(); }
  void generationStepsEqualForward() {
    QFETCH(bool, learnable);
    QFETCH(bool, rotation);
    torch::manual_seed(33);
    TransformerModelImpl net(retnetOptions(learnable, rotation), ModelIO{3, 0, 2, false});
    net.to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    const int64_t T = 21;
    auto x = torch::randn({2, T, 3}, kF64);
    const auto full = net.forward(x);
    GenerationState state;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t) steps.push_back(net.step(x.narrow(1, t, 1), state));
    QVERIFY(test::checkClose(torch::cat(steps, 1), full, 1e-10, "model step vs forward"));
  }

  // No positional encoding (the row says so): the model is input_proj, the blocks, ln_f and the
  // output, with nothing added to the projection; the Transformer's sinusoidal PE would be.
  void noPositionalEncoding() {
    QVERIFY(modelInfo("retnet").has(NoPositionalEncoding));
    QVERIFY(!modelInfo("transformer").has(NoPositionalEncoding));
    torch::manual_seed(34);
    for (const char* model : {"retnet", "transformer"}) {
      ModelOptions o = retnetOptions(false, false);
      o.model = model;
      TransformerModelImpl net(o, ModelIO{3, 0, 2, false});
      net.to(torch::kFloat64);
      torch::NoGradGuard no_grad;
      auto x = torch::randn({2, 8, 3}, kF64);
      auto p = net.named_parameters();
      auto h = torch::matmul(x, p["input_proj.weight"].t()) + p["input_proj.bias"];  // no PE
      for (auto block : net.blocks()) h = block->forward(h);
      h = torch::layer_norm(h, {16}, p["ln_f.weight"], p["ln_f.bias"]);
      const auto without_pe = torch::matmul(h, p["output.weight"].t()) + p["output.bias"];
      const bool same = test::checkClose(net.forward(x), without_pe, 1e-12, model);
      QVERIFY2(same == (std::string(model) == "retnet"), model);
    }
  }

  // The inspection record: per layer and head, R̃ (the matrix applied to V) and γ_h.
  void inspectionCarriesTheNormalisedMatrixAndDecays() {
    torch::manual_seed(36);
    TransformerModelImpl net(retnetOptions(false, true), ModelIO{3, 0, 2, false});
    net.to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    const int64_t T = 6;
    auto x = torch::randn({3, T, 3}, kF64);
    InspectionRecord record;
    record.sample = 1;
    const auto inspected = net.forward(x, &record);
    QVERIFY(test::checkClose(inspected, net.forward(x), 0.0, "inspected vs plain forward"));
    QCOMPARE(record.layers.size(), size_t{2});
    // Layer 0's input is the input projection (no PE): R̃ recomputed from it.
    auto p = net.named_parameters();
    auto h0 = torch::matmul(x, p["input_proj.weight"].t()) + p["input_proj.bias"];
    auto& attn = dynamic_cast<RetentionImpl&>(*net.blocks()[0]->attention());
    auto ln = net.blocks()[0]->named_modules()["ln1"]->as<torch::nn::LayerNorm>();
    QVERIFY(ln != nullptr);
    torch::Tensor expected;
    literalRetention(attn, ln->forward(h0), /*rotation=*/true, {}, &expected);
    for (int64_t h = 0; h < 4; ++h) {
      const auto& head = record.layers[0].heads[static_cast<size_t>(h)];
      QCOMPARE(head.attention.rows, T);
      QCOMPARE(head.attention.cols, T);
      auto got = torch::tensor(head.attention.values, torch::kFloat64).view({T, T});
      QVERIFY(test::checkClose(got, expected[1][h], 1e-6, "record R~"));
      QVERIFY(torch::equal(got.triu(1), torch::zeros({T, T}, kF64)));  // causal
      QCOMPARE(head.decay.size(), size_t{1});
      QCOMPARE(head.decay[0], static_cast<float>(1.0 - std::pow(2.0, -5.0 - h)));
    }
  }

  // RetNet trains on every causal task RSA trains on (each objective but seq2seq): a few steps
  // lower the training loss, and the validation loss is finite.
  void trainsOnTheCausalTasks() {
    int trained = 0;
    for (const auto& task : taskRegistry()) {
      if (task.objective == Objective::Seq2Seq || task.family == TaskFamily::Csv) continue;
      if (!modelFitsObjective(modelInfo("retnet"), task.objective)) continue;
      RunConfig c;
      c.task.name = task.name;
      c.task.length = 24;
      c.task.validation_size = 16;
      c.task.test_size = 16;
      c.model = retnetOptions(false, false);
      c.train_size = 64;
      c.trainer.batch_size = 16;
      c.trainer.learning_rate = 3e-3;
      c.trainer.seed = 7;
      const QString where = QString::fromUtf8(task.name);
      try {
        validate(c);
      } catch (const std::invalid_argument& e) {
        QFAIL(qPrintable(where + ": " + e.what()));
      }
      Trainer trainer(c);
      double first = 0, last = 0;
      const int steps = 30;
      for (int i = 0; i < steps; ++i) {
        const double loss = trainer.step().train_loss;
        QVERIFY2(std::isfinite(loss), qPrintable(where));
        if (i < 3) first += loss / 3;
        if (i >= steps - 3) last += loss / 3;
      }
      qInfo("%s: train loss %.4f -> %.4f", task.name, first, last);
      QVERIFY2(last < first, qPrintable(where + QString(": loss %1 -> %2").arg(first).arg(last)));
      QVERIFY2(std::isfinite(trainer.evaluate("validation").loss), qPrintable(where));
      ++trained;
    }
    QVERIFY(trained >= 5);
  }
};

RSALAB_TEST_MAIN(TestRetention)
#include "test_retention.moc"
