// SPDX-License-Identifier: GPL-3.0-or-later
// Baselines on screen: the loss view's labelled reference lines, the sample-efficiency
// view's grey reference curves and the runs table's skill column.
#include <qcustomplot.h>

#include <QtTest>
#include <cmath>

#include "support/test_registry.h"
#include "widgets/loss_curve_view.h"
#include "widgets/runs_table.h"
#include "widgets/sample_efficiency_view.h"

using namespace rsalab;

class TestWidgetReferenceLines : public QObject {
  Q_OBJECT
 private slots:
  void lossViewDrawsLabelledLinesOncePerValue() {
    LossCurveView view;
    view.resize(800, 500);
    view.addRun(0, "rsa s0");
    view.addRun(1, "lstm s0");
    for (int s = 1; s <= 50; ++s) {
      view.appendTrain(0, s, s * 32, 1.0 / s);
      view.appendTrain(1, s, s * 32, 2.0 / s);
    }
    view.appendValidation(0, 50, 1600, 0.05);
    const std::vector<ReferenceLine> lines = {{"persistence", 0.8}, {"AR(17) least squares", 0.3}};
    view.setReferenceLines(0, lines);
    view.setReferenceLines(1, lines);  // the same dataset: drawn once
    view.flush();
    QCOMPARE(view.drawnReferenceLabels(),
             (QStringList{"persistence 0.8", "AR(17) least squares 0.3"}));
    // The fitted y range shows every line.
    QVERIFY(view.plot()->yAxis->range().contains(0.8));
    view.setRunVisible(0, false);
    view.flush();
    QCOMPARE(view.drawnReferenceLabels().size(), 2);  // run 1 still shows them
    view.setRunVisible(1, false);
    view.flush();
    QVERIFY(view.drawnReferenceLabels().isEmpty());
    view.setRunVisible(1, true);
    view.setReferenceLines(1, {});
    view.flush();
    QVERIFY(view.drawnReferenceLabels().isEmpty());  // run 0 hidden, run 1 has none
    // The best reference is named as such; the legend sits beside the data, not over it.
    view.setReferenceLines(1, {{"ETS(M,A,M)", 0.2, /*best=*/true}, {"persistence", 0.8}});
    view.flush();
    QCOMPARE(view.drawnReferenceLabels(),
             (QStringList{"persistence 0.8", "best reference: ETS(M,A,M) 0.2"}));
    QVERIFY(view.plot()->legend->layout() == view.plot()->plotLayout());  // not the axis inset
    view.removeRun(0);
    view.clear();
    view.flush();
    QVERIFY(view.drawnReferenceLabels().isEmpty());
  }

  void sampleEfficiencyDrawsReferencesGreyWithoutFit() {
    SampleEfficiencyView view;
    view.resize(800, 500);
    for (double n : {16.0, 64.0, 256.0}) {  // a power law needs 3 sizes
      view.addPoint({"rsa", n, 0, 1.0 / n, 1});
      view.addPoint({"ar_lsq", n, 0, 0.5 / n, -1, /*reference=*/true});
      view.addPoint({"persistence", n, 0, 0.2, -1, /*reference=*/true});
    }
    view.flush();
    QVERIFY(view.isReference("ar_lsq") && !view.isReference("rsa"));
    QCOMPARE(view.models(), (QStringList{"rsa", "ar_lsq", "persistence"}));  // references last
    QVERIFY(view.legendText("ar_lsq").contains("reference"));
    QVERIFY(!view.legendText("ar_lsq").contains("b ="));
    QVERIFY(view.legendText("rsa").contains("b ="));
    QCOMPARE(view.meanGraphCount(), 3);
  }

  // The runs table is a view over the RunStore: its cells are the store's text for each Run.
  void runsTableShowsSkill() {
    RunStore store;
    RunsTable table;
    table.setStore(&store);
    Run run;
    run.id = RunId(RunSource::Session, 3);
    run.what.model = "rsa";
    run.what.train_size = 75;  // the N the run has, with the N asked for in its tooltip
    run.what.requested_train_size = 1024;
    run.what.references = {{"ar_lsq", "AR(p)", 0.1, 0.1}, {"persistence", "persistence", 0.6, 0.6}};
    run.now.validation_loss = 0.075;  // 1 − 0.075 / 0.1 vs the best reference, 1 − 0.075 / 0.6
    store.add(run);
    QCOMPARE(table.rowCount(), 1);
    QCOMPARE(table.text(0, RunStore::kN), QString("75"));
    QVERIFY(table.toolTip(0, RunStore::kN).contains("asked for 1024"));
    QCOMPARE(table.text(0, RunStore::kSkillPersistence), QString("+0.875"));
    QCOMPARE(table.text(0, RunStore::kSkill), QString("+0.250"));
    QVERIFY(table.toolTip(0, RunStore::kSkill).startsWith("validation"));
    QVERIFY(table.toolTip(0, RunStore::kModel).contains("session run 3"));
    RunStatus none;
    store.setStatus(run.id, none);
    QCOMPARE(table.text(0, RunStore::kSkill), QString("–"));
    QVERIFY(
        store.headerData(RunStore::kSkill, Qt::Horizontal).toString().contains("best reference"));
    // The check box hides the run: the store's CheckStateRole changes, which the loss view follows.
    QSignalSpy changed(&store, &RunStore::dataChanged);
    QVERIFY(store.setData(store.index(0, RunStore::kVisible), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(changed.size(), 1);
    QVERIFY(changed.at(0).at(2).value<QList<int>>().contains(Qt::CheckStateRole));
    QVERIFY(!store.isVisible(run.id));
  }
};

RSALAB_REGISTER_TEST(TestWidgetReferenceLines, QTEST_MAIN)
#include "test_widget_reference_lines.moc"
