// SPDX-License-Identifier: GPL-3.0-or-later
// The mLSTM mixer (engine/models/mlstm.h; xLSTM, arXiv 2405.04517): the parallel form and a literal
// loop of the paper's unstabilised recurrence (C_t = f C + i v kᵀ, n_t = f n + i k,
// h̃ = C q / max(|nᵀq|, 1)) agree in float64, also at gate pre-activations of ±30, and so does the
// stabilised recurrence there; padded keys are left out; the layer is causal; the inspection
// record's C̃ / n times V gives H̃ and its decay is f_t = σ(f̃_t) per token. The parallel form
// against the recurrence (step) and every parameter's gradient against central differences are
// the model's own self-test checks (engine/models/mlstm_checks.cpp), run here too; the model's
// step() against forward() is the self-test's kv-cache row (tests/test_selftest.cpp).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/models/mlstm.h"
#include "engine/models/transformer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

const auto kF64 = torch::TensorOptions().dtype(torch::kFloat64);

// H̃ (B, H, T, Dh) by loops over b, h and t of the recurrence as the paper writes it, without the
// stabiliser (float64 holds exp(±30) with room to spare): q, k, v (B, H, T, Dh) as projected, ĩ and
// f̃ (B, H, T). A padded key (key_padding (B, T), optional) writes nothing: C_t = f_t C_{t−1}.
// `weights`, when given, gets the matrix applied to V: coefficient_j · (q_i·k_j/√Dh) / divisor_i,
// the coefficient of v_j kᵀ_j in C_i being i_j · f_{j+1} ··· f_i.
torch::Tensor literalCell(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& ig, const torch::Tensor& fg,
                          const torch::Tensor& key_padding = {}, torch::Tensor* weights = nullptr) {
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), Dh = q.size(3);
  const auto qc = q.contiguous(), kc = k.contiguous(), vc = v.contiguous(), ic = ig.contiguous(),
             fc = fg.contiguous();
  auto qa = qc.accessor<double, 4>(), ka = kc.accessor<double, 4>(), va = vc.accessor<double, 4>();
  auto ia = ic.accessor<double, 3>(), fa = fc.accessor<double, 3>();
  const double root = std::sqrt(static_cast<double>(Dh));
  auto out = torch::zeros({B, H, T, Dh}, kF64);
  if (weights) *weights = torch::zeros({B, H, T, T}, kF64);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<double> C(static_cast<size_t>(Dh * Dh), 0.0), n(static_cast<size_t>(Dh), 0.0);
      std::vector<double> coefficient(static_cast<size_t>(T), 0.0);
      for (int64_t t = 0; t < T; ++t) {
        const double f = 1.0 / (1.0 + std::exp(-fa[b][h][t]));  // σ(f̃)
        const bool padded = key_padding.defined() && key_padding[b][t].item<bool>();
        const double i = padded ? 0.0 : std::exp(ia[b][h][t]);
        for (int64_t r = 0; r < Dh; ++r) {
          n[r] = f * n[r] + i * ka[b][h][t][r] / root;
          for (int64_t c = 0; c < Dh; ++c)
            C[r * Dh + c] = f * C[r * Dh + c] + i * va[b][h][t][r] * ka[b][h][t][c] / root;
        }
        for (int64_t j = 0; j < t; ++j) coefficient[j] *= f;
        coefficient[t] = i;
        double nq = 0;
        for (int64_t c = 0; c < Dh; ++c) nq += n[c] * qa[b][h][t][c];
        const double divisor = std::max(std::abs(nq), 1.0);
        for (int64_t r = 0; r < Dh; ++r) {
          double cq = 0;
          for (int64_t c = 0; c < Dh; ++c) cq += C[r * Dh + c] * qa[b][h][t][c];
          out[b][h][t][r] = cq / divisor;
        }
        if (weights)
          for (int64_t j = 0; j <= t; ++j) {
            double qk = 0;
            for (int64_t c = 0; c < Dh; ++c) qk += qa[b][h][t][c] * ka[b][h][j][c];
            (*weights)[b][h][t][j] = coefficient[j] * qk / root / divisor;
          }
      }
    }
  return out;
}

