// SPDX-License-Identifier: GPL-3.0-or-later
// Finite-difference gradient check (float64) of the linear forecasters: every parameter and the
// input (their window gathering and DLinear's folded maps), below and above DLinear's kernel.
// (RSA's η, ν, θ and µ, and every model's parameters: the self-test's gradients checks,
// tests/test_selftest.cpp.)
#include "engine/models/model_factory.h"
#include "engine/selftest/finite_differences.h"
#include "support/test_support.h"

using namespace rsalab;

class TestGradients : public QObject {
  Q_OBJECT
 private slots:
  // Every parameter of DLinear and NLinear, and the input (the windows' gather: an input feeds
  // every window that holds it, and the padding's repeats of the first value).
  void linearForecastersMatchFiniteDifferences_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("lookback");
    for (const char* m : {"dlinear", "nlinear"})
      for (int L : {4, 28})  // below and above DLinear's kernel
        QTest::newRow(qPrintable(QString("%1/L%2").arg(m).arg(L))) << QString(m) << L;
  }
  void linearForecastersMatchFiniteDifferences() {
    QFETCH(QString, model);
    QFETCH(int, lookback);
    torch::manual_seed(22);
    ModelOptions o;
    o.model = model.toStdString();
    o.lookback = lookback;
    const int64_t C = 2, H = 3, T = 9;
    auto net = makeSequenceModel(o, ModelIO{C, 0, H * C, false});
    net->to(torch::kFloat64);
    const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto x = torch::randn({2, T, C}, f64).requires_grad_(true);
    auto weights = torch::randn({2, T, H * C}, f64);
    auto loss = [&] { return (net->forward(x) * weights).sum(); };

    std::vector<std::pair<std::string, torch::Tensor>> params;
    for (auto& p : net->named_parameters()) params.emplace_back(p.key(), p.value());
    params.emplace_back("x", x);
    net->zero_grad();
    loss().backward();
    const double h = 1e-6;
    for (auto& [name, p] : params) {
      QVERIFY2(p.grad().defined(), name.c_str());
      auto analytic = p.grad().clone();
      auto numeric = parameterFiniteDifferences(p, loss, h);
      const double scale = std::max(1.0, numeric.abs().max().item<double>());
      QVERIFY2(test::checkClose(analytic, numeric, 1e-6 * scale, "d loss / d " + name),
               name.c_str());
      QVERIFY2(analytic.abs().sum().item<double>() > 0, (name + " gets no gradient").c_str());
    }
  }
};

RSALAB_TEST_MAIN(TestGradients)
#include "test_gradients.moc"
