// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI's training worker under faults: an exception in one run's step (c10::Error,
// std::bad_alloc, a shape mismatch) fails only that run with its message; a NaN loss pauses only
// that run as "diverged" and Restore resumes it from its last good state; the others finish.
// Shutdown: destroying the controller during training stops the worker thread in a bounded time
// and the worker thread runs to its end. Runs stepping in parallel give the interleaved numbers.
#include <QDir>
#include <QElapsedTimer>
#include <QPointer>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "app/gui/training_controller.h"
#include "app/gui/training_worker.h"
#include "engine/runtime.h"
#include "widgets/run_store.h"

using namespace rsalab;

namespace {

RunConfig smallRun(int64_t steps) {
  RunConfig c;
  c.task.name = "seasonal";
  c.task.length = 16;
  c.task.validation_size = 16;
  c.task.test_size = 16;
  c.model.d_model = 16;
  c.model.heads = 4;
  c.model.layers = 1;
  c.train_size = 64;
  c.trainer.batch_size = 8;
  c.trainer.max_steps = steps;
  c.trainer.eval_every = 10;
  c.trainer.snapshot_every = 0;
  return c;
}

TrainingFaults throwAt(int64_t step, const std::string& kind) {
  TrainingFaults f;
  f.throw_at_step = step;
  f.throw_kind = kind;
  return f;
}

}  // namespace

class TestTrainingWorker : public QObject {
  Q_OBJECT
 private slots:
  void faultsStayInTheirRunAndDivergedRunsCanBeRestored() {
    // Declared in this order so that queued statuses still in flight when the controller goes
    // are dropped with `receiver` before `last` is destroyed.
    std::map<int, RunStatus> last;
    QObject receiver;
    TrainingController controller;
    connect(controller.worker(), &TrainingWorker::status, &receiver,
            [&last](int run, const RunStatus& s) { last[run] = s; });
    TrainingFaults nan;
    nan.nan_loss_at_step = 15;
    controller.setFaultsForTests(0, nan);
    controller.setFaultsForTests(1, throwAt(5, "c10"));
    controller.setFaultsForTests(2, throwAt(5, "bad_alloc"));
    controller.setFaultsForTests(3, throwAt(5, "shape"));
    controller.start(smallRun(40), {"rnn", "gru", "lstm", "transformer", "rsa"}, 1);
    auto stateOf = [&last](int run) { return last.count(run) ? last[run].state : RunState::Idle; };
    QTRY_VERIFY_WITH_TIMEOUT(stateOf(4) == RunState::Finished && stateOf(0) == RunState::Diverged &&
                                 stateOf(1) == RunState::Failed && stateOf(2) == RunState::Failed &&
                                 stateOf(3) == RunState::Failed,
                             60000);
    QCOMPARE(last[4].step, qint64{40});
    QCOMPARE(last[0].step, qint64{15});
    auto message = [&last](int run) { return QString::fromStdString(last[run].message); };
    QVERIFY2(message(0).contains("diverged at step 15") && message(0).contains("step 10"),
             qPrintable(message(0)));
    QVERIFY2(message(1).contains("injected fault at step 5"), qPrintable(message(1)));
    QVERIFY2(message(2).contains("out of memory"), qPrintable(message(2)));
    QVERIFY2(message(3).contains("shapes cannot be multiplied"), qPrintable(message(3)));
    QCOMPARE(last[1].step, qint64{4});  // the failing step did not count
    // Restore: the diverged run goes back to step 10 and trains to the end (the fault fired once).
    controller.restoreLastGood(0);
    QTRY_VERIFY_WITH_TIMEOUT(stateOf(0) == RunState::Finished, 60000);
    QCOMPARE(last[0].step, qint64{40});
    QCOMPARE(stateOf(1), RunState::Failed);  // failed runs are not restored
  }

  // A snapshot's record is copied once in the worker and shared: two receivers get the same
  // record (not two copies); validation metrics carry the samples seen when they ran (batch 8).
  void snapshotsShareOneRecordAndEvaluationsCarrySamplesSeen() {
    std::vector<const InspectionRecord*> first, second;
    std::vector<EvalMetrics> evals;
    bool finished = false;
    QObject receiver;
    TrainingController controller;
    auto* worker = controller.worker();
    connect(worker, &TrainingWorker::snapshot, &receiver,
            [&first](const InspectionSnapshot& s) { first.push_back(s.record.get()); });
    connect(worker, &TrainingWorker::snapshot, &receiver,
            [&second](const InspectionSnapshot& s) { second.push_back(s.record.get()); });
    connect(worker, &TrainingWorker::metrics, &receiver, [&evals](const MetricsBatch& b) {
      evals.insert(evals.end(), b.evals.begin(), b.evals.end());
    });
    connect(worker, &TrainingWorker::status, &receiver, [&finished](int, const RunStatus& s) {
      finished = finished || s.state == RunState::Finished;
    });
    RunConfig c = smallRun(30);
    c.trainer.snapshot_every = 10;
    controller.start(c, {"rsa"}, 1);
    QTRY_VERIFY_WITH_TIMEOUT(finished, 60000);
    QTest::qWait(100);  // the last queued batch
    QVERIFY(!first.empty());
    QCOMPARE(first, second);
    for (const auto* record : first) QVERIFY(record != nullptr);
    QVERIFY(!evals.empty());
    for (const auto& e : evals) QCOMPARE(e.samples_seen, e.step * 8);
  }