struct Literal {
  torch::Tensor q, k, v, ig, fg;  // (B, H, T, Dh) and (B, H, T)
  torch::Tensor cell;             // H̃ (B, H, T, Dh)
  torch::Tensor weights;          // (B, H, T, T)
  torch::Tensor out;              // the layer's output (B, T, D)
};

// The layer by loops from its weights: q, k, v and the gates by dot products, literalCell, then
// GroupNorm per head (biased variance, the module's eps), σ(W_o x) ⊙ ·, and W_O.
Literal literalMlstm(MlstmImpl& layer, const torch::Tensor& x,
                     const torch::Tensor& key_padding = {}) {
  torch::NoGradGuard no_grad;
  const int64_t B = x.size(0), T = x.size(1), D = x.size(2), H = layer.heads(), Dh = D / H;
  std::map<std::string, torch::Tensor> p;
  for (const auto& item : layer.named_parameters()) p[item.key()] = item.value();
  auto affine = [&](const std::string& name, int64_t b, int64_t t, int64_t row) {
    double s = p.at(name + ".bias")[row].item<double>();
    for (int64_t c = 0; c < D; ++c)
      s += p.at(name + ".weight")[row][c].item<double>() * x[b][t][c].item<double>();
    return s;
  };
  Literal l;
  l.q = torch::zeros({B, H, T, Dh}, kF64);
  l.k = torch::zeros_like(l.q);
  l.v = torch::zeros_like(l.q);
  l.ig = torch::zeros({B, H, T}, kF64);
  l.fg = torch::zeros_like(l.ig);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t c = 0; c < Dh; ++c) {
          l.q[b][h][t][c] = affine("qkv", b, t, h * Dh + c);
          l.k[b][h][t][c] = affine("qkv", b, t, D + h * Dh + c);
          l.v[b][h][t][c] = affine("qkv", b, t, 2 * D + h * Dh + c);
        }
        l.ig[b][h][t] = affine("input_gate", b, t, h);
        l.fg[b][h][t] = affine("forget_gate", b, t, h);
      }
  l.cell = literalCell(l.q, l.k, l.v, l.ig, l.fg, key_padding, &l.weights);
  const double eps = layer.groupNorm()->options.eps();
  auto gated = torch::zeros({B, T, D}, kF64);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < Dh; ++c) mean += l.cell[b][h][t][c].item<double>() / Dh;
        for (int64_t c = 0; c < Dh; ++c) {
          const double d = l.cell[b][h][t][c].item<double>() - mean;
          var += d * d / Dh;
        }
        for (int64_t c = 0; c < Dh; ++c) {
          const int64_t j = h * Dh + c;
          const double normed = (l.cell[b][h][t][c].item<double>() - mean) / std::sqrt(var + eps) *
                                    p.at("norm.weight")[j].item<double>() +
                                p.at("norm.bias")[j].item<double>();
          const double o = 1.0 / (1.0 + std::exp(-affine("output_gate", b, t, j)));
          gated[b][t][j] = o * normed;
        }
      }
  l.out = torch::matmul(gated, p.at("out.weight").t()) + p.at("out.bias");  // (B, T, D)
  return l;
}

// D = 12, H = 3 (Dh = 4), float64, with a non-trivial GroupNorm affine and gate weights scaled by
// `gate_scale` (large: pre-activations spread over tens).
MlstmImpl layerFor(double gate_scale = 1.0) {
  MlstmImpl layer(/*d_model=*/12, /*heads=*/3);
  layer.to(torch::kFloat64);
  torch::NoGradGuard no_grad;
  auto p = layer.named_parameters();
  p["norm.weight"].normal_(1.0, 0.3);
  p["norm.bias"].normal_(0.0, 0.3);
  p["input_gate.weight"].mul_(gate_scale);
  p["forget_gate.weight"].mul_(gate_scale);
  return layer;
}

// |a − b| ≤ tol · max|b|: for H̃, whose size follows exp(ĩ).
bool relativelyClose(const torch::Tensor& a, const torch::Tensor& b, double tol,
                     const std::string& what) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-300);
  return test::checkClose(a / scale, b / scale, tol, what);
}

ModelOptions mlstmOptions() {
  ModelOptions o;
  o.model = "mlstm";
  o.d_model = 16;
  o.heads = 4;
  o.layers = 2;
  return o;
}

