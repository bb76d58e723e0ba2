// SPDX-License-Identifier: GPL-3.0-or-later
// Mamba-2 (engine/models/mamba2.h): the SSD scan's full T × T form against a literal loop of
// explicit products ∏ a_k and sums; the generation state's shapes; the decay mask of a constant
// a_t (RetNet's γ^(i−j)); the inspection record; and training on the causal tasks. The scan's
// chunked algorithm and recurrence against the T × T form, the layer's two training paths and the
// gradients of A_log, dt_bias and D against central differences are the model's own self-test
// checks (engine/models/mamba2_checks.cpp), run here too; step() against forward() is the
// self-test's kv-cache row (tests/test_selftest.cpp).
#include <cmath>
#include <map>

#include "engine/core/config/flops.h"
#include "engine/models/mamba2.h"
#include "engine/models/model_factory.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

const auto kF64 = torch::TensorOptions().dtype(torch::kFloat64);

// Random SSD inputs in float64: Δ = softplus(·) > 0, A < 0, so a_t ∈ (0, 1).
SsdInputs randomInputs(int64_t B, int64_t H, int64_t T, int64_t P, int64_t N) {
  SsdInputs in;
  in.x = torch::randn({B, H, T, P}, kF64);
  in.dt = torch::softplus(torch::randn({B, H, T}, kF64));
  in.A = -torch::exp(torch::randn({H}, kF64));
  in.Bm = torch::randn({B, T, N}, kF64);
  in.Cm = torch::randn({B, T, N}, kF64);
  return in;
}

// y[b, h, i, p] = Σ_{j ≤ i} (∏_{k = j+1..i} a_k) (Σ_n C[i, n] B[j, n]) Δ_j x[j, p], written out.
torch::Tensor literalLoop(const SsdInputs& in) {
  const int64_t B = in.x.size(0), H = in.x.size(1), T = in.x.size(2), P = in.x.size(3),
                N = in.Bm.size(2);
  auto x = in.x.accessor<double, 4>();
  auto dt = in.dt.accessor<double, 3>();
  auto A = in.A.accessor<double, 1>();
  auto Bm = in.Bm.accessor<double, 3>();
  auto Cm = in.Cm.accessor<double, 3>();
  auto y = torch::zeros({B, H, T, P}, kF64);
  auto ya = y.accessor<double, 4>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j <= i; ++j) {
          double decay = 1;
          for (int64_t k = j + 1; k <= i; ++k) decay *= std::exp(dt[b][h][k] * A[h]);
          double cb = 0;
          for (int64_t n = 0; n < N; ++n) cb += Cm[b][i][n] * Bm[b][j][n];
          for (int64_t p = 0; p < P; ++p)
            ya[b][h][i][p] += decay * cb * dt[b][h][j] * x[b][h][j][p];
        }
  return y;
}

ModelOptions smallOptions(int64_t layers = 2) {
  ModelOptions o;
  o.model = "mamba2";
  o.d_model = 8;
  o.heads = 2;
  o.layers = layers;
  return o;
}

std::shared_ptr<Mamba2ModelImpl> smallModel(const ModelIO& io, int64_t layers = 2) {
  auto net =
      std::dynamic_pointer_cast<Mamba2ModelImpl>(makeSequenceModel(smallOptions(layers), io));
  net->to(torch::kFloat64);
  return net;
}

std::map<std::string, torch::Tensor> parametersOf(const torch::nn::Module& net) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& p : net.named_parameters()) out[p.key()] = p.value();
  return out;
}

}  // namespace

class TestMamba2 : public QObject {
  Q_OBJECT
 private slots:
  // The segment sum of log-decays: [i, j] = s_{j+1} + … + s_i below the diagonal, 0 on it, −inf
  // above, i.e. cumsum(s)_i − cumsum(s)_j where that is defined.
  void segmentSumIsTheDifferenceOfCumulativeSums() {
    torch::manual_seed(1);
    auto s = -torch::rand({3, 9}, kF64);
    auto seg = segmentSum(s);
    auto cs = s.cumsum(-1);
    auto expected = cs.unsqueeze(-1) - cs.unsqueeze(-2);  // (3, 9, 9)
    auto lower = torch::ones({9, 9}, torch::kBool).tril();
    QVERIFY(test::checkClose(seg.masked_select(lower.expand({3, 9, 9})),
                             expected.masked_select(lower.expand({3, 9, 9})), 1e-12, "segsum"));
    QVERIFY(seg.masked_select(lower.logical_not().expand({3, 9, 9})).isneginf().all().item<bool>());
    QVERIFY(torch::diagonal(seg, 0, -2, -1).abs().max().item<double>() == 0.0);
  }

  // The full T × T form equals the literal loop.
  void quadraticFormMatchesALiteralLoop() {
    torch::manual_seed(2);
    const auto in = randomInputs(2, 3, 37, 4, 5);
    QVERIFY(test::checkClose(ssdQuadratic(in), literalLoop(in), 1e-10, "quadratic"));
  }