  // Runs stepping in parallel (one per core, the default) give the numbers that runs interleaved
  // on the worker thread give: a run's losses depend only on its config and seed.
  void parallelRunsGiveTheInterleavedNumbers() {
    auto train = [](int parallel) {
      std::map<int, RunStatus> last;
      QObject receiver;
      TrainingController controller;
      TrainingWorker* worker = controller.worker();
      QMetaObject::invokeMethod(
          worker, [worker, parallel] { worker->setParallelRuns(parallel); }, Qt::QueuedConnection);
      connect(worker, &TrainingWorker::status, &receiver,
              [&last](int run, const RunStatus& s) { last[run] = s; });
      controller.start(smallRun(30), {"rnn", "transformer", "rsa"}, 1);
      auto finished = [&last] {
        if (last.size() != 3) return false;
        for (const auto& [run, s] : last)
          if (s.state != RunState::Finished) return false;
        return true;
      };
      [&] { QTRY_VERIFY_WITH_TIMEOUT(finished(), 60000); }();
      return last;
    };
    const auto interleaved = train(1);
    const auto parallel = train(0);
    QCOMPARE(parallel.size(), size_t{3});
    for (const auto& [run, s] : interleaved) {
      const RunStatus& p = parallel.at(run);
      QCOMPARE(p.step, qint64{30});
      QCOMPARE(s.step, qint64{30});
      const double tolerance = 1e-5 * std::max(1.0, std::abs(s.validation_loss));
      QVERIFY2(std::abs(p.train_loss - s.train_loss) <= tolerance &&
                   std::abs(p.validation_loss - s.validation_loss) <= tolerance,
               qPrintable(QString("run %1: interleaved %2 / %3, parallel %4 / %5")
                              .arg(run)
                              .arg(s.train_loss)
                              .arg(s.validation_loss)
                              .arg(p.train_loss)
                              .arg(p.validation_loss)));
    }
  }

  // A real series' runs are created with their baselines and start training at once; the
  // anchors, fitted in the background, arrive afterwards as runsUpdated with the same runs.
  void realSeriesAnchorsArriveAfterTheRunsStart() {
    QVector<Run> created, updated;
    std::map<int, RunStatus> last;
    QObject receiver;
    TrainingController controller;
    connect(controller.worker(), &TrainingWorker::runsCreated, &receiver,
            [&](const QVector<Run>& runs) { created = runs; });
    connect(controller.worker(), &TrainingWorker::runsUpdated, &receiver,
            [&](const QVector<Run>& runs) { updated = runs; });
    connect(controller.worker(), &TrainingWorker::status, &receiver,
            [&last](int run, const RunStatus& s) { last[run] = s; });
    RunConfig c = realSeriesDefaults(defaultRunConfig());
    c.task.name = "lynx";
    c.model.d_model = 8;
    c.trainer.max_steps = 100000000;
    c.trainer.patience = 0;
    controller.start(c, {"rnn", "gru"}, 1);
    QTRY_VERIFY_WITH_TIMEOUT(created.size() == 2, 60000);
    auto has = [](const Run& r, const char* name) {
      return std::any_of(r.what.references.begin(), r.what.references.end(),
                         [&](const ReferenceScore& s) { return s.name == name; });
    };
    for (const auto& r : created) QVERIFY(has(r, "persistence") && !has(r, "ets"));
    QTRY_VERIFY_WITH_TIMEOUT(updated.size() == 2, 60000);
    for (int k = 0; k < 2; ++k) {
      QVERIFY(updated[k].id == created[k].id);
      QCOMPARE(updated[k].what.references.size(), created[k].what.references.size() + 3);
      QVERIFY(has(updated[k], "ets") && has(updated[k], "auto_arima") && has(updated[k], "theta"));
    }
    QTRY_VERIFY_WITH_TIMEOUT(last.count(1) && last[1].step > 5, 60000);  // still training
    controller.stop();
  }