// Gate pre-activations (B, H, T) for the extreme rows: every ĩ (f̃) at `i` (`f`), or where
// those are 0, ±30 by a random sign per entry.
torch::Tensor gatePattern(double value, int64_t B, int64_t H, int64_t T) {
  if (value != 0) return torch::full({B, H, T}, value, kF64);
  return 30.0 * torch::sign(torch::randn({B, H, T}, kF64));
}

}  // namespace

class TestMlstm : public QObject {
  Q_OBJECT
 private slots:
  // f = σ(b_f) starts near 1, linspace(3, 6) over the heads; b_i = 0 (mlstm.h says why).
  void gateBiasesStartAsDocumented() {
    MlstmImpl layer(16, 4);
    auto p = layer.named_parameters();
    QVERIFY(test::checkClose(p["forget_gate.bias"], torch::tensor({3.0, 4.0, 5.0, 6.0}), 1e-6,
                             "forget bias"));
    QVERIFY(torch::equal(p["input_gate.bias"], torch::zeros({4})));
    QVERIFY(p["input_gate.weight"].sizes() == torch::IntArrayRef({4, 16}));
    QVERIFY(p["output_gate.weight"].sizes() == torch::IntArrayRef({16, 16}));
    QVERIFY(layer.kind() == attentionKind("mlstm") && layer.causal());
  }

  // The model's own self-test checks: the layer's parallel form against its stabilised
  // recurrence (step after step), gate weights ×1 and ×20, and the cell at gate pre-activations of
  // ±30 (linear-forms), and every parameter's gradient against central differences (gradients).
  void ownSelfTestChecksPass_data() {
    QTest::addColumn<QString>("group");
    QTest::newRow("linear-forms") << QString("linear-forms");
    QTest::newRow("gradients") << QString("gradients");
  }
  void ownSelfTestChecksPass() {
    QFETCH(QString, group);
    std::string failures;
    QVERIFY(test::runModelChecks("mlstm", group.toStdString(), failures) > 0);
    QVERIFY2(failures.empty(), failures.c_str());
  }

  // Parallel form == the literal loop, to 1e-10 in float64: the layer's output, H̃ and C̃ / n;
  // gate weights ×1 and ×20 (ĩ, f̃ over tens); the recurrence's state (step after step: equal to
  // the parallel form by ownSelfTestChecksPass) is O(1) and its m_T is the parallel form's.
  void parallelAndLoopAgree_data() {
    QTest::addColumn<double>("gate_scale");
    QTest::newRow("init") << 1.0;
    QTest::newRow("wide-gates") << 20.0;
  }
  void parallelAndLoopAgree() {
    QFETCH(double, gate_scale);
    torch::manual_seed(41);
    auto layer = layerFor(gate_scale);
    torch::NoGradGuard no_grad;
    const int64_t B = 2, T = 19;
    auto x = torch::randn({B, T, 12}, kF64);
    const auto literal = literalMlstm(layer, x);
    const auto parallel = layer.forward(x);  // (B, T, D)
    QVERIFY(test::checkClose(parallel, literal.out, 1e-10, "parallel vs loop"));
    torch::Tensor weights;
    const auto cell =
        mlstmParallel(literal.q, literal.k, literal.v, literal.ig, literal.fg, {}, &weights);
    QVERIFY(relativelyClose(cell, literal.cell, 1e-10, "H~ vs loop"));
    QVERIFY(relativelyClose(weights, literal.weights, 1e-10, "C~/n vs loop"));
    AttentionState state;
    for (int64_t t = 0; t < T; ++t) layer.step(x.narrow(1, t, 1), state);
    QCOMPARE(state.length, T);
    // O(1) state: C (B, H, Dh, Dh), n (B, H, Dh), m (B, H), whatever T.
    QVERIFY(state.S.sizes() == torch::IntArrayRef({B, 3, 4, 4}));
    QVERIFY(state.z.sizes() == torch::IntArrayRef({B, 3, 4}));
    QVERIFY(state.stabiliser.sizes() == torch::IntArrayRef({B, 3}));
    // The recurrence's m_T is the parallel form's last row maximum max_j log D_Tj.
    auto log_d = mlstmLogDecayMatrix(torch::log_sigmoid(literal.fg), literal.ig);
    auto row_max = std::get<0>(log_d.select(2, T - 1).max(-1));  // (B, H)
    QVERIFY(test::checkClose(state.stabiliser, row_max, 1e-10, "m_T"));
  }

