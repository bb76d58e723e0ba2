// SPDX-License-Identifier: GPL-3.0-or-later
// RevIN (--norm revin, engine/training/series_norm.h): the map against a literal loop, its
// reversibility, its causal statistics and the affine's gradients against finite differences; its
// scale and shift are the model's, trained, saved in checkpoints and carried by exports.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "engine/core/config/run_config.h"
#include "engine/core/io/safetensors.h"
#include "engine/training/model_export.h"
#include "engine/training/series_norm.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// A GRU on AirPassengers with RevIN, a few steps at a learning rate that moves its affine; no
// linear skip path, so that RevIN is all that keeps its export from the peer's names.
RunConfig revinRun() {
  RunConfig c = realSeriesDefaults(defaultRunConfig());
  c.task.name = "airpassengers";
  c.task.norm = NormMode::Revin;
  c.task.anchors = AnchorMode::None;
  c.model.model = "gru";
  c.model.skip_lags = 0;
  c.trainer.max_steps = 30;
  c.trainer.learning_rate = 1e-2;
  return c;
}

std::map<std::string, torch::Tensor> named(Trainer& t) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& [k, v] : t.namedParameters()) out[k] = v.clone();
  return out;
}

}  // namespace

class TestRevin : public QObject {
  Q_OBJECT

