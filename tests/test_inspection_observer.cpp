// SPDX-License-Identifier: GPL-3.0-or-later
// Inspection through one observer per call (engine/models/inspection_observer.h): what each
// model's inspected forward writes into the InspectionRecord, checked against the quantities it
// stands for, and the inspected forward's output against the uninspected (fast) one.
#include <cmath>
#include <string>

#include "engine/models/model_factory.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

ModelOptions options(const std::string& model, bool causal) {
  ModelOptions o;
  o.model = model;
  o.d_model = 8;
  o.heads = 4;
  o.layers = 2;
  o.causal = causal;
  o.rem = defaultRemHeads(o.heads);  // three REM heads and a plain one
  return o;
}

ModelIO io() {
  ModelIO io;
  io.input_dim = 3;
  io.output_dim = 2;
  return io;
}

torch::Tensor tensorOf(const Matrix& m) {
  return torch::tensor(m.values, torch::kFloat32).view({m.rows, m.cols});
}

}  // namespace

class TestInspectionObserver : public QObject {
  Q_OBJECT

 private slots:
  void rsaRecordsSoftmaxRemAndTheirGatedMix_data() {
    QTest::addColumn<bool>("causal");
    QTest::newRow("causal") << true;
    QTest::newRow("bidirectional") << false;
  }
  // Per layer, H heads; REM heads hold the softmax part, the REM and σ(µ), and their attention
  // is the gated mix (1 − σ(µ))·softmax + σ(µ)·P; the plain head holds softmax weights only.
  // The record is batch element record.sample's, the same as that element run alone.
  void rsaRecordsSoftmaxRemAndTheirGatedMix() {
    QFETCH(bool, causal);
    torch::manual_seed(5);
    auto model = makeSequenceModel(options("rsa", causal), io());
    model->to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    const int64_t T = 7;
    auto x = torch::randn({3, T, 3}, torch::TensorOptions().dtype(torch::kFloat64));
    InspectionRecord record;
    record.sample = 2;
    auto y = model->forward(x, &record);
    QVERIFY(test::checkClose(y, model->forward(x), 1e-10, "inspected vs fast forward"));
    InspectionRecord alone;
    model->forward(x.narrow(0, 2, 1), &alone);
    QCOMPARE(record.model, std::string("rsa"));
    QCOMPARE(record.layers.size(), size_t{2});
    for (size_t l = 0; l < record.layers.size(); ++l) {
      const auto& heads = record.layers[l].heads;
      QCOMPARE(heads.size(), size_t{4});
      for (size_t h = 0; h < heads.size(); ++h) {
        const std::string what = "layer " + std::to_string(l) + " head " + std::to_string(h);
        const auto& head = heads[h];
        QCOMPARE(head.has_rem, h < 3);
        auto A = tensorOf(head.attention);
        QVERIFY(A.sizes() == torch::IntArrayRef({T, T}));
        QVERIFY(test::checkClose(A, tensorOf(alone.layers[l].heads[h].attention), 1e-5,
                                 what + " sample 2 vs alone"));
        if (!head.has_rem) {
          QVERIFY(test::checkClose(A.sum(-1), torch::ones({T}), 1e-5, what + " rows"));
          continue;
        }
        auto S = tensorOf(head.softmax_part), P = tensorOf(head.rem);
        QVERIFY(test::checkClose(S.sum(-1), torch::ones({T}), 1e-5, what + " softmax rows"));
        QVERIFY(test::checkClose(A, (1 - head.gate) * S + head.gate * P, 1e-6, what + " mix"));
        QVERIFY(test::checkClose(P.diagonal(), torch::zeros({T}), 0, what + " REM diagonal"));
        if (causal) QVERIFY(test::checkClose(P.triu(1), torch::zeros({T, T}), 0, what));
        QVERIFY(head.gate > 0 && head.gate < 1);
        QVERIFY(head.rem_kind == (h == 0   ? RemKind::Regular
                                  : h == 1 ? RemKind::Cos
                                           : RemKind::Sin));
        QVERIFY(h == 0 ? std::abs(head.lambda) < 1 : head.gamma > 0 && head.gamma < 1);
      }
    }
  }

