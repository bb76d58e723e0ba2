// SPDX-License-Identifier: GPL-3.0-or-later
// RemParameterView: one graph per REM head and quantity, holding exactly the records' numbers;
// ground-truth reference lines; the head table, the per-kind match against the truth (|Δ| in the
// parameters' own units, relative Frobenius error) and the recovery plot, checked against hand
// computations.
#include <qcustomplot.h>

#include <QTableWidget>
#include <QtTest>
#include <cmath>

#include "support/test_registry.h"
#include "widgets/rem_parameter_view.h"
#include "widgets/rem_recovery_plot.h"
#include "widgets/snapshot_history.h"
#include "widgets/true_kernel_plot.h"

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
  regular.rem_kind = RemKind::Regular;
  regular.lambda = 0.5 + 0.1 * t;
  regular.gate = 0.3 + 0.01 * t;
  HeadInspection cyc;
  cyc.has_rem = true;
  cyc.rem_kind = RemKind::Cos;
  cyc.gamma = 0.9 - 0.02 * t;
  cyc.theta = 0.52 + 0.05 * t;
  cyc.gate = 0.7 - 0.03 * t;
  layer.heads = {regular, cyc, HeadInspection{}};
  r.layers.push_back(layer);
  return r;
}

GroundTruth truthOf(std::vector<TrueRem> components) {
  GroundTruth t;
  t.components = std::move(components);
  t.meaning = "generating REM";
  return t;
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
  // A task without REM truth (a real series) hides the recovery plot inside its splitter; grabbing
  // the view (as the app's screenshots do) must not replot it into an empty paint buffer.
  void hiddenRecoveryPlotGrabsWithoutPainterWarnings() {
    static QStringList warnings;
    warnings.clear();
    const auto previous = qInstallMessageHandler(
        [](QtMsgType, const QMessageLogContext&, const QString& text) { warnings << text; });
    RemParameterView view;
    view.resize(900, 600);
    view.setGroundTruth(GroundTruth{});
    const QPixmap shot = view.grab();
    qInstallMessageHandler(previous);
    QVERIFY(!shot.isNull());
    for (const auto& w : warnings) QVERIFY2(!w.contains("QPainter::begin"), qPrintable(w));
  }
  void threeSnapshotsGiveThreePoints() {
    SnapshotHistory history;
    const qint64 steps[] = {1, 100, 200};
    for (int i = 0; i < 3; ++i) history.insert(/*run=*/0, steps[i], rsaRecord(i));
    RemParameterView view;
    view.resize(700, 400);
    view.setRecords(history.records(0));
    view.setGroundTruth(truthOf({{RemKind::Regular, 0.8, 0},
                                 {RemKind::Cos, 0.95, 0.5236},
                                 {RemKind::Sin, 0.95, 0.5236}}),
                        /*length=*/16);
    view.show();
    view.flush();
    // H0: λ, σ(µ); H1: γ, θ, σ(µ); H2 has no REM.
    QCOMPARE(view.graphCount(), 5);
    QVERIFY(view.graph(0, 0, Q::kGamma) == nullptr);
    QVERIFY(view.graph(0, 2, Q::kGate) == nullptr);
    QCOMPARE(view.graph(0, 1, Q::kTheta)->name(), QString("L0 H1 θ"));
    QCOMPARE(view.groundTruthLineCount(), 3);  // λ, and γ, θ once for the cos/sin pair
    // The recovery plot: |Δλ| for H0, |Δγ| and |Δθ| for H1, one point per snapshot.
    QCOMPARE(view.recoveryPlot()->graphCount(), 3);
    using D = RemRecoveryPlot::Delta;
    QCPGraph* dl = view.recoveryPlot()->graph(0, 0, D::kBase);
    QVERIFY(dl);
    QCOMPARE(dl->data()->size(), 3);
    QVERIFY(std::abs(dl->data()->at(1)->value - std::abs(0.6 - 0.8)) < 1e-12);
    QVERIFY(std::abs(view.recoveryPlot()->graph(0, 1, D::kTheta)->data()->at(2)->value -
                     std::abs(0.62 - 0.5236)) < 1e-12);
    QCOMPARE(view.recoveryPlot()->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // Selecting H1 in the table draws only H1's curves (and legend entries) in both plots.
    view.headTable()->selectRow(1);
    QVERIFY(!view.graph(0, 0, Q::kLambda)->visible());
    QVERIFY(view.graph(0, 1, Q::kGamma)->visible());
    QVERIFY(!view.recoveryPlot()->graph(0, 0, D::kBase)->visible());
    QVERIFY(view.recoveryPlot()->graph(0, 1, D::kTheta)->visible());
    view.headTable()->clearSelection();
    QVERIFY(view.graph(0, 0, Q::kLambda)->visible());
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
    const auto P = remClosedForm(RemKind::Cos, 0.9, 0.3, 1, 4);
    QCOMPARE(P.size(), size_t(16));
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        const double want = i > j ? std::pow(0.9, i - j) * std::cos(0.3 * (i - j)) : 0.0;
        QVERIFY2(std::abs(P[size_t(i * 4 + j)] - want) < 1e-12,
                 qPrintable(QString("(%1,%2)").arg(i).arg(j)));
      }
    }
    // Dilation 2, regular λ = −0.5, T = 5: lags 2 and 4 only, at k = 1 and 2.
    const auto D = remClosedForm(RemKind::Regular, -0.5, 0, 2, 5);
    QCOMPARE(D[size_t(2 * 5 + 0)], -0.5);
    QCOMPARE(D[size_t(4 * 5 + 0)], 0.25);
    QCOMPARE(D[size_t(3 * 5 + 2)], 0.0);  // lag 1: not a multiple of 2
    QCOMPARE(D[size_t(4 * 5 + 3)], 0.0);
  }
  void matchMatchesAHandComputation() {
    // T = 3: a regular REM holds (1,0) = (2,1) = λ and (2,0) = λ².
    // Learned λ = 0.5: P = (0.5, 0.5, 0.25). True λ = 0.8: P* = (0.8, 0.8, 0.64), ‖P*‖ = √1.6896.
    // P − P* = (−0.3, −0.3, −0.39): ‖P − P*‖ = √0.3321.
    HeadInspection head;
    head.has_rem = true;
    head.rem_kind = RemKind::Regular;
    head.lambda = 0.5;
    RemMatch m = matchRem(head, truthOf({{RemKind::Regular, 0.8, 0}}), 3);
    QVERIFY(m.matched);
    QVERIFY(std::abs(m.delta_base - 0.3) < 1e-12);
    QCOMPARE(m.delta_theta, 0.0);
    QVERIFY(std::abs(m.rel_frobenius - std::sqrt(0.3321) / std::sqrt(1.6896)) < 1e-12);
    // Dilation 2: only (2,0) = λ = 0.5 is left: P − P* = (−0.8, −0.8, 0.5 − 0.64).
    head.dilation = 2;
    m = matchRem(head, truthOf({{RemKind::Regular, 0.8, 0}}), 3);
    QVERIFY(std::abs(m.rel_frobenius - std::sqrt(0.64 + 0.64 + 0.0196) / std::sqrt(1.6896)) <
            1e-12);
    // The closest true component of the same kind wins: learned 0.75 against λ* ∈ {0.3, 0.8}.
    head.dilation = 1;
    head.lambda = 0.75;
    m = matchRem(head, truthOf({{RemKind::Regular, 0.3, 0}, {RemKind::Regular, 0.8, 0}}), 16);
    QCOMPARE(m.truth.base, 0.8);
    QVERIFY(std::abs(m.delta_base - 0.05) < 1e-12);
    // Kinds are never mixed: a cos head against a truth of a regular and a sin term has no match,
    // and says so instead of giving a number.
    HeadInspection cyc;
    cyc.has_rem = true;
    cyc.rem_kind = RemKind::Cos;
    cyc.gamma = 0.9;
    cyc.theta = 0.5236;
    const GroundTruth regular_and_sin =
        truthOf({{RemKind::Regular, 0.9, 0}, {RemKind::Sin, 0.9, 0.5236}});
    m = matchRem(cyc, regular_and_sin, 16);
    QVERIFY(m.has_rem && !m.matched);
    QVERIFY(std::isnan(m.maxDelta()));
    QCOMPARE(m.status(), std::string("no true component of this kind"));
    // The same head against its own cos truth: exact, |Δγ| = |Δθ| = 0 and zero Frobenius error;
    // θ off by 0.1 rad shows as |Δθ| = 0.1.
    m = matchRem(cyc, truthOf({{RemKind::Cos, 0.9, 0.5236}}), 16);
    QVERIFY(m.matched && m.maxDelta() == 0.0 && m.rel_frobenius == 0.0);
    cyc.theta = 0.6236;
    m = matchRem(cyc, truthOf({{RemKind::Cos, 0.9, 0.5236}}), 16);
    QVERIFY(std::abs(m.delta_theta - 0.1) < 1e-12 && m.delta_base == 0.0);
    QVERIFY(m.rel_frobenius > 0);
    // No REM, or a too short T.
    QVERIFY(!matchRem(HeadInspection{}, regular_and_sin, 16).has_rem);
    QVERIFY(!matchRem(cyc, truthOf({{RemKind::Cos, 0.9, 0.5236}}), 1).matched);
  }
  void theOldCosineScoreIsGone() {
    // Why the cosine between REMs was replaced: at T = 64 it scores λ = 0.6 and λ = 0.9 against a
    // true λ = 0.8 almost alike (0.93 vs 0.94). The Frobenius error and |Δλ| tell them apart.
    const auto t = truthOf({{RemKind::Regular, 0.8, 0}});
    const RemMatch lo = matchRem(RemKind::Regular, 0.6, 0, 1, t, 64);
    const RemMatch hi = matchRem(RemKind::Regular, 0.9, 0, 1, t, 64);
    QVERIFY(std::abs(lo.delta_base - 0.2) < 1e-12 && std::abs(hi.delta_base - 0.1) < 1e-12);
    QVERIFY(lo.rel_frobenius > 0.5 && hi.rel_frobenius > 0.5);
  }
  void tableShowsTheRecordsNumbersAndTheScore() {
    RemParameterView view;
    view.resize(900, 400);
    view.append(10, rsaRecord(0));
    view.append(20, rsaRecord(1));
    view.setGroundTruth(truthOf({{RemKind::Regular, 0.8, 0}}), /*length=*/3);
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
    // λ = 0.6 against the true 0.8 at T = 3, by hand: P − P* = (−0.2, −0.2, 0.36 − 0.64).
    const double want = std::sqrt(0.04 + 0.04 + 0.0784) / std::sqrt(1.6896);
    QVERIFY(std::abs(view.match(0, 0).rel_frobenius - want) < 1e-9);
    QCOMPARE(table->item(0, RemParameterView::kFrobenius)->text(), QString::number(want, 'g', 2));
    QCOMPARE(table->item(0, RemParameterView::kTruth)->text(), QString("λ*=0.800"));
    QCOMPARE(table->item(0, RemParameterView::kDelta)->text(), QString("|Δλ|=0.2"));
    // H1 is a cos head and the truth has no cos term: said, not scored.
    QCOMPARE(table->item(1, RemParameterView::kTruth)->text(),
             QString("no true component of this kind"));
    QVERIFY(table->item(1, RemParameterView::kDelta)->text().isEmpty());
    QVERIFY(view.truthLabel()->text().contains("generating REM"));
    // Scrubbing back shows that step's numbers; a newer snapshot does not pull the table forward.
    view.setCurrentRecord(10, rsaRecord(0));
    QCOMPARE(table->item(0, RemParameterView::kLearned)->text(), QString("λ=0.500"));
    view.append(30, rsaRecord(2));
    QCOMPARE(view.currentStep(), qint64(10));
    saveShot(&view, "rem_parameter_view_table");
  }
  // A process without an REM form (a power-law teacher): no head is matched, the table and the
  // label say "no REM form", the recovery plot gives way to the true kernel with its reach; a
  // process without a kernel (nonlinear) shows the reach alone.
  void aProcessWithoutAnRemFormIsNeverMatched() {
    RemParameterView view;
    view.resize(900, 400);
    view.append(10, rsaRecord(1));
    GroundTruth truth;
    truth.no_rem_form = true;
    truth.kernel = {0.5, 0.25, 0.125, 0.0625};
    truth.reach = 3;
    truth.meaning = "the teacher process";
    truth.description = "power w_k ∝ k^(−1.1) (no REM form), reach 3 lags";
    view.setGroundTruth(truth, 4);
    view.show();
    view.flush();
    QVERIFY(view.truthLabel()->text().contains("no REM form"));
    QVERIFY(view.truthLabel()->text().contains("true kernel"));
    for (int row = 0; row < view.headTable()->rowCount(); ++row) {
      QCOMPARE(view.headTable()->item(row, RemParameterView::kTruth)->text(),
               QString("no REM form"));
      QVERIFY(view.headTable()->item(row, RemParameterView::kDelta)->text().isEmpty());
      QVERIFY(!view.match(0, row).matched);
    }
    QVERIFY(!view.recoveryPlot()->isVisible());
    QVERIFY(view.kernelPlot()->isVisible());
    QCOMPARE(view.kernelPlot()->kernelPoints(), 4);
    QCOMPARE(view.groundTruthLineCount(), 0);  // no λ/γ/θ lines: there are none to draw
    truth.kernel.clear();
    view.setGroundTruth(truth, 4);
    QVERIFY(view.truthLabel()->text().contains("the reach (no linear kernel)"));
    QCOMPARE(view.kernelPlot()->kernelPoints(), 0);
    view.setGroundTruth(truthOf({{RemKind::Regular, 0.8, 0}}), 4);  // an REM truth again
    QVERIFY(!view.kernelPlot()->isVisible() && view.recoveryPlot()->isVisible());
  }
};

RSALAB_REGISTER_TEST(TestRemParameterView, QTEST_MAIN)
#include "test_widget_rem_parameter_view.moc"