  // The model's own self-test checks: the recurrence, the chunked algorithm (chunks that divide T,
  // that do not, of 1 and of more than T), its final state and a resumed recurrence against the
  // T × T form, and the model's two training paths (linear-forms); the decays' gradients against
  // central differences (gradients).
  void ownSelfTestChecksPass_data() {
    QTest::addColumn<QString>("group");
    QTest::newRow("linear-forms") << QString("linear-forms");
    QTest::newRow("gradients") << QString("gradients");
  }
  void ownSelfTestChecksPass() {
    QFETCH(QString, group);
    std::string failures;
    QVERIFY(test::runModelChecks("mamba2", group.toStdString(), failures) > 0);
    QVERIFY2(failures.empty(), failures.c_str());
  }

  // With a_t = γ_h at every step (Δ_t = δ_h, A_h = log(γ_h)/δ_h), M is RetNet's decay mask:
  // M_ij = γ_h^(i−j)·(C_i·B_j)·δ_h for i ≥ j and 0 above the diagonal.
  void constantDecayGivesTheRetNetMask() {
    torch::manual_seed(3);
    const int64_t B = 2, H = 3, T = 12;
    auto in = randomInputs(B, H, T, 2, 4);
    const auto gamma = torch::tensor({0.5, 0.9, 0.99}, kF64),
               delta = torch::tensor({0.3, 1.0, 2.5}, kF64);
    in.dt = delta.view({1, H, 1}).expand({B, H, T}).clone();
    in.A = torch::log(gamma) / delta;
    auto M = ssdMatrix(in);  // (B, H, T, T)
    QVERIFY(test::checkClose(Mamba2LayerImpl::decays(in), gamma.view({1, H, 1}).expand({B, H, T}),
                             1e-14, "a_t"));
    auto i = torch::arange(T, kF64).view({T, 1}), j = torch::arange(T, kF64).view({1, T});
    auto lag = (i - j).clamp_min(0);
    auto mask = torch::pow(gamma.view({H, 1, 1}), lag) * (i >= j).to(torch::kFloat64);  // (H,T,T)
    auto CB = torch::matmul(in.Cm, in.Bm.transpose(1, 2)).unsqueeze(1);                 // (B,1,T,T)
    QVERIFY(test::checkClose(M, mask * CB * delta.view({1, H, 1, 1}), 1e-12, "M"));
  }

