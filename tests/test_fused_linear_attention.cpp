// SPDX-License-Identifier: GPL-3.0-or-later
// The fused causal linear-attention kernel (linear_attention_kernel.h): outputs and gradients
// equal the parallel, chunked and recurrent forms (float64, with and without key padding, one
// thread and many), float32 close to float64, gradients against finite differences, and the
// layer and model built on it equal to the ones on the masked parallel form.
// Seed: linear-attention-transformers-are-rnns-note.txt.
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

#include "engine/kernels/linear_attention_kernel.h"
#include "engine/kernels/linear_attention_loops.h"
#include "engine/models/linear_attention.h"
#include "engine/models/model_factory.h"
#include "engine/selftest/finite_differences.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {
// Key padding (B, T): sequence 0 unpadded; 1 its last quarter and middle key; 2 its first third
// (so its first queries see no key at all: out = 0 / eps = 0).
torch::Tensor paddingFor(int64_t B, int64_t T) {
  auto pad = torch::zeros({B, T}, torch::kBool);
  for (int64_t t = 0; t < T; ++t) {
    if (B > 1) pad[1][t] = t >= T - T / 4 || (T > 2 && t == T / 2);
    if (B > 2) pad[2][t] = t < (T + 2) / 3;
  }
  return pad;
}

using Form = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&,
                                         const torch::Tensor&, const torch::Tensor&)>;

// y = form(q, k, v) and the gradients of Σ y ⊙ w with respect to q, k, v.
std::vector<torch::Tensor> outputAndGradients(const Form& form, const torch::Tensor& q0,
                                              const torch::Tensor& k0, const torch::Tensor& v0,
                                              const torch::Tensor& pad, const torch::Tensor& w) {
  auto q = q0.detach().clone().requires_grad_(), k = k0.detach().clone().requires_grad_();
  auto v = v0.detach().clone().requires_grad_();
  auto y = form(q, k, v, pad);
  (y * w).sum().backward();
  return {y.detach(), q.grad(), k.grad(), v.grad()};
}

const Form kFused = [](const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& pad) { return linearAttentionFused(q, k, v, pad); };
const Form kParallel = [](const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& pad) {
  return linearAttentionParallel(q, k, v, /*causal=*/true, pad);
};
const Form kChunked = [](const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& pad) {
  return linearAttentionChunked(q, k, v, kLinearAttentionChunk, pad);
};

double maxAbs(const torch::Tensor& a) { return a.abs().max().item<double>(); }
}  // namespace