  // Extreme gate pre-activations (ĩ, f̃ = ±30, and ±30 by random signs): the parallel and the
  // stabilised recurrent forms stay finite and equal the unstabilised float64 loop to 1e-10 of
  // H̃'s size; in float32 they stay finite even at ĩ = ±100, where exp(ĩ) overflows.
  void extremeGatesStayFinite_data() {
    QTest::addColumn<double>("i");
    QTest::addColumn<double>("f");
    for (double i : {30.0, -30.0, 0.0})
      for (double f : {30.0, -30.0, 0.0})
        QTest::newRow(qPrintable(QString("i%1/f%2")
                                     .arg(i == 0 ? QString("±30") : QString::number(i))
                                     .arg(f == 0 ? QString("±30") : QString::number(f))))
            << i << f;
  }
  void extremeGatesStayFinite() {
    QFETCH(double, i);
    QFETCH(double, f);
    torch::manual_seed(42);
    const int64_t B = 2, H = 2, T = 17, Dh = 4;
    auto q = torch::randn({B, H, T, Dh}, kF64), k = torch::randn({B, H, T, Dh}, kF64),
         v = torch::randn({B, H, T, Dh}, kF64);
    auto ig = gatePattern(i, B, H, T), fg = gatePattern(f, B, H, T);
    torch::Tensor weights, loop_weights;
    const auto parallel = mlstmParallel(q, k, v, ig, fg, {}, &weights);
    const auto loop = literalCell(q, k, v, ig, fg, {}, &loop_weights);
    QVERIFY(torch::isfinite(parallel).all().item<bool>());
    QVERIFY(torch::isfinite(weights).all().item<bool>());
    QVERIFY(relativelyClose(parallel, loop, 1e-10, "parallel vs loop"));
    QVERIFY(relativelyClose(weights, loop_weights, 1e-10, "C~/n vs loop"));
    torch::Tensor C, n, m;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t)
      steps.push_back(mlstmStep(q.narrow(2, t, 1), k.narrow(2, t, 1), v.narrow(2, t, 1),
                                ig.select(2, t), fg.select(2, t), C, n, m));
    const auto recurrent = torch::cat(steps, 2);
    QVERIFY(torch::isfinite(recurrent).all().item<bool>());
    QVERIFY(torch::isfinite(C).all().item<bool>() && torch::isfinite(m).all().item<bool>());
    QVERIFY(relativelyClose(recurrent, loop, 1e-10, "recurrent vs loop"));
    // float32, ĩ scaled to ±100: exp(100) is past float32's range, the stabilised forms are not.
    auto f32 = [](const torch::Tensor& t) { return t.to(torch::kFloat32); };
    const auto wide = mlstmParallel(q, k, v, ig * (100.0 / 30.0), fg);
    const auto narrow = mlstmParallel(f32(q), f32(k), f32(v), f32(ig * (100.0 / 30.0)), f32(fg));
    QVERIFY(torch::isfinite(narrow).all().item<bool>());
    // (At ĩ = −100 everywhere H̃ ~ e^−100 is below float32's range: it comes out 0, not NaN.)
    const double size = std::max(1.0, wide.abs().max().item<double>());
    QVERIFY(test::checkClose(narrow, wide, 1e-4 * size, "float32 vs float64"));
    torch::Tensor C32, n32, m32;
    for (int64_t t = 0; t < T; ++t) {
      auto y =
          mlstmStep(f32(q.narrow(2, t, 1)), f32(k.narrow(2, t, 1)), f32(v.narrow(2, t, 1)),
                    f32(ig.select(2, t) * (100.0 / 30.0)), f32(fg.select(2, t)), C32, n32, m32);
      QVERIFY(torch::isfinite(y).all().item<bool>());
    }
    QVERIFY(C32.scalar_type() == torch::kFloat32 && torch::isfinite(C32).all().item<bool>());
  }

  // Padded keys write nothing into C and n, as the loop that skips them; a query whose keys are
  // all padded (sample 0, position 0) gets H̃ = 0, not NaN.
  void paddedKeysAreLeftOut() {
    torch::manual_seed(43);
    auto layer = layerFor();
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 9, 12}, kF64);
    auto pad = torch::zeros({2, 9}, torch::kBool);
    pad[0][0] = true;
    pad[0][4] = true;
    pad[1][7] = true;
    const auto got = layer.forward(x, pad);
    QVERIFY(torch::isfinite(got).all().item<bool>());
    const auto literal = literalMlstm(layer, x, pad);
    QVERIFY(test::checkClose(got, literal.out, 1e-10, "padded"));
    torch::Tensor weights;
    mlstmParallel(literal.q, literal.k, literal.v, literal.ig, literal.fg, pad, &weights);
    QVERIFY(torch::equal(weights.select(-1, 4)[0], torch::zeros({3, 9}, kF64)));
    QVERIFY(relativelyClose(weights, literal.weights, 1e-10, "padded C~/n"));
  }

  // Changing x_t leaves every output before t as it was, and changes those from t on.
  void outputsBeforeAChangeStayTheSame() {
    torch::manual_seed(44);
    auto layer = layerFor();
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, 12, 12}, kF64);
    const auto before = layer.forward(x);
    const int64_t t = 6;
    auto changed = x.clone();
    changed.narrow(1, t, 1).add_(torch::randn({2, 1, 12}, kF64));
    const auto after = layer.forward(changed);
    QVERIFY(test::checkClose(after.narrow(1, 0, t), before.narrow(1, 0, t), 1e-13, "before t"));
    for (int64_t s = t; s < 12; ++s)
      QVERIFY2((after.select(1, s) - before.select(1, s)).abs().max().item<double>() > 1e-8,
               qPrintable(QString("position %1 did not see the change").arg(s)));
  }

  // The inspection record: per layer and head, C̃ / n, which times V gives H̃ of the loop, and
  // the per-token forget gate f_t = σ(f̃_t) in (0, 1].
  void inspectionCarriesTheMatrixAndForgetGates() {
    torch::manual_seed(47);
    TransformerModelImpl net(mlstmOptions(), ModelIO{3, 0, 2, false});
    net.to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    const int64_t T = 6, sample = 1;
    auto x = torch::randn({3, T, 3}, kF64);
    InspectionRecord record;
    record.sample = sample;
    const auto inspected = net.forward(x, &record);
    QVERIFY(test::checkClose(inspected, net.forward(x), 0.0, "inspected vs plain forward"));
    QCOMPARE(record.layers.size(), size_t{2});
    // Layer 0's input is the input projection (no PE), through ln1.
    auto p = net.named_parameters();
    auto h0 = torch::matmul(x, p["input_proj.weight"].t()) + p["input_proj.bias"];
    auto& attn = dynamic_cast<MlstmImpl&>(*net.blocks()[0]->attention());
    auto ln = net.blocks()[0]->named_modules()["ln1"]->as<torch::nn::LayerNorm>();
    QVERIFY(ln != nullptr);
    const auto literal = literalMlstm(attn, ln->forward(h0));
    for (int64_t h = 0; h < 4; ++h) {
      const auto& head = record.layers[0].heads[static_cast<size_t>(h)];
      QCOMPARE(head.attention.rows, T);
      QCOMPARE(head.attention.cols, T);
      auto W = torch::tensor(head.attention.values, kF64).view({T, T});
      QVERIFY(torch::equal(W.triu(1), torch::zeros({T, T}, kF64)));  // causal
      const auto v = literal.v[sample][h];                           // (T, Dh)
      const auto cell = literal.cell[sample][h];                     // (T, Dh)
      QVERIFY(test::checkClose(torch::matmul(W, v), cell,
                               1e-5 * std::max(1.0, cell.abs().max().item<double>()), "W V"));
      QCOMPARE(head.decay.size(), static_cast<size_t>(T));
      auto decay = torch::tensor(head.decay, kF64);
      QVERIFY((decay > 0).all().item<bool>() && (decay <= 1).all().item<bool>());
      QVERIFY(test::checkClose(decay, torch::sigmoid(literal.fg[sample][h]), 1e-6, "f_t"));
    }
  }
};

RSALAB_TEST_MAIN(TestMlstm)
#include "test_mlstm.moc"