  // The inspected path (the full T × T form) equals the chunked training path (T = 70 spans two
  // chunks of 64).
  void layerPathsAgree() {
    torch::manual_seed(4);
    auto net = smallModel(ModelIO{3, 0, 2, false});
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 70, 3}, kF64);
    const auto chunked = net->forward(x);
    InspectionRecord record;
    QVERIFY(test::checkClose(net->forward(x, &record), chunked, 1e-10, "inspected"));
  }

  // Generation keeps a fixed-size state per layer: the conv's last K − 1 inputs and the SSM
  // state h_t (B, H, P, N), after a prompt of two and one more token.
  void stepStateHasFixedShapes() {
    torch::manual_seed(5);
    auto net = smallModel(ModelIO{3, 0, 2, false});
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 3, 3}, kF64);
    Mamba2State state;
    net->step(x.narrow(1, 0, 2), state);  // a prompt of two
    QCOMPARE(state.position, int64_t{2});
    net->step(x.narrow(1, 2, 1), state);
    QCOMPARE(state.position, int64_t{3});
    QCOMPARE(state.layers.size(), size_t{2});
    QCOMPARE(state.layers[0].conv.size(2), kMamba2ConvWidth - 1);
    QCOMPARE(state.layers[0].ssm.sizes().vec(),
             (std::vector<int64_t>{2, 2, kMamba2Expand * 8 / 2, kMamba2StateSize}));
  }

  // The record carries, per layer and head, M = L ∘ (C Bᵀ) with Δ_j folded in (the T × T implied
  // attention, rebuilt here for layer 0 from the weights) and a_t ∈ (0, 1) per position.
  void inspectionCarriesMAndDecays() {
    torch::manual_seed(7);
    const int64_t T = 9, sample = 1;
    auto net = smallModel(ModelIO{3, 0, 2, false}, 1);
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, T, 3}, kF64);
    InspectionRecord record;
    record.sample = sample;
    net->forward(x, &record);
    QCOMPARE(record.model, std::string("mamba2"));
    QCOMPARE(record.layers.size(), size_t{1});
    QCOMPARE(record.layers[0].heads.size(), size_t{2});
    // Layer 0's M from its input: RMSNorm(input_proj(x)), then the layer's projections.
    auto p = parametersOf(*net);
    auto h0 = torch::linear(x, p.at("input_proj.weight"), p.at("input_proj.bias"));
    auto u =
        h0 * torch::rsqrt(h0.pow(2).mean(-1, true) + kMamba2NormEps) * p.at("layer0.norm.weight");
    Mamba2Layer layer = net->layers()[0];
    auto in = layer->project(u, nullptr).first;
    auto M = ssdMatrix(in);                // (B, H, T, T)
    auto a = Mamba2LayerImpl::decays(in);  // (B, H, T)
    for (int64_t h = 0; h < 2; ++h) {
      const auto& head = record.layers[0].heads[h];
      QCOMPARE(head.attention.rows, T);
      QCOMPARE(head.attention.cols, T);
      auto got = torch::tensor(head.attention.values, kF64).view({T, T});
      QVERIFY(test::checkClose(got, M[sample][h], 1e-5, "M"));
      QVERIFY(got.triu(1).abs().max().item<double>() == 0.0);  // causal
      QVERIFY(got.abs().max().item<double>() > 0.0);
      QCOMPARE(head.decay.size(), size_t(T));
      for (float v : head.decay) QVERIFY2(v > 0.0f && v < 1.0f, qPrintable(QString::number(v)));
      auto decay = torch::tensor(head.decay, kF64);
      QVERIFY(test::checkClose(decay, a[sample][h], 1e-6, "a_t"));
    }
  }

  // The parameters and their shapes: what bench/peer/models.py's Mamba2 mirrors.
  void parameterNamesAndShapes() {
    auto net = smallModel(ModelIO{3, 0, 2, false}, 1);
    const int64_t D = 8, E = 16, N = kMamba2StateSize, H = 2, Cv = E + 2 * N;
    const std::map<std::string, std::vector<int64_t>> expected = {
        {"input_proj.weight", {D, 3}},
        {"input_proj.bias", {D}},
        {"output.weight", {2, D}},
        {"output.bias", {2}},
        {"layer0.norm.weight", {D}},
        {"layer0.in_proj.weight", {2 * E + 2 * N + H, D}},
        {"layer0.conv1d.weight", {Cv, 1, 4}},
        {"layer0.conv1d.bias", {Cv}},
        {"layer0.dt_bias", {H}},
        {"layer0.A_log", {H}},
        {"layer0.D", {H}},
        {"layer0.out_norm.weight", {E}},
        {"layer0.out_proj.weight", {D, E}},
        {"norm_f.weight", {D}}};
    auto p = parametersOf(*net);
    QCOMPARE(p.size(), expected.size());
    for (const auto& [name, shape] : expected) {
      QVERIFY2(p.count(name), name.c_str());
      QVERIFY2(p.at(name).sizes().vec() == shape, name.c_str());
    }
    // The initial Δ = softplus(dt_bias) in [0.001, 0.1] and −A = exp(A_log) in [1, 16].
    torch::manual_seed(8);
    Mamba2LayerImpl layer(64, 16);
    auto dt = torch::softplus(layer.dt_bias);
    QVERIFY(dt.min().item<double>() >= kMamba2DtMin * 0.999);
    QVERIFY(dt.max().item<double>() <= kMamba2DtMax * 1.001);
    auto A = torch::exp(layer.A_log);
    QVERIFY(A.min().item<double>() >= kMamba2AMin && A.max().item<double>() <= kMamba2AMax);
    // flops.h's torch-free copies of the sizes.
    QCOMPARE(kMamba2FlopsExpand, static_cast<double>(kMamba2Expand));
    QCOMPARE(kMamba2FlopsState, static_cast<double>(kMamba2StateSize));
    QCOMPARE(kMamba2FlopsConv, static_cast<double>(kMamba2ConvWidth));
    QCOMPARE(kMamba2FlopsChunk, static_cast<double>(kMamba2Chunk));
  }

  // Training on causal next-step tasks RSA trains on: the validation loss falls well below the
  // untrained model's.
  void trainsOnTheCausalTasks_data() {
    QTest::addColumn<QString>("task");
    for (const char* t : {"seasonal", "ar", "teacher", "mix"}) QTest::newRow(t) << QString(t);
  }
  void trainsOnTheCausalTasks() {
    QFETCH(QString, task);
    RunConfig c;
    c.task.name = task.toStdString();
    c.task.length = 48;
    c.task.validation_size = 64;
    c.task.test_size = 64;
    c.model.model = "mamba2";
    c.model.d_model = 16;
    c.model.heads = 4;
    c.model.layers = 2;
    c.train_size = 512;
    c.trainer.max_steps = 150;
    c.trainer.batch_size = 16;
    c.trainer.learning_rate = 3e-3;
    c.trainer.eval_every = 150;
    c.trainer.seed = 1;
    Trainer trainer(c);
    const double before = trainer.evaluate("validation").loss;
    trainer.run();
    const double after = trainer.evaluate("validation").loss;
    qInfo("mamba2 on %s: validation loss %.4f -> %.4f", qPrintable(task), before, after);
    QVERIFY2(std::isfinite(after) && after < 0.7 * before,
             qPrintable(QString("%1: %2 -> %3").arg(task).arg(before).arg(after)));
  }
};

RSALAB_TEST_MAIN(TestMamba2)
#include "test_mamba2.moc"
