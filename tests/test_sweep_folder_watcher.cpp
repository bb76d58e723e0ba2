// SPDX-License-Identifier: GPL-3.0-or-later
// The app watching a sweep folder fill in: cell files written after the folder is opened become
// points of the sample-efficiency view (no restart, no reload), a damaged or foreign cell file is
// reported and skipped, the status line counts done / total, and with submissions recorded it
// shows Slurm's running / pending counts from squeue (here a stand-in script on PATH).
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/sweep_folder_watcher.h"
#include "app/gui/sweep_panel.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/sweep/sweep_cell.h"
#include "widgets/sample_efficiency_view.h"

using namespace rsalab;

namespace {

SweepPlan tinyPlan(int64_t seeds = 2, bool tuned = false) {
  SweepOptions o;
  o.base = defaultSweepConfig();
  o.base.task.length = 16;
  o.base.trainer.max_steps = 20;
  o.models = {"gru", "rsa"};
  o.sizes = {16, 32, 64};
  o.seeds = seeds;
  for (const std::string m : {"gru", "rsa"}) {  // as `rsalab-cli tune` writes them
    if (!tuned) break;
    TunedModel t;
    t.model = m;
    t.base_config = toJson(withTrialKnobs(o.base, m, {}));
    t.trials = 1;
    t.budget = 20;
    t.rungs = successiveHalvingRungs(1, 20);
    t.trial_list = {TunedTrial{0, {{"trainer.learning_rate", 0.004}}, 100, 0, {0.5}, ""}};
    t.chosen = 0;
    o.tuned.models.push_back(t);
  }
  return makeSweepPlan(o);
}

void writeCell(const std::string& dir, const SweepPlan& plan, int64_t index,
               const std::string& error = "", const std::string& hash = "") {
  const SweepCell& cell = plan.cells[static_cast<size_t>(index)];
  SweepCellResult c;
  c.plan_hash = hash.empty() ? plan.hash : hash;
  c.index = index;
  c.row.run = index;
  c.row.model = cell.model;
  c.row.size = cell.size;
  c.row.seed = cell.seed;
  c.row.test_loss = 1.0 / std::sqrt(static_cast<double>(cell.size));
  c.row.steps = 20;
  c.row.stop_reason = StopReason::MaxSteps;
  c.row.error = error;
  c.row.train_curve.push_back({1, 4, 0.9, 1e-3, 0.5, 0.01});
  c.started_at = 1;
  c.finished_at = 2;
  writeSweepCell(dir, c);
}

}  // namespace

class TestSweepFolderWatcher : public QObject {
  Q_OBJECT
 private slots:
  void viewFillsInAsCellsAppear() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const SweepPlan plan = tinyPlan();
    writeSweepPlan(dir, plan);
    for (int64_t i : {0, 1, 2}) writeCell(dir, plan, i);
    SweepPanel panel;
    panel.folderWatcher()->setPollMilliseconds(100);
    QSignalSpy problems(panel.folderWatcher(), &SweepFolderWatcher::problem);
    QString error;
    QVERIFY2(panel.watchFolder(tmp.path(), &error), qPrintable(error));
    QTRY_COMPARE(panel.rows().size(), size_t{3});
    QTRY_VERIFY2(panel.folderWatcher()->statusLine().contains("3 / 12 cells done"),
                 qPrintable(panel.folderWatcher()->statusLine()));
    // More cells arrive (as from a cluster): they appear without reopening.
    for (int64_t i : {3, 4, 5, 6}) writeCell(dir, plan, i);
    QTRY_COMPARE(panel.rows().size(), size_t{7});
    panel.view()->flush();
    QCOMPARE(panel.view()->pointCount(), 7);
    QVERIFY(panel.row(6) != nullptr);
    // A failed run is counted done but is not a point; another plan's cell is reported once.
    writeCell(dir, plan, 7, "out of memory");
    writeCell(dir, plan, 8, "", tinyPlan(1).hash);
    QTRY_COMPARE(problems.count(), 1);
    QVERIFY(problems.first().first().toString().contains("computed for another plan"));
    QTRY_VERIFY(panel.folderWatcher()->statusLine().contains("8 / 12 cells done"));
    QCOMPARE(panel.rows().size(), size_t{7});
    QTest::qWait(300);  // a few more polls: the foreign file is not reported again
    QCOMPARE(problems.count(), 1);
  }
  // A folder of a tuned sweep says so above its figures (the plan carries the tuned set).
  void aTunedFolderSaysSoInItsTitle() {
    QTemporaryDir tmp;
    writeSweepPlan(tmp.path().toStdString(), tinyPlan(2, /*tuned=*/true));
    SweepPanel panel;
    QString error;
    QVERIFY2(panel.watchFolder(tmp.path(), &error), qPrintable(error));
    QVERIFY2(panel.view()->title().contains("tuned (budget: 1 trials"),
             qPrintable(panel.view()->title()));
    QTemporaryDir plain;
    writeSweepPlan(plain.path().toStdString(), tinyPlan());
    QVERIFY(panel.watchFolder(plain.path(), &error));
    QVERIFY(!panel.view()->title().contains("tuned"));
  }
  void slurmStatesFromSqueue() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const SweepPlan plan = tinyPlan();
    writeSweepPlan(dir, plan);
    for (int64_t i = 0; i < 9; ++i) writeCell(dir, plan, i);
    markSweepCellStarted(dir, 9, "77_9");
    SlurmSubmission s;
    s.job_id = "77";
    for (int64_t i = 0; i < plan.cellCount(); ++i) s.indices.push_back(i);
    appendSlurmSubmission(dir, s);
    // A stand-in squeue: task 9 was cancelled, 10 runs, 11 waits.
    const QString bin = tmp.path() + "/bin";
    QDir().mkpath(bin);
    writeFileAtomically((bin + "/squeue").toStdString(),
                        "#!/bin/sh\nprintf '77_9|CANCELLED\\n77_10|RUNNING\\n77_11|PENDING\\n'\n");
    QFile::setPermissions(bin + "/squeue", QFile::ReadOwner | QFile::ExeOwner);
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.toUtf8() + ":" + path);
    SweepFolderWatcher watcher;
    QString error;
    QVERIFY2(watcher.open(tmp.path(), &error), qPrintable(error));
    QTRY_VERIFY2(watcher.statusLine().contains("9 / 12 cells done · Slurm: 1 running, 1 pending, "
                                               "1 failed, 0 missing"),
                 qPrintable(watcher.statusLine()));
    qputenv("PATH", path);
  }
  void badFolderSaysWhy() {
    QTemporaryDir tmp;
    MainWindow window;
    QString error;
    QVERIFY(!window.openSweepFolder(tmp.path() + "/none", &error));
    QVERIFY2(error.contains("no plan in"), qPrintable(error));
    writeFileAtomically((tmp.path() + "/plan.json").toStdString(), "{\"format\": 1}");
    QVERIFY(!window.openSweepFolder(tmp.path(), &error));
    QVERIFY2(error.contains("plan.json") && error.contains("format"), qPrintable(error));
  }
};

QTEST_MAIN(TestSweepFolderWatcher)
#include "test_sweep_folder_watcher.moc"