 private slots:
  // RevIN (--norm revin): window's statistics, the affine undone exactly at the output (a literal
  // γ_c·(x − µ)/σ + β_c on the way in), and the gradients of γ and β against central finite
  // differences in float64.
  void revinRoundTripsAndItsGradientsMatchFiniteDifferences() {
    torch::manual_seed(5);
    const int64_t B = 3, T = 12, C = 2, H = 3;
    const auto f64 = torch::kFloat64;
    const auto x = torch::randn({B, T, C}, f64) * 5 + 10;
    const auto w = torch::rand({C}, f64) + 0.5, b = torch::randn({C}, f64);
    const auto s = windowScale(x, NormMode::Revin, {}, {});
    const auto sw = windowScale(x, NormMode::Window, {}, {});
    QVERIFY(torch::equal(s.shift, sw.shift) && torch::equal(s.scale, sw.scale));  // causal ones
    const auto z = revinAffine(normaliseInput(x, s), w, b);                       // (B, T, C)
    for (int64_t n = 0; n < B; ++n)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) {
          const double expect = w[c].item<double>() *
                                    (x[n][t][c].item<double>() - s.shift[n][t][c].item<double>()) /
                                    s.scale[n][t][c].item<double>() +
                                b[c].item<double>();
          QVERIFY(std::fabs(z[n][t][c].item<double>() - expect) < 1e-12);
        }
    // Reversible: H copies of the transformed input come back as H copies of x, up to the
    // kRevinEps in the inverse's denominator, which leaves (x − µ)·kRevinEps/(γ + kRevinEps).
    const auto back = restoreOutput(revinInverse(torch::cat({z, z, z}, 2), w, b), s);
    const auto left = ((x - s.shift).abs() * (kRevinEps / w.view({1, 1, C}))).max();
    QVERIFY((back - torch::cat({x, x, x}, 2)).abs().max().item<double>() <
            2 * left.item<double>() + 1e-12);
    // Gradients through the whole map with a nonlinear stand-in for the model.
    const auto A = torch::randn({C, H * C}, f64), R = torch::randn({B, T, H * C}, f64);
    auto loss = [&](const torch::Tensor& wk, const torch::Tensor& bk) {
      const auto out = torch::tanh(revinAffine(normaliseInput(x, s), wk, bk)).matmul(A);
      return (restoreOutput(revinInverse(out, wk, bk), s) * R).sum();
    };
    auto wg = w.clone().requires_grad_(true), bg = b.clone().requires_grad_(true);
    loss(wg, bg).backward();
    const double eps = 1e-6;
    for (int64_t c = 0; c < C; ++c) {
      const auto e = torch::zeros({C}, f64).index_put_({c}, eps);
      const double dw = (loss(w + e, b) - loss(w - e, b)).item<double>() / (2 * eps);
      const double db = (loss(w, b + e) - loss(w, b - e)).item<double>() / (2 * eps);
      const double gw = wg.grad()[c].item<double>(), gb = bg.grad()[c].item<double>();
      QVERIFY2(std::fabs(gw - dw) <= 1e-6 * std::max(1.0, std::fabs(dw)),
               qPrintable(QString("d/dweight[%1]: autograd %2, finite difference %3")
                              .arg(c)
                              .arg(gw, 0, 'g', 12)
                              .arg(dw, 0, 'g', 12)));
      QVERIFY2(std::fabs(gb - db) <= 1e-6 * std::max(1.0, std::fabs(db)),
               qPrintable(QString("d/dbias[%1]: autograd %2, finite difference %3")
                              .arg(c)
                              .arg(gb, 0, 'g', 12)
                              .arg(db, 0, 'g', 12)));
    }
  }

  // RevIN's scale and shift are the model's: trained, saved in its checkpoint and loaded back.
  void revinParametersAreTheModels() {
    RunConfig c = revinRun();
    Trainer trainer(c);
    QVERIFY(named(trainer).count("revin_weight") && named(trainer).count("revin_bias"));
    trainer.run(nullptr);
    const auto trained = named(trainer);
    QVERIFY(!torch::equal(trained.at("revin_weight"), torch::ones({1})));  // it learns
    QTemporaryDir dir;
    const auto path = (dir.path() + "/checkpoint.pt").toStdString();
    trainer.saveCheckpoint(path);
    Trainer again(c);
    again.loadCheckpoint(path);
    const auto loaded = named(again);
    QVERIFY(torch::equal(loaded.at("revin_weight"), trained.at("revin_weight")));
    QVERIFY(torch::equal(loaded.at("revin_bias"), trained.at("revin_bias")));
    // Without revin the model has no such parameters (older checkpoints load as they did).
    c.task.norm = NormMode::Window;
    Trainer plain(c);
    QVERIFY(!named(plain).count("revin_weight"));
  }

  // RevIN's scale and shift go out with the model (rsalab-cli export): revin_weight and
  // revin_bias with the trained values, and the metadata says revin yes (no without it). The
  // peer (bench/peer/models.py) has no RevIN, so the file keeps LibTorch's names and says why.
  void exportCarriesRevinsParameters() {
    RunConfig c = revinRun();
    Trainer trainer(c);
    trainer.run(nullptr);
    const auto params = named(trainer);
    const auto back =
        parseSafetensors(safetensorsBytes(exportModel(trainer).weights), "the revin export");
    QCOMPARE(back.tensors.size(), params.size());  // every parameter, the network's too
    for (const char* name : {"revin_weight", "revin_bias"}) {
      const auto it = std::find_if(back.tensors.begin(), back.tensors.end(),
                                   [&](const SafetensorsTensor& t) { return t.name == name; });
      QVERIFY2(it != back.tensors.end(), name);
      const auto& p = params.at(name);
      QCOMPARE(it->dtype, std::string("F32"));
      QCOMPARE(it->shape, std::vector<int64_t>{trainer.data().io.input_dim});
      QCOMPARE(it->bytes.size(), static_cast<size_t>(p.numel()) * sizeof(float));
      QVERIFY2(
          std::memcmp(it->bytes.data(), p.contiguous().data_ptr<float>(), it->bytes.size()) == 0,
          name);
    }
    QVERIFY(!torch::equal(params.at("revin_weight"), torch::ones({1})));  // trained, not 1
    QCOMPARE(back.metadata.at("revin"), std::string("yes"));
    QCOMPARE(back.metadata.at("tensor_names"), std::string("libtorch"));
    QVERIFY2(back.metadata.at("peer").find("RevIN") != std::string::npos,
             back.metadata.at("peer").c_str());
    QVERIFY(runConfigFromJson(back.metadata.at("config")).task.norm == NormMode::Revin);
    // Without RevIN: no such tensors, the flag says no, and the peer's names again.
    c.task.norm = NormMode::Window;
    Trainer plain(c);
    const auto without =
        parseSafetensors(safetensorsBytes(exportModel(plain).weights), "the window export");
    QCOMPARE(without.metadata.at("revin"), std::string("no"));
    QCOMPARE(without.metadata.at("tensor_names"), std::string("peer"));
    QVERIFY(
        std::none_of(without.tensors.begin(), without.tensors.end(),
                     [](const SafetensorsTensor& t) { return t.name.rfind("revin_", 0) == 0; }));
  }
};

RSALAB_TEST_MAIN(TestRevin)
#include "test_revin.moc"
