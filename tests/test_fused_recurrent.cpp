// SPDX-License-Identifier: GPL-3.0-or-later
// The fused recurrent path (engine/kernels/fused_recurrent.h) equals torch::nn::RNN/LSTM/GRU with
// the same weights: outputs and gradients (input, every weight and bias) in float64 over several
// shapes, a float32 check, central finite differences on a tiny case, and the model's runModule
// with the fused path on and off.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/kernels/fused_recurrent.h"
#include "engine/models/recurrent_model.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// A torch::nn stack (batch first) of `kind`, D_in -> H, L layers, in `dtype`.
std::shared_ptr<torch::nn::Module> makeModule(const std::string& kind, int64_t D, int64_t H,
                                              int64_t L, torch::Dtype dtype) {
  std::shared_ptr<torch::nn::Module> m;
  if (kind == "lstm") {
    m = torch::nn::LSTM(torch::nn::LSTMOptions(D, H).num_layers(L).batch_first(true)).ptr();
  } else if (kind == "gru") {
    m = torch::nn::GRU(torch::nn::GRUOptions(D, H).num_layers(L).batch_first(true)).ptr();
  } else {
    m = torch::nn::RNN(torch::nn::RNNOptions(D, H).num_layers(L).batch_first(true)).ptr();
  }
  m->to(dtype);
  // Weights from U(−0.8, 0.8): large enough that the gates leave their linear range.
  torch::NoGradGuard no_grad;
  for (auto& p : m->parameters()) p.uniform_(-0.8, 0.8);
  return m;
}

torch::Tensor runReference(const std::string& kind, torch::nn::Module& m, const torch::Tensor& x) {
  if (kind == "lstm") return std::get<0>(dynamic_cast<torch::nn::LSTMImpl&>(m).forward(x));
  if (kind == "gru") return std::get<0>(dynamic_cast<torch::nn::GRUImpl&>(m).forward(x));
  return std::get<0>(dynamic_cast<torch::nn::RNNImpl&>(m).forward(x));
}

RecurrentKind kindOf(const std::string& kind) {
  return kind == "lstm"  ? RecurrentKind::kLstm
         : kind == "gru" ? RecurrentKind::kGru
                         : RecurrentKind::kRnn;
}

// The output and the gradients of sum(out ⊙ weights) w.r.t. x and every parameter (in the
// module's order), by the fused path or torch::nn.
std::vector<torch::Tensor> outputAndGrads(const std::string& kind, torch::nn::Module& m,
                                          const torch::Tensor& x, const torch::Tensor& weights,
                                          int64_t L, bool fused) {
  auto out =
      fused ? fusedRecurrent(kindOf(kind), x, recurrentWeights(m, L)) : runReference(kind, m, x);
  std::vector<torch::Tensor> inputs = {x};
  for (auto& p : m.parameters()) inputs.push_back(p);
  auto grads = torch::autograd::grad({(out * weights).sum()}, inputs);
  std::vector<torch::Tensor> all = {out.detach()};
  all.insert(all.end(), grads.begin(), grads.end());
  return all;
}

double maxAbsDiff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

// Compares the fused path with torch::nn on one shape; returns the largest difference.
double compareWithTorch(const std::string& kind, int64_t L, int64_t B, int64_t T, int64_t D,
                        int64_t H, torch::Dtype dtype, double tol, bool* ok) {
  auto m = makeModule(kind, D, H, L, dtype);
  auto opts = torch::TensorOptions().dtype(dtype);
  auto x = torch::randn({B, T, D}, opts).requires_grad_(true);
  auto weights = torch::randn({B, T, H}, opts);
  auto fused = outputAndGrads(kind, *m, x, weights, L, /*fused=*/true);
  auto ref = outputAndGrads(kind, *m, x, weights, L, /*fused=*/false);
  const auto names = m->named_parameters().keys();
  double worst = 0;
  *ok = fused.size() == ref.size();
  for (size_t i = 0; i < fused.size() && *ok; ++i) {
    const auto what = kind + " L" + std::to_string(L) + " B" + std::to_string(B) + " T" +
                      std::to_string(T) + ": " +
                      (i == 0   ? "output"
                       : i == 1 ? "d input"
                                : "d " + names[i - 2]);
    *ok = test::checkClose(fused[i], ref[i], tol, what);
    worst = std::max(worst, maxAbsDiff(fused[i], ref[i]));
  }
  return worst;
}

}  // namespace

class TestFusedRecurrent : public QObject {
  Q_OBJECT
 private slots:
  void matchesTorchFloat64_data() {
    QTest::addColumn<QString>("kind");
    for (const char* kind : {"rnn", "lstm", "gru"}) QTest::newRow(kind) << kind;
  }
  void matchesTorchFloat64() {
    QFETCH(QString, kind);
    torch::manual_seed(21);
    double worst = 0;
    // Per-step products straight to the BLAS (default) and through LibTorch (where the BLAS
    // does not export its gemm).
    for (bool direct_blas : {true, false}) {
      setFusedRecurrentDirectBlas(direct_blas);
      for (int64_t L : {1, 2}) {
        for (int64_t B : {1, 3}) {
          for (int64_t T : {1, 7}) {
            bool ok = false;
            // D_in = 5 differs from H = 4 (the second layer's input is H wide).
            worst = std::max(worst, compareWithTorch(kind.toStdString(), L, B, T, 5, 4,
                                                     torch::kFloat64, 1e-10, &ok));
            setFusedRecurrentDirectBlas(true);
            QVERIFY(ok);
            setFusedRecurrentDirectBlas(direct_blas);
          }
        }
      }
    }
    setFusedRecurrentDirectBlas(true);
    std::printf("%s float64: max |fused - torch::nn| over outputs and gradients = %.3g\n",
                kind.toStdString().c_str(), worst);
  }

