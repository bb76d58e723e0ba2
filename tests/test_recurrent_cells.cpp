// SPDX-License-Identifier: GPL-3.0-or-later
// The cell-by-cell path (which records gates) equals torch::nn::RNN/LSTM/GRU with the same weights.
#include "engine/models/recurrent_model.h"
#include "support/test_support.h"

using namespace rsalab;

class TestRecurrentCells : public QObject {
  Q_OBJECT
 private slots:
  void cellsEqualTorchModules_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("gates");
    QTest::newRow("rnn") << "rnn" << 0;
    QTest::newRow("lstm") << "lstm" << 4;
    QTest::newRow("gru") << "gru" << 3;
  }
  void cellsEqualTorchModules() {
    QFETCH(QString, model);
    QFETCH(int, gates);
    torch::manual_seed(9);
    ModelOptions o;
    o.model = model.toStdString();
    o.d_model = 12;
    o.layers = 3;
    RecurrentModelImpl net(o, ModelIO{2, 0, 1, false});
    net.to(torch::kFloat64);
    torch::NoGradGuard no_grad;
    auto input = torch::randn({4, 15, 12}, torch::TensorOptions().dtype(torch::kFloat64));
    InspectionRecord cell_record;
    cell_record.sample = 2;
    auto cells = net.runCells(input, InspectionObserver(&cell_record, o.model, 0));
    const auto& traces = cell_record.gates;
    auto module = net.runModule(input);
    QVERIFY(test::checkClose(cells, module, 1e-12, o.model + " cells vs module"));
    QCOMPARE(static_cast<int>(traces.size()), gates * 3);  // per gate, per layer
    for (const auto& tr : traces) {
      QCOMPARE(tr.values.rows, int64_t{15});
      QCOMPARE(tr.values.cols, int64_t{12});
    }
    // The recorded forward equals the fast forward.
    InspectionRecord record;
    record.sample = 1;
    auto x = torch::randn({3, 15, 2}, torch::TensorOptions().dtype(torch::kFloat64));
    QVERIFY(test::checkClose(net.forward(x, &record), net.forward(x), 1e-12, "recorded forward"));
    if (o.model == "lstm") {
      QCOMPARE(QString::fromStdString(record.gates[1].gate), QString("f"));
      const float f = record.gates[1].values.at(3, 4);
      QVERIFY(f > 0 && f < 1);  // a sigmoid gate
    }
  }
};

RSALAB_TEST_MAIN(TestRecurrentCells)
#include "test_recurrent_cells.moc"
