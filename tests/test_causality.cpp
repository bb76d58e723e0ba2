// SPDX-License-Identifier: GPL-3.0-or-later
// Causal masks leak nothing: the trainer's normalised forward, the linear skip path and the
// linear forecasters against literal loops, the encoder-decoder's target; bidirectional models do
// see the future. (Every sequence model's plain forward: the self-test's causality checks,
// tests/test_selftest.cpp.)
#include <algorithm>
#include <map>
#include <vector>

#include "engine/models/linear_forecasters.h"
#include "engine/models/model_factory.h"
#include "engine/selftest/selftest_checks.h"
#include "engine/training/series_norm.h"
#include "support/test_support.h"

using namespace rsalab;

class TestCausality : public QObject {
  Q_OBJECT
 private slots:
  // The trainer's whole forward, normalisation included (--norm window once took each window's
  // mean over all T inputs: the prediction at t saw the inputs after t, its own targets).
  void normalisedForwardIsCausal_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("norm");
    for (const auto& row : modelRegistry()) {  // the forecasters: informer_checks.cpp
      if (row.family == ModelFamily::Seq2Seq || row.has(LongHorizonOnly)) continue;
      const QString m = row.name;
      for (const char* n : {"global", "window", "none", "revin"})
        QTest::newRow(qPrintable(QString("%1/%2").arg(m, n))) << m << QString(n);
    }
  }
  void normalisedForwardIsCausal() {
    QFETCH(QString, model);
    QFETCH(QString, norm);
    torch::manual_seed(13);
    const int64_t C = 3, H = 2, T = 20;
    auto o = selftest::smallModelOptions(model.toStdString());
    o.skip_lags = 5;  // the real series' linear skip path too
    o.lookback = 6;   // the linear family's window (it has no skip path)
    const auto mode = parseNormMode(norm.toStdString()).value();
    ModelIO io{C, 0, H * C, false};
    io.revin = mode == NormMode::Revin;  // RevIN's affine, the model's own parameters
    auto net = makeSequenceModel(o, io);
    {  // a skip path (or RevIN's affine) at its start would not show a leak: give it weights
      torch::NoGradGuard no_grad;
      for (auto& p : net->named_parameters())
        if (p.key().rfind("linear_skip", 0) == 0 || p.key().rfind("revin_", 0) == 0)
          p.value().normal_();
    }
    const std::vector<double> mean{5.0, -1.0, 0.5}, stddev{2.0, 0.5, 3.0};
    torch::NoGradGuard no_grad;
    auto x = torch::randn({2, T, C}) * 2 + 3;
    const auto y = normalisedForward(*net, x, mode, mean, stddev);
    for (int64_t t : {int64_t{1}, int64_t{6}, T - 2}) {
      auto x2 = x.clone();
      x2.narrow(1, t, T - t).add_(torch::randn({2, T - t, C}) * 4 + 1);  // every input ≥ t
      const auto y2 = normalisedForward(*net, x2, mode, mean, stddev);
      QVERIFY2(torch::equal(y.narrow(1, 0, t), y2.narrow(1, 0, t)),
               qPrintable(QString("%1, norm %2: a prediction before %3 saw inputs from %3 on")
                              .arg(model, norm)
                              .arg(t)));
    }
  }
  // The linear skip path against a literal loop: out[t, h·C + c] − (the model without it) =
  // Σ_k W[h, k] x[t − K + 1 + k, c] + b_h, rows before 0 read as row 0.
  void linearSkipMatchesALiteralLoop() {
    torch::manual_seed(14);
    const int64_t C = 2, H = 3, T = 9, K = 4;
    auto o = selftest::smallModelOptions("gru");
    o.skip_lags = K;
    auto net = makeSequenceModel(o, ModelIO{C, 0, H * C, false});
    torch::NoGradGuard no_grad;
    torch::Tensor w, b;
    for (auto& p : net->named_parameters()) {
      if (p.key() == "linear_skip.weight") w = p.value();
      if (p.key() == "linear_skip.bias") b = p.value();
    }
    QVERIFY(w.defined() && b.defined());
    QCOMPARE(w.size(0), H);
    QCOMPARE(w.size(1), K);
    QVERIFY(w.abs().max().item<double>() == 0.0);  // starts as the model without it
    auto x = torch::randn({2, T, C});
    const auto without = net->forward(x);
    w.normal_();
    b.normal_();
    const auto with = net->forward(x);
    auto xa = x.accessor<float, 3>();
    auto wa = w.accessor<float, 2>();
    double worst = 0;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t c = 0; c < C; ++c) {
            double expect = b[h].item<double>();
            for (int64_t k = 0; k < K; ++k)
              expect += wa[h][k] * xa[n][std::max<int64_t>(0, t - K + 1 + k)][c];
            const double got = (with[n][t][h * C + c] - without[n][t][h * C + c]).item<double>();
            worst = std::max(worst, std::abs(got - expect));
          }
    QVERIFY2(worst < 1e-4, qPrintable(QString("max |skip − loop| = %1").arg(worst)));
    // Pooled or token models have no series columns to skip over: a clear error.
    bool threw = false;
    try {
      makeSequenceModel(o, ModelIO{C, 0, 5, true});
    } catch (const std::invalid_argument& e) {
      threw = QString(e.what()).contains("skip_lags");
    }
    QVERIFY(threw);
  }
  // DLinear and NLinear against plain loops in double over each position's window w
  // (w_k = x[max(0, t − L + 1 + k)]): DLinear's trend_j = the mean of w_clamp(i) over i = j − 12..
  // j + 12, y_h = Σ_j Wt[h, j] trend_j + Wr[h, j] (w_j − trend_j) + bt_h + br_h; NLinear's
  // y_h = Σ_j W[h, j] (w_j − w_{L−1}) + b_h + w_{L−1}. L below and above the kernel's 25.
  void linearForecastersMatchLiteralLoops_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("lookback");
    for (const char* m : {"dlinear", "nlinear"})
      for (int L : {1, 5, 30})
        QTest::newRow(qPrintable(QString("%1/L%2").arg(m).arg(L))) << QString(m) << L;
  }
  void linearForecastersMatchLiteralLoops() {
    QFETCH(QString, model);
    QFETCH(int, lookback);
    torch::manual_seed(15);
    const int64_t C = 2, H = 3, T = 40, L = lookback, B = 2;
    ModelOptions o;
    o.model = model.toStdString();
    o.lookback = L;
    auto net = makeSequenceModel(o, ModelIO{C, 0, H * C, false});
    net->to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    std::map<std::string, torch::Tensor> p;
    for (auto& item : net->named_parameters()) p[item.key()] = item.value();
    const bool dlinear = model == "dlinear";
    QCOMPARE(p.size(), size_t{dlinear ? 4u : 2u});
    auto x = torch::randn({B, T, C}, torch::kFloat64);
    const auto y = net->forward(x);
    QVERIFY((y.sizes().vec() == std::vector<int64_t>{B, T, H * C}));
    auto xa = x.accessor<double, 3>();
    auto weight = [&](const std::string& name, int64_t h, int64_t j) {
      return p.at(name + ".weight")[h][j].item<double>();
    };
    auto bias = [&](const std::string& name, int64_t h) {
      return p.at(name + ".bias")[h].item<double>();
    };
    const int64_t half = (kDLinearKernel - 1) / 2;
    double worst = 0;
    for (int64_t n = 0; n < B; ++n)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) {
          std::vector<double> w(static_cast<size_t>(L)), trend(static_cast<size_t>(L));
          for (int64_t k = 0; k < L; ++k) w[k] = xa[n][std::max<int64_t>(0, t - L + 1 + k)][c];
          for (int64_t j = 0; j < L; ++j) {
            double sum = 0;
            for (int64_t i = j - half; i <= j + half; ++i)
              sum += w[std::clamp<int64_t>(i, 0, L - 1)];
            trend[j] = sum / static_cast<double>(kDLinearKernel);
          }
          for (int64_t h = 0; h < H; ++h) {
            double expect = 0;
            if (dlinear) {
              expect = bias("trend", h) + bias("remainder", h);
              for (int64_t j = 0; j < L; ++j)
                expect += weight("trend", h, j) * trend[j] +
                          weight("remainder", h, j) * (w[j] - trend[j]);
            } else {
              expect = bias("map", h) + w[L - 1];
              for (int64_t j = 0; j < L; ++j) expect += weight("map", h, j) * (w[j] - w[L - 1]);
            }
            worst = std::max(worst, std::abs(y[n][t][h * C + c].item<double>() - expect));
          }
        }
    QVERIFY2(worst < 1e-12, qPrintable(QString("max |model − loop| = %1").arg(worst)));
  }
  void encoderDecoderTargetIsCausal() {
    torch::manual_seed(12);
    for (AttentionKind kind : encoderAttentionKinds()) {  // a causal-only kind is no encoder's
      auto o = selftest::smallModelOptions("encdec");
      o.encoder_attention = kind;
      auto net = makeEncoderDecoder(o, 10, 10);
      torch::NoGradGuard no_grad;
      auto src = torch::randint(0, 10, {2, 9}, torch::kInt64);
      auto tgt = torch::randint(0, 10, {2, 11}, torch::kInt64);
      auto y = net->forward(src, tgt);
      auto tgt2 = tgt.clone();
      tgt2.select(1, 6).copy_((tgt.select(1, 6) + 1).remainder(10));
      auto y2 = net->forward(src, tgt2);
      QVERIFY2(torch::equal(y.narrow(1, 0, 6), y2.narrow(1, 0, 6)), attentionKindName(kind));
    }
  }
  void bidirectionalModelsDoSeeTheFuture() {
    for (const char* m : {"transformer", "rsa", "linear", "starsaber"}) {
      auto o = selftest::smallModelOptions(m);
      o.causal = false;
      auto net = makeSequenceModel(o, ModelIO{3, 0, 2, false});
      QVERIFY(!net->causal());
      torch::NoGradGuard no_grad;
      auto x = torch::randn({1, 10, 3});
      auto x2 = x.clone();
      x2.select(1, 9).add_(1.0);
      QVERIFY2(!torch::equal(net->forward(x).select(1, 0), net->forward(x2).select(1, 0)), m);
    }
  }
};

RSALAB_TEST_MAIN(TestCausality)
#include "test_causality.moc"