class TestFusedLinearAttention : public QObject {
  Q_OBJECT
 private slots:
  void fusedEqualsParallelChunkedAndRecurrent_data() {
    QTest::addColumn<int>("B");
    QTest::addColumn<int>("H");
    QTest::addColumn<int>("T");
    QTest::addColumn<int>("Dh");
    for (bool padded : {false, true}) {
      const char* p = padded ? "padded" : "no padding";
      QTest::addRow("B1 H1 T1 Dh3, %s", p) << 1 << 1 << 1 << 3;
      QTest::addRow("B2 H3 T5 Dh3, %s", p) << 2 << 3 << 5 << 3;
      QTest::addRow("B3 H2 T70 Dh16, %s", p) << 3 << 2 << 70 << 16;
      QTest::addRow("B3 H3 T130 Dh3, %s", p) << 3 << 3 << 130 << 3;
      QTest::addRow("B2 H1 T130 Dh16, %s", p) << 2 << 1 << 130 << 16;
      QTest::addRow("B3 H2 T70 Dh5, %s", p) << 3 << 2 << 70 << 5;
      QTest::addRow("B1 H2 T70 Dh32, %s", p) << 1 << 2 << 70 << 32;
      // Enough work (heads·T·Dh² ≥ 2^20) for the heads to be split over threads.
      QTest::addRow("B3 H3 T520 Dh16 (threads), %s", p) << 3 << 3 << 520 << 16;
    }
  }
  void fusedEqualsParallelChunkedAndRecurrent() {
    QFETCH(int, B);
    QFETCH(int, H);
    QFETCH(int, T);
    QFETCH(int, Dh);
    const bool padded = QString(QTest::currentDataTag()).endsWith(", padded");
    torch::manual_seed(21);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({B, H, T, Dh}, opts), k = torch::randn({B, H, T, Dh}, opts);
    auto v = torch::randn({B, H, T, Dh}, opts), w = torch::randn({B, H, T, Dh}, opts);
    auto pad = padded ? paddingFor(B, T) : torch::Tensor();
    auto fused = outputAndGradients(kFused, q, k, v, pad, w);
    const char* names[] = {"out", "dq", "dk", "dv"};
    double worst = 0;
    for (const Form* ref : {&kParallel, &kChunked}) {
      auto expected = outputAndGradients(*ref, q, k, v, pad, w);
      for (int i = 0; i < 4; ++i) {
        const double scale = std::max(1.0, maxAbs(expected[static_cast<size_t>(i)]));
        worst = std::max(
            worst,
            maxAbs(fused[static_cast<size_t>(i)] - expected[static_cast<size_t>(i)]) / scale);
        QVERIFY(test::checkClose(
            fused[static_cast<size_t>(i)], expected[static_cast<size_t>(i)], 1e-10 * scale,
            std::string(names[i]) + (ref == &kParallel ? " vs parallel" : " vs chunked")));
      }
    }
    // The recurrent steps (no key padding there: a key of −inf has φ = 0 exactly).
    auto k_rec = padded ? k.masked_fill(pad.unsqueeze(1).unsqueeze(-1),
                                        -std::numeric_limits<double>::infinity())
                        : k;
    torch::Tensor S, z;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t) {
      steps.push_back(
          linearAttentionStep(q.narrow(2, t, 1), k_rec.narrow(2, t, 1), v.narrow(2, t, 1), S, z));
    }
    QVERIFY(test::checkClose(fused[0], torch::cat(steps, 2), 1e-10, "out vs recurrent"));
    std::printf("  max relative error vs parallel/chunked: %.2e\n", worst);
  }
  // Every build of the sweeps (portable, AVX2, AVX-512 for float Dh 16) gives the same values
  // as the portable one; those this processor lacks are skipped.
  void everyIsaGivesTheSameValues() {
    using linear_sweeps::Isa;
    torch::manual_seed(27);
    const Isa highest = linear_sweeps::useIsa(Isa::avx512);
    for (int64_t Dh : {3, 16}) {
      auto opts = torch::TensorOptions().dtype(torch::kFloat64);
      auto q = torch::randn({3, 2, 70, Dh}, opts), k = torch::randn({3, 2, 70, Dh}, opts);
      auto v = torch::randn({3, 2, 70, Dh}, opts), w = torch::randn({3, 2, 70, Dh}, opts);
      auto pad = paddingFor(3, 70);
      for (auto type : {torch::kFloat64, torch::kFloat32}) {
        linear_sweeps::useIsa(Isa::portable);
        auto portable =
            outputAndGradients(kFused, q.to(type), k.to(type), v.to(type), pad, w.to(type));
        for (Isa isa : {Isa::avx2, Isa::avx512}) {
          if (linear_sweeps::useIsa(isa) != isa) continue;
          auto fast =
              outputAndGradients(kFused, q.to(type), k.to(type), v.to(type), pad, w.to(type));
          const double tol = type == torch::kFloat64 ? 1e-12 : 1e-4;
          for (size_t i = 0; i < 4; ++i)
            QVERIFY(test::checkClose(fast[i], portable[i], tol, "vectorised vs portable"));
        }
      }
    }
    linear_sweeps::useIsa(highest);
    std::printf("  highest build of the sweeps here: %d (0 portable, 1 AVX2, 2 AVX-512)\n",
                static_cast<int>(highest));
  }
  // Without autograd (no gradient needed) the kernel runs directly, keeping neither φ nor the
  // normaliser: the same values (float64 Dh 8; float32 Dh 16, where AVX-512 computes φ itself).
  void inferencePathEqualsTrainingPath() {
    torch::manual_seed(22);
    for (auto [type, Dh] : {std::pair{torch::kFloat64, 8}, std::pair{torch::kFloat32, 16}}) {
      auto q = torch::randn({2, 3, 40, Dh}, type), k = torch::randn_like(q);
      auto v = torch::randn_like(q);
      auto pad = paddingFor(2, 40);
      auto trained = linearAttentionFused(q.clone().requires_grad_(), k, v, pad).detach();
      torch::NoGradGuard no_grad;
      QVERIFY(torch::equal(linearAttentionFused(q, k, v, pad), trained));
    }
  }
  // float32 (the state summed over T = 512 in float32) against float64, at the large config's
  // head shape, split over threads.
  void float32CloseToFloat64() {
    torch::manual_seed(23);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({2, 8, 512, 16}, opts), k = torch::randn({2, 8, 512, 16}, opts);
    auto v = torch::randn({2, 8, 512, 16}, opts), w = torch::randn({2, 8, 512, 16}, opts);
    auto pad = paddingFor(2, 512);
    auto exact = outputAndGradients(kFused, q, k, v, pad, w);
    auto single = outputAndGradients(kFused, q.to(torch::kFloat32), k.to(torch::kFloat32),
                                     v.to(torch::kFloat32), pad, w.to(torch::kFloat32));
    auto cumsum = outputAndGradients(
        [](const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& c,
           const torch::Tensor& p) { return linearAttentionCumulative(a, b, c, p); },
        q.to(torch::kFloat32), k.to(torch::kFloat32), v.to(torch::kFloat32), pad,
        w.to(torch::kFloat32));
    const char* names[] = {"out", "dq", "dk", "dv"};
    for (size_t i = 0; i < 4; ++i) {
      QCOMPARE(single[i].scalar_type(), torch::kFloat32);
      const double scale = maxAbs(exact[i]);
      const double fused_error = maxAbs(single[i].to(torch::kFloat64) - exact[i]) / scale;
      const double cumsum_error = maxAbs(cumsum[i].to(torch::kFloat64) - exact[i]) / scale;
      std::printf("  float32 %s: max error / max |value|: fused %.2e, cumulative sums %.2e\n",
                  names[i], fused_error, cumsum_error);
      QVERIFY2(fused_error < 1e-5, names[i]);
    }
  }
  // φ over a wide range of inputs (down to e^−30 and below, where the AVX-512 sweeps' own
  // exponential takes over from ATen's): float32 still within 1e-5 of float64.
  void float32FeatureMapOverAWideRange() {
    torch::manual_seed(28);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto q = torch::randn({2, 4, 200, 16}, opts) * 8, k = torch::randn({2, 4, 200, 16}, opts) * 8;
    auto v = torch::randn({2, 4, 200, 16}, opts), w = torch::randn({2, 4, 200, 16}, opts);
    q.view({-1})[0] = -200.0;  // e^x far below the smallest float
    k.view({-1})[1] = -100.0;
    auto exact = outputAndGradients(kParallel, q, k, v, torch::Tensor(), w);
    auto single = outputAndGradients(kFused, q.to(torch::kFloat32), k.to(torch::kFloat32),
                                     v.to(torch::kFloat32), torch::Tensor(), w.to(torch::kFloat32));
    const char* names[] = {"out", "dq", "dk", "dv"};
    for (size_t i = 0; i < 4; ++i) {
      const double error = maxAbs(single[i].to(torch::kFloat64) - exact[i]) / maxAbs(exact[i]);
      std::printf("  wide range, float32 %s: max error / max |value| %.2e\n", names[i], error);
      QVERIFY2(error < 1e-5, names[i]);
    }
  }
  // The kernel's own backward against central finite differences (float64, tiny, padded).
  void gradientsMatchFiniteDifferences() {
    torch::manual_seed(24);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    std::vector<torch::Tensor> in = {torch::randn({2, 2, 5, 3}, opts),
                                     torch::randn({2, 2, 5, 3}, opts),
                                     torch::randn({2, 2, 5, 3}, opts)};
    auto pad = torch::tensor({false, false, true, false, false, true, false, false, false, true})
                   .view({2, 5});
    auto w = torch::randn({2, 2, 5, 3}, opts);
    auto f = [&](const std::vector<torch::Tensor>& x) {
      return (linearAttentionFused(x[0], x[1], x[2], pad) * w).sum();
    };
    for (auto& x : in) x.requires_grad_();
    f(in).backward();
    const auto numeric = finiteDifferences(f, in);
    for (size_t i = 0; i < in.size(); ++i) {
      QVERIFY(test::checkClose(in[i].grad(), numeric[i], 1e-6, "finite differences"));
    }
  }
  // The model (linear Transformer, two layers, padded tokens): the fused training path
  // (linear_cumulative) gives the masked parallel path's outputs and parameter gradients.
  void modelFusedPathEqualsParallelPath() {
    ModelIO io;
    io.vocab = 7;
    io.pad_token = 6;
    io.output_dim = 7;
    torch::manual_seed(25);
    auto x = torch::randint(0, 6, {3, 23}, torch::kInt64);
    x[1].narrow(0, 17, 6).fill_(6);
    x[2].narrow(0, 9, 14).fill_(6);
    torch::Tensor y[2];
    std::vector<torch::Tensor> grads[2];
    for (int cumulative = 0; cumulative < 2; ++cumulative) {
      ModelOptions o;
      o.model = "linear";
      o.d_model = 24;
      o.heads = 3;
      o.layers = 2;
      o.causal = true;
      o.linear_cumulative = cumulative == 1;
      torch::manual_seed(26);
      auto net = makeSequenceModel(o, io);
      net->to(torch::kFloat64);
      y[cumulative] = net->forward(x);
      y[cumulative].square().sum().backward();
      for (const auto& p : net->parameters()) grads[cumulative].push_back(p.grad());
    }
    QVERIFY(test::checkClose(y[1], y[0], 1e-10, "fused model vs parallel model"));
    QCOMPARE(grads[1].size(), grads[0].size());
    for (size_t i = 0; i < grads[0].size(); ++i) {
      QCOMPARE(grads[1][i].defined(), grads[0][i].defined());
      if (grads[0][i].defined())
        QVERIFY(test::checkClose(grads[1][i], grads[0][i], 1e-9, "parameter gradient"));
    }
  }
};

RSALAB_TEST_MAIN(TestFusedLinearAttention)
#include "test_fused_linear_attention.moc"
