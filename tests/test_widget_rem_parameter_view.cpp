// RemParameterView: one graph per REM head and quantity, holding exactly the records' numbers;
// ground-truth reference lines.
#include <qcustomplot.h>

#include <QtTest>

#include "widgets/rem_parameter_view.h"
#include "widgets/snapshot_history.h"

using namespace rsalab;
using Q = RemParameterView::Quantity;

namespace {

// One layer: H0 regular REM, H1 cyclical ("cos") REM, H2 plain softmax head (no REM).
InspectionRecord rsaRecord(double t) {
  InspectionRecord r;
  r.model = "rsa";
  LayerInspection layer;
  HeadInspection regular;
  regular.has_rem = true;
  regular.rem_kind = "regular";
  regular.lambda = 0.5 + 0.1 * t;
  regular.gate = 0.3 + 0.01 * t;
  HeadInspection cyc;
  cyc.has_rem = true;
  cyc.rem_kind = "cos";
  cyc.gamma = 0.9 - 0.02 * t;
  cyc.theta = 0.52 + 0.05 * t;
  cyc.gate = 0.7 - 0.03 * t;
  layer.heads = {regular, cyc, HeadInspection{}};
  r.layers.push_back(layer);
  return r;
}

void saveShot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("RSALAB_WIDGET_SHOTS");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QTest::qWait(50);
  QVERIFY(w->grab().save(dir + "/" + name + ".png"));
}

}  // namespace

class TestRemParameterView : public QObject {
  Q_OBJECT
 private slots:
  void threeSnapshotsGiveThreePoints() {
    SnapshotHistory history;
    const qint64 steps[] = {1, 100, 200};
    for (int i = 0; i < 3; ++i) history.insert(/*run=*/0, steps[i], rsaRecord(i));
    RemParameterView view;
    view.resize(700, 400);
    view.setRecords(history.records(0));
    view.setGroundTruth({0.8}, {0.95}, {0.5236});
    view.show();
    view.flush();
    // H0: λ, σ(µ); H1: γ, θ, σ(µ); H2 has no REM.
    QCOMPARE(view.graphCount(), 5);
    QVERIFY(view.graph(0, 0, Q::kGamma) == nullptr);
    QVERIFY(view.graph(0, 2, Q::kGate) == nullptr);
    QCOMPARE(view.graph(0, 1, Q::kTheta)->name(), QString("L0 H1 θ"));
    QCOMPARE(view.groundTruthLineCount(), 3);
    for (int i = 0; i < 3; ++i) {
      const InspectionRecord& rec = *history.at(0, steps[i]);
      const auto& heads = rec.layers[0].heads;
      auto check = [&](Q q, int head, double expected) {
        QCPGraph* g = view.graph(0, head, q);
        QVERIFY(g);
        QCOMPARE(g->data()->size(), 3);
        const auto point = g->data()->at(i);
        QCOMPARE(point->key, double(steps[i]));
        QCOMPARE(point->value, expected);
      };
      check(Q::kLambda, 0, heads[0].lambda);
      check(Q::kGate, 0, heads[0].gate);
      check(Q::kGamma, 1, heads[1].gamma);
      check(Q::kTheta, 1, heads[1].theta);
      check(Q::kGate, 1, heads[1].gate);
    }
    saveShot(&view, "rem_parameter_view");
    // Appending one more snapshot extends every graph; clearing empties the plot.
    view.append(300, rsaRecord(3));
    QCOMPARE(view.graph(0, 1, Q::kGamma)->data()->size(), 4);
    view.clear();
    QCOMPARE(view.graphCount(), 0);
  }
};

QTEST_MAIN(TestRemParameterView)
#include "test_widget_rem_parameter_view.moc"