  // Softmax, linear attention and StarSaber: every layer's heads hold T × T weights whose rows
  // sum to 1 (linear: the row-normalised φ(Q)φ(K)ᵀ); StarSaber also its α and residuals.
  void attentionModelsFillEveryHead() {
    for (const char* name : {"transformer", "linear", "starsaber"}) {
      torch::manual_seed(6);
      auto model = makeSequenceModel(options(name, /*causal=*/true), io());
      torch::NoGradGuard no_grad;
      const int64_t T = 6;
      auto x = torch::randn({2, T, 3});
      InspectionRecord record;
      record.sample = 1;
      auto y = model->forward(x, &record);
      QVERIFY(test::checkClose(y, model->forward(x), 1e-5, std::string(name) + " output"));
      QCOMPARE(record.model, std::string(name));
      QCOMPARE(record.layers.size(), size_t{2});
      for (const auto& layer : record.layers) {
        QCOMPARE(layer.heads.size(), size_t{4});
        for (const auto& head : layer.heads) {
          auto A = tensorOf(head.attention);
          QVERIFY(test::checkClose(A.sum(-1), torch::ones({T}), 1e-4, name));
          QVERIFY(
              test::checkClose(A.triu(1), torch::zeros({T, T}), 0, std::string(name) + " causal"));
          QVERIFY(!head.has_rem);
        }
        QCOMPARE(layer.has_alpha, std::string(name) == "starsaber");
        if (layer.has_alpha) QVERIFY(layer.residual > 0 && layer.equation_residual > 0);
      }
      // StarSaber's last layer (only) carries the distance to its own map's fixed point.
      const bool starsaber = std::string(name) == "starsaber";
      QCOMPARE(record.layers.front().fixed_point_iterations, int64_t{0});
      QCOMPARE(record.layers.back().fixed_point_iterations > 0, starsaber);
      if (starsaber) QVERIFY(std::isfinite(record.layers.back().fixed_point_distance));
    }
  }

  // The encoder–decoder: encoder layers in `layers`, decoder layers in `decoder_layers`, each
  // decoder layer with its causal self-attention heads and its Tt × Ts cross-attention maps.
  void encoderDecoderFillsBothStacks() {
    torch::manual_seed(7);
    auto o = options("encdec", /*causal=*/true);
    o.decoder_layers = 3;
    auto net = makeEncoderDecoder(o, 10, 12);
    torch::NoGradGuard no_grad;
    const int64_t Ts = 5, Tt = 4;
    auto source = torch::randint(0, 10, {2, Ts}, torch::kInt64);
    auto target = torch::randint(0, 12, {2, Tt}, torch::kInt64);
    InspectionRecord record;
    record.sample = 1;
    auto y = net->forward(source, target, &record);
    QVERIFY(test::checkClose(y, net->forward(source, target), 1e-5, "output"));
    QCOMPARE(record.model, std::string("encdec"));
    QCOMPARE(record.layers.size(), size_t{2});
    QCOMPARE(record.decoder_layers.size(), size_t{3});
    for (const auto& layer : record.layers) {
      QCOMPARE(layer.heads.size(), size_t{4});
      QCOMPARE(layer.heads[0].attention.rows, Ts);
      QVERIFY(layer.cross_attention.empty());
    }
    for (const auto& layer : record.decoder_layers) {
      QCOMPARE(layer.heads.size(), size_t{4});
      QCOMPARE(layer.cross_attention.size(), size_t{4});
      for (const auto& map : layer.cross_attention) {
        QCOMPARE(map.rows, Tt);
        QCOMPARE(map.cols, Ts);
        QVERIFY(test::checkClose(tensorOf(map).sum(-1), torch::ones({Tt}), 1e-5, "cross rows"));
      }
    }
  }

  // LSTM: the gates i, f, g, o of every layer, T × units, from the observer's one call per
  // layer.
  void recurrentModelsRecordTheirGates() {
    torch::manual_seed(8);
    auto model = makeSequenceModel(options("lstm", /*causal=*/true), io());
    torch::NoGradGuard no_grad;
    InspectionRecord record;
    record.sample = 1;
    model->forward(torch::randn({2, 9, 3}), &record);
    QCOMPARE(record.gates.size(), size_t{8});
    for (size_t k = 0; k < record.gates.size(); ++k) {
      QCOMPARE(record.gates[k].layer, static_cast<int64_t>(k / 4));
      QCOMPARE(record.gates[k].gate, std::string(1, "ifgo"[k % 4]));
      QCOMPARE(record.gates[k].values.rows, int64_t{9});
      QCOMPARE(record.gates[k].values.cols, int64_t{8});
    }
  }
};

RSALAB_TEST_MAIN(TestInspectionObserver)
#include "test_inspection_observer.moc"