  // ETTh1 under the long-horizon protocol: with features M the anchors score OT alone, so they
  // reach the log as notes and never the runs' references (the best of which is drawn as the
  // reference line of a loss over every column); with S they are references, as in the CLI.
  void multivariateAnchorsAreNotesNotReferences() {
    struct Seen {
      QVector<Run> created, updated;
      QStringList log;
    };
    auto train = [](forecast::LongHorizonFeatures features) {
      Seen seen;
      QObject receiver;
      TrainingController controller;
      auto* worker = controller.worker();
      connect(worker, &TrainingWorker::runsCreated, &receiver,
              [&seen](const QVector<Run>& runs) { seen.created = runs; });
      connect(worker, &TrainingWorker::runsUpdated, &receiver,
              [&seen](const QVector<Run>& runs) { seen.updated = runs; });
      connect(worker, &TrainingWorker::log, &receiver,
              [&seen](const QString& line) { seen.log << line; });
      RunConfig c = longHorizonDefaults(defaultRunConfig());  // as the GUI's task box sets it
      c.task.name = "etth1";
      c.task.horizon = 24;
      c.task.features = features;
      c.task.anchors = AnchorMode::Fast;
      c.model.d_model = 8;
      controller.start(c, {"dlinear"}, 1);
      auto fitted = [&seen] {
        return std::any_of(seen.log.begin(), seen.log.end(),
                           [](const QString& l) { return l.startsWith("Anchors: 3 fitted"); });
      };
      [&] { QTRY_VERIFY_WITH_TIMEOUT(fitted(), 120000); }();
      QTest::qWait(200);  // a runsUpdated queued after the log line
      controller.stop();
      return seen;
    };
    auto anchorsIn = [](const Run& r) {
      return std::count_if(r.what.references.begin(), r.what.references.end(),
                           [](const ReferenceScore& s) {
                             return s.name == "ets" || s.name == "auto_arima" || s.name == "theta";
                           });
    };
    const Seen m = train(forecast::LongHorizonFeatures::Multivariate);
    QCOMPARE(m.created.size(), 1);
    QVERIFY(!m.created[0].what.references.empty());  // persistence, over every column
    QCOMPARE(anchorsIn(m.created[0]), 0);
    QVERIFY2(m.updated.isEmpty(), "the OT-only anchors became references of an M run");
    for (const char* anchor : {"anchor ETS", "anchor ARIMA", "anchor Theta"}) {
      QVERIFY2(std::any_of(m.log.begin(), m.log.end(),
                           [&](const QString& l) {
                             return l.startsWith(QString("Note: ") + anchor) &&
                                    l.contains("on OT alone: validation MSE");
                           }),
               anchor);
    }
    const Seen s = train(forecast::LongHorizonFeatures::Univariate);
    QCOMPARE(s.updated.size(), 1);
    QCOMPARE(anchorsIn(s.updated[0]), 3);
  }

  // The progress bar reaches 100 % when every run has ended, early stops included.
  void progressCountsRunsThatStoppedEarlyAsComplete() {
    RunStore store;
    store.add(Run{RunId(0), {}, {}});
    store.add(Run{RunId(1), {}, {}});
    RunStatus early;
    early.state = RunState::Finished;
    early.step = 440;
    early.max_steps = 1000;
    store.setStatus(RunId(0), early);
    RunStatus running = early;
    running.state = RunState::Running;
    running.steps_per_second = 20;
    store.setStatus(RunId(1), running);
    auto p = store.progress();
    QCOMPARE(p.done, qint64{880});
    QCOMPARE(p.total, qint64{1440});  // the early stop's 440, the running run's 1000
    QVERIFY(p.running);
    running.state = RunState::Stopped;
    store.setStatus(RunId(1), running);
    p = store.progress();
    QCOMPARE(p.done, p.total);
    QVERIFY(!p.running);
  }

  void destroyingTheControllerDuringTrainingStopsPromptly() {
    std::map<int, RunStatus> last;
    QObject receiver;
    auto controller = std::make_unique<TrainingController>();
    connect(controller->worker(), &TrainingWorker::status, &receiver,
            [&last](int run, const RunStatus& s) { last[run] = s; });
    controller->start(smallRun(100000000), {"rnn", "rsa"}, 2);
    QTRY_VERIFY_WITH_TIMEOUT(last.count(3) && last[3].step > 5, 60000);
    // The worker is deleted when its thread finishes (QThread::finished -> deleteLater). (Thread
    // names in /proc are no evidence: LibTorch/OpenMP pool threads started from the training
    // thread inherit its name and outlive it by design.)
    QPointer<TrainingWorker> worker = controller->worker();
    QVERIFY(worker->thread()->isRunning());
    QElapsedTimer timer;
    timer.start();
    controller.reset();
    const auto ms = timer.elapsed();
    qInfo("controller destroyed during training in %lld ms", static_cast<long long>(ms));
    QVERIFY2(ms < 5000, "the worker did not stop within 5 s");
    QTRY_VERIFY_WITH_TIMEOUT(worker.isNull(), 2000);  // its thread ran to the end
  }
};

int main(int argc, char** argv) {
  rsalab::initRuntime();
  QCoreApplication app(argc, argv);
  TestTrainingWorker test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_training_worker.moc"
