// RemParameterView: one graph per REM head and quantity, holding exactly the records' numbers;
// ground-truth reference lines; the head table and the learned-vs-true REM similarity, checked
// against hand computations.
#include <qcustomplot.h>

#include <QTableWidget>
#include <QtTest>
#include <cmath>

#include "widgets/rem_parameter_view.h"
#include "widgets/rem_similarity.h"
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
  void closedFormRemMatchesTheDefinition() {
    // T = 4, cos, γ = 0.9, θ = 0.3, no dilation: P[i, j] = 0.9^(i−j) cos(0.3 (i−j)) for i > j.
    const auto P = remClosedForm("cos", 0.9, 0.3, 1, 4);
    QCOMPARE(P.size(), size_t(16));
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        const double want = i > j ? std::pow(0.9, i - j) * std::cos(0.3 * (i - j)) : 0.0;
        QVERIFY2(std::abs(P[size_t(i * 4 + j)] - want) < 1e-12,
                 qPrintable(QString("(%1,%2)").arg(i).arg(j)));
      }
    }
    // Dilation 2, regular λ = −0.5, T = 5: lags 2 and 4 only, at k = 1 and 2.
    const auto D = remClosedForm("regular", -0.5, 0, 2, 5);
    QCOMPARE(D[size_t(2 * 5 + 0)], -0.5);
    QCOMPARE(D[size_t(4 * 5 + 0)], 0.25);
    QCOMPARE(D[size_t(3 * 5 + 2)], 0.0);  // lag 1: not a multiple of 2
    QCOMPARE(D[size_t(4 * 5 + 3)], 0.0);
  }
  void similarityMatchesAHandComputation() {
    // T = 3: a regular REM holds (1,0) = (2,1) = λ and (2,0) = λ².
    // Learned λ = 0.5: A = (0.5, 0.5, 0.25), ‖A‖ = √0.5625 = 0.75.
    // True λ = 0.8:    B = (0.8, 0.8, 0.64), ‖B‖ = √1.6896.
    // A·B = 0.4 + 0.4 + 0.16 = 0.96  ⇒  sim = 0.96 / (0.75 √1.6896) ≈ 0.98473.
    HeadInspection head;
    head.has_rem = true;
    head.rem_kind = "regular";
    head.lambda = 0.5;
    std::string matched;
    const double sim = remTruthSimilarity(head, RemTruth{{0.8}, {}, {}}, 3, &matched);
    QVERIFY(std::abs(sim - 0.96 / (0.75 * std::sqrt(1.6896))) < 1e-12);
    QCOMPARE(matched, std::string("λ=0.8"));
    // Dilation 2: only (2,0) = λ = 0.5 is left; A·B = 0.5 · 0.64 = 0.32, ‖A‖ = 0.5.
    head.dilation = 2;
    QVERIFY(std::abs(remTruthSimilarity(head, RemTruth{{0.8}, {}, {}}, 3) -
                     0.32 / (0.5 * std::sqrt(1.6896))) < 1e-12);
    // The best true component wins: a learned cos REM equal to the truth's cos REM scores 1, and
    // the matching label names it; a sin truth of the same pair scores lower.
    HeadInspection cyc;
    cyc.has_rem = true;
    cyc.rem_kind = "cos";
    cyc.gamma = 0.9;
    cyc.theta = 0.5236;
    const RemTruth truth{{0.3}, {0.9}, {0.5236}};
    QVERIFY(std::abs(remTruthSimilarity(cyc, truth, 16, &matched) - 1.0) < 1e-12);
    QCOMPARE(matched, std::string("cos γ=0.9 θ=0.524"));
    // No REM, no truth or a too short T: undefined.
    QVERIFY(std::isnan(remTruthSimilarity(HeadInspection{}, truth, 16)));
    QVERIFY(std::isnan(remTruthSimilarity(cyc, RemTruth{}, 16)));
    QVERIFY(std::isnan(remTruthSimilarity(cyc, truth, 1)));
  }
  void tableShowsTheRecordsNumbersAndTheScore() {
    RemParameterView view;
    view.resize(900, 400);
    view.append(10, rsaRecord(0));
    view.append(20, rsaRecord(1));
    view.setGroundTruth({0.8}, {}, {}, /*length=*/3);
    view.show();
    view.flush();
    auto* table = view.headTable();
    QCOMPARE(table->rowCount(), 2);  // the two REM heads; the plain head is not listed
    const InspectionRecord newest = rsaRecord(1);
    QCOMPARE(view.currentStep(), qint64(20));
    QCOMPARE(table->item(0, RemParameterView::kHead)->text(), QString("L0 H0"));
    QCOMPARE(table->item(0, RemParameterView::kLearned)->text(),
             QString("λ=%1").arg(newest.layers[0].heads[0].lambda, 0, 'f', 3));
    QCOMPARE(table->item(1, RemParameterView::kGate)->text(),
             QString::number(newest.layers[0].heads[1].gate, 'f', 3));
    // λ = 0.6 against the true 0.8 at T = 3, by hand: A = (0.6, 0.6, 0.36), B = (0.8, 0.8, 0.64).
    const double want =
        (0.48 + 0.48 + 0.36 * 0.64) / (std::sqrt(0.36 + 0.36 + 0.1296) * std::sqrt(1.6896));
    QVERIFY(std::abs(view.similarity(0, 0) - want) < 1e-9);
    QCOMPARE(table->item(0, RemParameterView::kSimilarity)->text(), QString::number(want, 'f', 3));
    // Scrubbing back shows that step's numbers; a newer snapshot does not pull the table forward.
    view.setCurrentRecord(10, rsaRecord(0));
    QCOMPARE(table->item(0, RemParameterView::kLearned)->text(), QString("λ=0.500"));
    view.append(30, rsaRecord(2));
    QCOMPARE(view.currentStep(), qint64(10));
    saveShot(&view, "rem_parameter_view_table");
  }
};

QTEST_MAIN(TestRemParameterView)
#include "test_widget_rem_parameter_view.moc"
