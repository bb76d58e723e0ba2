// SPDX-License-Identifier: GPL-3.0-or-later
// Step-by-step generation of every attention model (a KV cache for softmax, RSA, ALiBi and FoX,
// with FoX's cumulative log gates; (S, z) for linear attention, (S, z, s) for retention, S for
// GLA, (C, n, m) for mLSTM) equals the full forward on the whole prefix, in float64, through the
// cache's growth points and GLA's blocks.
#include "engine/models/transformer.h"
#include "support/test_support.h"

using namespace rsalab;

class TestKvCache : public QObject {
  Q_OBJECT
 private slots:
  void stepsEqualFullForward_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("tokens");
    for (const char* m :
         {"transformer", "rsa", "linear", "retnet", "alibi", "fox", "gla", "mlstm"}) {
      QTest::newRow((std::string(m) + "-real").c_str()) << QString(m) << false;
      QTest::newRow((std::string(m) + "-tokens").c_str()) << QString(m) << true;
    }
  }
  void stepsEqualFullForward() {
    QFETCH(QString, model);
    QFETCH(bool, tokens);
    torch::manual_seed(5);
    ModelOptions o;
    o.model = model.toStdString();
    o.d_model = 32;
    o.heads = 4;
    o.layers = 3;
    o.rem.dilated_sin = 1;
    o.dilations = {3};
    ModelIO io{4, tokens ? 13 : 0, 5, false};
    TransformerModelImpl net(o, io);
    net.to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    const int64_t T = 40;  // crosses the cache's growth points (16, 34)
    auto x = tokens ? torch::randint(0, 13, {3, T}, torch::kInt64)
                    : torch::randn({3, T, 4}, torch::TensorOptions().dtype(torch::kFloat64));
    auto full = net.forward(x);  // (B, T, O)
    GenerationState state;
    std::vector<torch::Tensor> steps;
    for (int64_t t = 0; t < T; ++t) steps.push_back(net.step(x.narrow(1, t, 1), state));
    auto stepped = torch::cat(steps, 1);
    QVERIFY(test::checkClose(stepped, full, 1e-10, model.toStdString() + " step vs forward"));
  }
};

RSALAB_TEST_MAIN(TestKvCache)
#include "test_kv_cache.moc"