  void matchesTorchFloat32_data() { matchesTorchFloat64_data(); }
  void matchesTorchFloat32() {
    QFETCH(QString, kind);
    torch::manual_seed(22);
    bool ok = false;
    const double worst =
        compareWithTorch(kind.toStdString(), 2, 3, 13, 6, 8, torch::kFloat32, 2e-5, &ok);
    QVERIFY(ok);
    std::printf("%s float32: max |fused - torch::nn| = %.3g\n", kind.toStdString().c_str(), worst);
  }

  // Central differences of sum(out ⊙ weights) against the fused backward, every entry of the
  // input and of every parameter.
  void finiteDifferences_data() { matchesTorchFloat64_data(); }
  void finiteDifferences() {
    QFETCH(QString, kind);
    const auto k = kind.toStdString();
    torch::manual_seed(23);
    const int64_t L = 2, B = 2, T = 3, D = 3, H = 2;
    auto m = makeModule(k, D, H, L, torch::kFloat64);
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    auto x = torch::randn({B, T, D}, opts).requires_grad_(true);
    auto weights = torch::randn({B, T, H}, opts);
    auto analytic = outputAndGrads(k, *m, x, weights, L, /*fused=*/true);
    std::vector<torch::Tensor> inputs = {x};
    for (auto& p : m->parameters()) inputs.push_back(p);
    auto loss = [&] {
      torch::NoGradGuard no_grad;
      return (fusedRecurrent(kindOf(k), x, recurrentWeights(*m, L)) * weights).sum().item<double>();
    };
    const double eps = 1e-6;
    double worst = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto flat = inputs[i].detach().view(-1);  // shares the storage
      auto grad = analytic[i + 1].reshape(-1);
      for (int64_t j = 0; j < flat.numel(); ++j) {
        const double v = flat[j].item<double>();
        flat[j] = v + eps;
        const double up = loss();
        flat[j] = v - eps;
        const double down = loss();
        flat[j] = v;
        const double numeric = (up - down) / (2 * eps);
        const double diff = std::abs(numeric - grad[j].item<double>());
        worst = std::max(worst, diff);
        if (diff > 1e-7) {
          std::fprintf(stderr, "%s input %zu entry %lld: numeric %.10g analytic %.10g\n", k.c_str(),
                       i, static_cast<long long>(j), numeric, grad[j].item<double>());
          QFAIL("finite differences differ");
        }
      }
    }
    std::printf("%s: max |central difference - fused gradient| = %.3g\n", k.c_str(), worst);
  }

  // Without an input gradient only the parameters get one (the needs_input_grad branch).
  void parametersOnly() {
    torch::manual_seed(24);
    auto m = makeModule("lstm", 3, 4, 2, torch::kFloat64);
    auto x = torch::randn({2, 5, 3}, torch::TensorOptions().dtype(torch::kFloat64));
    auto out = fusedRecurrent(RecurrentKind::kLstm, x, recurrentWeights(*m, 2));
    out.sum().backward();
    auto ref = makeModule("lstm", 3, 4, 2, torch::kFloat64);
    {
      torch::NoGradGuard no_grad;
      auto src = m->parameters(), dst = ref->parameters();
      for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
    }
    runReference("lstm", *ref, x).sum().backward();
    auto a = m->parameters(), b = ref->parameters();
    for (size_t i = 0; i < a.size(); ++i) {
      QVERIFY(test::checkClose(a[i].grad(), b[i].grad(), 1e-10, "parameter gradient"));
    }
  }

  // RecurrentModelImpl::runModule: fused on == off (torch::nn), outputs and the gradients of all
  // of the model's parameters; half precision is left to torch::nn.
  void modelRunModuleMatches_data() { matchesTorchFloat64_data(); }
  void modelRunModuleMatches() {
    QFETCH(QString, kind);
    torch::manual_seed(25);
    ModelOptions o;
    o.model = kind.toStdString();
    o.d_model = 8;
    o.layers = 2;
    RecurrentModelImpl net(o, ModelIO{2, 0, 1, false});
    net.to(torch::kFloat64);
    auto x = torch::randn({3, 9, 2}, torch::TensorOptions().dtype(torch::kFloat64));
    std::vector<torch::Tensor> grads[2];
    torch::Tensor outs[2];
    for (int fused = 0; fused < 2; ++fused) {
      net.setFused(fused == 1);
      net.zero_grad();
      outs[fused] = net.forward(x);
      outs[fused].pow(2).sum().backward();
      for (auto& p : net.parameters()) grads[fused].push_back(p.grad().clone());
    }
    QVERIFY(test::checkClose(outs[1], outs[0], 1e-12, "model forward"));
    for (size_t i = 0; i < grads[0].size(); ++i) {
      QVERIFY(test::checkClose(grads[1][i], grads[0][i], 1e-10, "model parameter gradient"));
    }
    const auto layers = recurrentWeights(*net.named_children()[o.model], o.layers);
    QVERIFY(fusedRecurrentSupports(torch::zeros({3, 9, 8}, torch::kFloat64), layers));
    QVERIFY(!fusedRecurrentSupports(torch::zeros({3, 9, 8}, torch::kHalf), layers));
  }
};

RSALAB_TEST_MAIN(TestFusedRecurrent)
#include "test_fused_recurrent.moc"
