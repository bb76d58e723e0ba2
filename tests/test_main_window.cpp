// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop app, offscreen: default launch, live training of three models side by side,
// pause/step/stop/reset, hot edits with curve markers, the inspector, closing while training, and
// sessions (save, reopen offline), standard shortcuts and the CSV import preview. The figures'
// room (focus mode, the regime-map tab) is in test_main_window_figures.cpp.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "app/gui/main_window.h"
#include "app/gui/sweep_dialog.h"
#include "app/gui/sweep_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_worker.h"
#include "engine/runtime.h"
#include "widgets/attention_view.h"
#include "widgets/comparison_table.h"
#include "widgets/csv_import_dialog.h"
#include "widgets/gate_view.h"
#include "widgets/heat_map_grid.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/rem_parameter_view.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"
#include "widgets/sample_efficiency_view.h"
#include "widgets/shortcuts_dialog.h"

using namespace rsalab;

namespace {
// The window's parts, found by their object names (MainWindow lists them).
template <typename T>
T* part(const QObject& parent, const char* name) {
  T* child = parent.findChild<T*>(QString::fromLatin1(name));
  if (!child) qFatal("the window has no %s named %s", T::staticMetaObject.className(), name);
  return child;
}
RunSetupPanel* setupPanel(const MainWindow& w) { return part<RunSetupPanel>(w, "RunSetupPanel"); }
RunsTable* runsTable(const MainWindow& w) { return part<RunsTable>(w, "RunsTable"); }
LossCurveView* curves(const MainWindow& w) { return part<LossCurveView>(w, "LossCurveView"); }
HyperParameterForm* hyperParameters(const MainWindow& w) {
  return part<HyperParameterForm>(w, "HyperParameterForm");
}
InspectorPanel* inspector(const MainWindow& w) { return part<InspectorPanel>(w, "InspectorPanel"); }
AttentionView* attentionView(const MainWindow& w) {
  return part<AttentionView>(w, "AttentionView");
}
HeatMapGrid* inspectorGrid(const MainWindow& w) { return attentionView(w)->grid(); }
GateView* gateView(const MainWindow& w) { return part<GateView>(w, "GateView"); }
RemParameterView* remParameters(const MainWindow& w) {
  return part<RemParameterView>(w, "RemParameterView");
}
QSlider* stepSlider(const MainWindow& w) { return part<QSlider>(w, "StepSlider"); }
const SnapshotHistory& snapshotHistory(const MainWindow& w) { return inspector(w)->history(); }
RunId inspectedRun(const MainWindow& w) { return inspector(w)->inspectedRun(); }
qint64 shownStep(const MainWindow& w) { return inspector(w)->shownStep(); }
TrainingWorker* controllerWorker(const MainWindow& w) {
  return part<TrainingController>(w, "TrainingController")->worker();
}
SweepPanel* sweepPanel(const MainWindow& w) { return part<SweepPanel>(w, "SweepPanel"); }
QTabWidget* centralTabs(const MainWindow& w) { return part<QTabWidget>(w, "InspectorTabs"); }
QAction* startAction(const MainWindow& w) { return part<QAction>(w, "StartAction"); }
QAction* stepAction(const MainWindow& w) { return part<QAction>(w, "StepAction"); }
QAction* stopAction(const MainWindow& w) { return part<QAction>(w, "StopAction"); }
QAction* resetAction(const MainWindow& w) { return part<QAction>(w, "ResetAction"); }

QString stateOf(RunsTable* t, int row) { return t->text(row, RunStore::kState); }
qint64 stepOf(RunsTable* t, int row) {
  const QString text = t->text(row, RunStore::kStep);
  return text.isEmpty() ? -1 : text.section(' ', 0, 0).toLongLong();
}
}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    // Never the user's settings: test-mode standard paths and a settings folder of our own.
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir_.filePath("settings"));
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir_.filePath("settings"));
    QSettings().clear();
  }

  void sessionRoundTripReopensTheSamePicture() {
    MainWindow w;
    w.show();
    auto s = setupPanel(w)->setup();
    s.models = {"gru", "rsa"};
    s.config.trainer.max_steps = 60;
    s.config.task.length = 24;
    s.config.model.d_model = 16;
    s.config.train_size = 128;
    setupPanel(w)->setSetup(s);
    startAction(w)->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.isTraining(), 60000);
    QTest::qWait(200);                             // the last queued metrics batch
    w.findChild<QDockWidget*>("LogDock")->hide();  // layout travels with the session
    QSignalSpy saved(&w, &MainWindow::sessionSaved);
    const QString path = dir_.filePath("trained");
    w.sessions()->saveTo(path);
    QVERIFY(saved.wait(20000));
    QCOMPARE(saved.first().at(1).toString(), QString());
    const QString bundle = saved.first().at(0).toString();
    QVERIFY(bundle.endsWith("trained.rsalab"));
    QVERIFY(QFile::exists(bundle + "/checkpoints/run-1.pt"));
    QCOMPARE(w.sessions()->recent().value(0), QFileInfo(bundle).absoluteFilePath());

    MainWindow again;
    again.show();
    QVERIFY(again.sessions()->open(bundle));
    QCOMPARE(runsTable(again)->rowCount(), 2);
    QCOMPARE(toJson(again.sessions()->bundle().config), toJson(w.sessions()->bundle().config));
    QCOMPARE(setupPanel(again)->setup().models, (QStringList{"gru", "rsa"}));
    QCOMPARE(setupPanel(again)->setup().config.task.length, int64_t(24));
    for (int number : {0, 1}) {
      const RunId id(number), reopened(RunSource::Session, number);
      // The reopened run keeps what its task knew: the truth its REMs are matched against, T.
      const Run* live = w.runStore()->find(id);
      const Run* back = again.runStore()->find(reopened);
      QVERIFY(live && back);
      QVERIFY(!live->what.truth.empty());
      QCOMPARE(back->what.truth.description, live->what.truth.description);
      QCOMPARE(back->what.truth.components.size(), live->what.truth.components.size());
      QCOMPARE(back->what.truth.components[0].base, live->what.truth.components[0].base);
      QCOMPARE(back->what.truth.bayes_floor, live->what.truth.bayes_floor);
      QCOMPARE(back->what.length, live->what.length);
      QCOMPARE(back->what.references.size(), live->what.references.size());
      QCOMPARE(back->now.state, live->now.state);
      const auto* a = curves(w)->series(id, LossCurveView::Curve::kTrain);
      const auto* b = curves(again)->series(reopened, LossCurveView::Curve::kTrain);
      QVERIFY(a && b);
      QCOMPARE(b->size(), size_t{60});
      QCOMPARE(b->values(), a->values());
      QCOMPARE(b->steps(), a->steps());
      const auto* va = curves(w)->series(id, LossCurveView::Curve::kValidation);
      const auto* vb = curves(again)->series(reopened, LossCurveView::Curve::kValidation);
      QCOMPARE(vb ? vb->values() : std::vector<double>{},
               va ? va->values() : std::vector<double>{});
      const auto steps = snapshotHistory(w).steps(id);
      QVERIFY(!steps.empty());
      QCOMPARE(snapshotHistory(again).steps(reopened), steps);
      const InspectionRecord* ra = snapshotHistory(w).at(id, steps.back());
      const InspectionRecord* rb = snapshotHistory(again).at(reopened, steps.back());
      QVERIFY(ra && rb);
      QCOMPARE(rb->model, ra->model);
      QCOMPARE(rb->layers.size(), ra->layers.size());
      QCOMPARE(rb->gates.size(), ra->gates.size());
      if (!ra->layers.empty()) {
        QCOMPARE(rb->layers[0].heads[0].attention.values, ra->layers[0].heads[0].attention.values);
        QCOMPARE(rb->layers[0].heads[0].lambda, ra->layers[0].heads[0].lambda);
      }
      if (!ra->gates.empty()) QCOMPARE(rb->gates[0].values.values, ra->gates[0].values.values);
    }
    QVERIFY(again.findChild<QDockWidget*>("LogDock")->isHidden());
    QVERIFY(again.windowTitle().contains("trained.rsalab"));
    QVERIFY(shownStep(again) >= 0);  // the inspector shows a stored snapshot offline

    // Saved again offline (no live trainers): the checkpoints are carried over.
    QSignalSpy saved_again(&again, &MainWindow::sessionSaved);
    again.sessions()->saveTo(dir_.filePath("copy.rsalab"));
    QVERIFY(saved_again.wait(20000));
    QCOMPARE(saved_again.first().at(1).toString(), QString());
    QVERIFY(QFile::exists(dir_.filePath("copy.rsalab/checkpoints/run-1.pt")));
  }

  void badSessionIsRefusedWithTheFileNamed() {
    // A good bundle first (written by the engine, no training): the picture to keep.
    SessionBundle good;
    good.config.task.name = "seasonal";
    good.models = {"gru"};
    SessionRun run;
    run.model = "gru";
    run.state = RunState::Finished;
    for (int64_t k = 1; k <= 5; ++k) run.steps.push_back({k, 32 * k, 1.0 / double(k), 1e-3, 1, 0});
    good.runs.push_back(run);
    const QString good_path =
        QString::fromStdString(saveSession(good, dir_.filePath("good").toStdString()));
    QDir().mkpath(dir_.filePath("bad.rsalab"));
    QFile manifest(dir_.filePath("bad.rsalab/manifest.json"));
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.write(R"({"format": "rsalab-session", "format_version": "one"})");
    manifest.close();
    MainWindow w;
    w.show();
    QVERIFY(w.sessions()->open(good_path));
    const QString title = w.windowTitle();
    QCOMPARE(runsTable(w)->rowCount(), 1);
    QVERIFY(!w.sessions()->open(dir_.filePath("bad.rsalab")));
    // The reason in a message box (not modal to the app: the test goes on), the picture kept.
    auto* box = w.findChild<QMessageBox*>();
    QVERIFY(box);
    QVERIFY2(box->text().contains("manifest.json") && box->text().contains("format_version"),
             qPrintable(box->text()));
    QVERIFY(box->isVisible());
    box->close();
    QCOMPARE(runsTable(w)->rowCount(), 1);
    const RunId opened(RunSource::Session, 0);
    QVERIFY(curves(w)->hasRun(opened));
    QCOMPARE(curves(w)->series(opened, LossCurveView::Curve::kTrain)->size(), size_t{5});
    QCOMPARE(w.windowTitle(), title);
    QCOMPARE(w.sessions()->path(), good_path);
    // The caller that asks for the reason (`rsalab --session DIR`) gets it, and no box.
    QString error;
    QVERIFY(!w.sessions()->open(dir_.filePath("bad.rsalab"), &error));
    QVERIFY2(error.contains("manifest.json") && error.contains("format_version"),
             qPrintable(error));
    QTRY_VERIFY(!w.findChild<QMessageBox*>());  // the first box deletes itself on close
  }

  void standardShortcutsAreListed() {
    MainWindow w;
    const auto entries = shortcutEntries(w.settings()->shortcutActions());
    QStringList texts;
    for (const auto& e : entries) texts << e.first;
    const QList<QKeySequence::StandardKey> keys = {
        QKeySequence::Open,    QKeySequence::Save,       QKeySequence::SaveAs,
        QKeySequence::Quit,    QKeySequence::Copy,       QKeySequence::ZoomIn,
        QKeySequence::ZoomOut, QKeySequence::FullScreen, QKeySequence::Preferences};
    for (auto key : keys) {
      QAction* a = w.settings()->standardAction(key);
      QVERIFY2(a, qPrintable(QString("no action for standard key %1").arg(int(key))));
      QVERIFY2(!a->shortcuts().isEmpty(), qPrintable(a->text()));
      for (const auto& binding : QKeySequence::keyBindings(key))
        QVERIFY(a->shortcuts().contains(binding));
      QString text = a->text();
      text.remove('&');
      QVERIFY2(texts.contains(text), qPrintable(text + " missing from Help > Keyboard shortcuts"));
    }
    QVERIFY(texts.contains("Start"));  // the toolbar's own shortcuts are listed too
    ShortcutsDialog dialog(w.settings()->shortcutActions());
    QCOMPARE(dialog.table()->rowCount(), entries.size());
  }

  void droppedCsvOpensThePreviewAndBecomesTheTask() {
    const QString path = dir_.filePath("load.csv");
    {
      std::ofstream out(path.toStdString());
      out << "date,temperature,load\n";
      for (int i = 0; i < 200; ++i)
        out << "2024-01-" << (i % 28 + 1) << "," << 0.5 * i + (i % 5 == 4 ? 0.3 : 0.0) << ","
            << (i % 7) << "\n";  // temperature rises, but not in equal steps: not a time index
    }
    MainWindow w;
    w.show();
    CsvImportDialog* dialog = w.csv()->importCsv(path);
    QVERIFY(dialog);
    QCOMPARE(dialog->columnNames(), (QStringList{"temperature", "load"}));
    QVERIFY2(dialog->summary().contains("header detected"), qPrintable(dialog->summary()));
    QVERIFY2(dialog->summary().contains("date"), qPrintable(dialog->summary()));
    QCOMPARE(dialog->preview()->item(2, 0)->text(), QString("1"));
    dialog->lengthBox()->setValue(40);
    dialog->horizonBox()->setValue(3);
    dialog->accept();
    QCOMPARE(setupPanel(w)->setup().config.task.name, std::string("csv"));
    QCOMPARE(setupPanel(w)->setup().config.task.length, int64_t(40));
    QCOMPARE(w.csv()->path(), path);
    QVERIFY(!w.csv()->importCsv(dir_.filePath("missing.csv")));
  }

  void opensOnTheBuiltInTaskWithThreeModels() {
    MainWindow w;
    w.show();
    const auto s = setupPanel(w)->setup();
    QCOMPARE(s.config.task.name, std::string("mix"));
    QCOMPARE(s.models, (QStringList{"rnn", "transformer", "rsa"}));  // registry order
    for (const char* name :
         {"RunSetupDock", "HyperParametersDock", "RunsDock", "LossCurvesDock", "LogDock"}) {
      QVERIFY2(w.findChild<QDockWidget*>(name), name);
    }
  }
  // The paper-table preset runs its table off the GUI thread with a progress bar on its own tab;
  // closing the window stops it.
  void paperTablePresetShowsItsProgress() {
    auto w = std::make_unique<MainWindow>();
    w->show();
    QVERIFY(w->presets()->apply("paper-table"));
    QVERIFY(w->presets()->isRunningPaperTable());
    auto* bar = w->findChild<QProgressBar*>("PaperTableProgress");
    QVERIFY(bar);
    QVERIFY(!w->presets()->apply("paper-table"));  // one at a time
    w.reset();                                     // stops it (the destructor waits)
  }
  // A computed preset (linear-rnn) trains nothing: its verdict comes at once, on its tab.
  void computedPresetIsJudgedAtOnceOnItsTab() {
    MainWindow w;
    w.show();
    QVERIFY(w.presets()->apply("linear-rnn"));
    QVERIFY(!w.isTraining());
    QCOMPARE(w.presets()->lastVerdicts().size(), 1);
    QVERIFY(w.presets()->lastVerdicts().front().startsWith("holds: "));
    QCOMPARE(part<QTabWidget>(w, "InspectorTabs")->currentIndex(),
             int(InspectorPanel::kLinearRnnTab));
    QVERIFY(w.statusText().contains("linear-rnn"));
    QVERIFY(!w.presets()->apply("no-such-preset"));
  }

  void startTrainsAllThreeLiveAndControlsWork() {
    MainWindow w;
    w.show();
    auto s = setupPanel(w)->setup();
    s.config.trainer.max_steps = 100000;
    s.config.task.length = 32;
    s.config.model.d_model = 16;
    s.config.train_size = 256;
    setupPanel(w)->setSetup(s);
    // No early stop: the runs must still be training when the controls below are exercised (at
    // this size the RNN reached its patience within the test's first seconds once the attention
    // runs it is interleaved with got faster).
    hyperParameters(w)->setValues({{"patience", 0}});
    startAction(w)->trigger();
    QVERIFY(w.isTraining());
    auto* table = runsTable(w);
    QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 3, 20000);
    // All three advance, interleaved, while the GUI thread keeps running this loop.
    QTRY_VERIFY_WITH_TIMEOUT(stepOf(table, 0) > 5 && stepOf(table, 1) > 5 && stepOf(table, 2) > 5,
                             30000);
    QTRY_VERIFY_WITH_TIMEOUT(curves(w)->drawnPointCount() > 0, 5000);
    QCOMPARE(stateOf(table, 0), QString("running"));

    // Event-loop latency while three runs train: a 5 ms timer's lateness (printed, no target).
    {
      std::vector<double> late;
      QElapsedTimer clock;
      clock.start();
      qint64 expected = 5;
      QTimer probe;
      probe.setTimerType(Qt::PreciseTimer);
      connect(&probe, &QTimer::timeout, [&] {
        late.push_back(static_cast<double>(clock.elapsed() - expected));
        expected = clock.elapsed() + 5;
      });
      probe.start(5);
      QTest::qWait(2000);
      probe.stop();
      std::sort(late.begin(), late.end());
      QVERIFY(late.size() > 20);
      qInfo("event-loop lateness while training: p50 %.1f ms, p99 %.1f ms (%zu samples)",
            late[late.size() / 2], late[late.size() * 99 / 100], late.size());
    }

    // Hot edit: the trainers see it at their next step, and a marker lands on the curves.
    const int markers = curves(w)->markerCount();
    std::vector<double> rates_after;
    std::map<int, std::vector<double>> rates_by_run;
    bool edited = false;
    auto connection =
        connect(controllerWorker(w), &TrainingWorker::metrics, &w, [&](const MetricsBatch& b) {
          if (!edited) return;
          for (const auto& m : b.steps) {
            rates_after.push_back(m.learning_rate);
            rates_by_run[b.run].push_back(m.learning_rate);
          }
        });
    edited = true;
    emit hyperParameters(w)->hotChanged("learning_rate", 1e-3);
    QCOMPARE(curves(w)->markerCount(), markers + 1);
    // Steps taken before the edit reached the worker (batched, ~20 Hz) may still arrive with the
    // old rate; the new one must show up, and per run no step after it may report the old rate.
    QTRY_VERIFY_WITH_TIMEOUT(!rates_after.empty() && rates_after.back() == 1e-3, 30000);
    for (const auto& [run, rates] : rates_by_run) {
      const auto first_new = std::find(rates.begin(), rates.end(), 1e-3);
      for (auto it = first_new; it != rates.end(); ++it) QCOMPARE(*it, 1e-3);
    }
    disconnect(connection);

    // Cold edit while running: pending, the running session keeps its settings.
    auto cold = setupPanel(w)->setup();
    cold.config.trainer.max_steps = 77777;
    setupPanel(w)->setSetup(cold);
    emit setupPanel(w)->setupChanged();
    QTest::qWait(200);
    QVERIFY(runsTable(w)->text(0, RunStore::kStep).endsWith("/ 100000"));

    // Pause: steps stop advancing.
    startAction(w)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(table, 0), QString("paused"), 5000);
    const qint64 paused_at = stepOf(table, 0);
    QTest::qWait(400);
    QCOMPARE(stepOf(table, 0), paused_at);
    // Step: exactly one more step.
    stepAction(w)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(stepOf(table, 0), paused_at + 1, 5000);
    QTest::qWait(300);
    QCOMPARE(stepOf(table, 0), paused_at + 1);
    // Resume, then stop.
    startAction(w)->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(stepOf(table, 0) > paused_at + 3, 10000);
    stopAction(w)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(table, 0), QString("stopped"), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(!w.isTraining(), 5000);
    // The inspector shows real matrices of the RSA run.
    QTRY_VERIFY_WITH_TIMEOUT(inspectorGrid(w)->layerCount() > 0, 10000);
    // The step scrubber: choosing the first recorded step shows that step's snapshot in the grid,
    // and the REM parameter tab has curves for the RSA run.
    const RunId inspected = inspectedRun(w);
    QTRY_VERIFY_WITH_TIMEOUT(stepSlider(w)->maximum() >= 1, 10000);  // step 1, pause, stop, ...
    const auto recorded = snapshotHistory(w).steps(inspected);
    stepSlider(w)->setValue(0);
    QCOMPARE(shownStep(w), recorded.front());
    const InspectionRecord* first = snapshotHistory(w).at(inspected, recorded.front());
    QVERIFY(first && !first->layers.empty() && !first->layers[0].heads.empty());
    // RSA heads: content softmax part | REM | gated mix, holding the record's matrices.
    const HeadInspection& head0 = first->layers[0].heads[0];
    QVERIFY(head0.has_rem);
    QCOMPARE(inspectorGrid(w)->headCount(), int(AttentionView::kRsaPanelCount));
    QVERIFY(inspectorGrid(w)->cellMatrix(0, AttentionView::kSoftmaxPanel).values ==
            head0.softmax_part.values);
    QVERIFY(inspectorGrid(w)->cellMatrix(0, AttentionView::kRemPanel).values == head0.rem.values);
    QVERIFY(inspectorGrid(w)->cellMatrix(0, AttentionView::kMixPanel).values ==
            head0.attention.values);
    QCOMPARE(remParameters(w)->currentStep(),
             recorded.front());  // the scrubber drives the REM table
    stepSlider(w)->setValue(stepSlider(w)->maximum());
    QCOMPARE(shownStep(w), recorded.back());
    QVERIFY(remParameters(w)->graphCount() > 0);
    const InspectionRecord* last = snapshotHistory(w).at(inspected, recorded.back());
    QVERIFY(remParameters(w)->remGrid()->cellMatrix(0, 0).values ==
            last->layers[0].heads[0].rem.values);
    // The mix task's truth (its recurrent part: the teacher's λ = 0.8) as a truth line, and
    // the regular head L0 H0 matched against it (the same kind) with a finite |Δλ|.
    QCOMPARE(remParameters(w)->groundTruthLineCount(), 1);
    QVERIFY(remParameters(w)->headTable()->rowCount() > 0);
    QVERIFY(remParameters(w)->match(0, 0).matched);
    QVERIFY(std::isfinite(remParameters(w)->match(0, 0).delta_base));
    // The sample picker: the worker inspects the chosen validation sample and every view shows it.
    attentionView(w)->samplePicker()->setValue(3);
    QTRY_VERIFY_WITH_TIMEOUT(attentionView(w)->caption().contains("sample 3"), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(snapshotHistory(w).at(inspected, shownStep(w))->sample, int64_t(3),
                              10000);
    QVERIFY(gateView(w)->caption().contains("sample 3"));
    // Reset drops the runs.
    resetAction(w)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 0, 5000);
  }
  // A short real series: the runs table and the status bar give the N the runs have (75 windows
  // on AirPassengers, not the 1024 asked for), and the skill column is against the best reference.
  void realSeriesShowsTheActualNAndTheBestAnchor() {
    MainWindow w;
    w.show();
    auto s = setupPanel(w)->setup();
    s.config.task.name = "airpassengers";
    s.models = {"gru"};
    s.seeds = 1;
    s.config.task.length = 25;
    s.config.train_size = 1024;
    s.config.trainer.max_steps = 30;
    s.config.model.d_model = 8;
    setupPanel(w)->setSetup(s);
    startAction(w)->trigger();
    auto* table = runsTable(w);
    QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 1, 60000);
    QCOMPARE(table->text(0, RunStore::kN), QString("75"));
    QVERIFY2(w.statusText().contains("N = 75 (asked for 1024"), qPrintable(w.statusText()));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(table, 0), QString("finished"), 60000);
    QVERIFY2(table->toolTip(0, RunStore::kSkill).contains("best reference"),
             qPrintable(table->toolTip(0, RunStore::kSkill)));
    QVERIFY(table->text(0, RunStore::kSkill) != "–");
    QVERIFY(table->text(0, RunStore::kSkillPersistence) != "–");
  }

  void badSetupShowsAMessageAndDoesNotStart() {
    MainWindow w;
    auto s = setupPanel(w)->setup();
    s.config.model.d_model = 30;  // not divisible by 4 heads
    setupPanel(w)->setSetup(s);
    QTimer::singleShot(200, [] {
      for (auto* top : QApplication::topLevelWidgets()) {
        if (top->inherits("QMessageBox")) top->close();
      }
    });
    startAction(w)->trigger();
    QVERIFY(!w.isTraining());
    bool logged = false;  // the log says why, naming the value
    for (auto* edit : w.findChildren<QPlainTextEdit*>()) {
      logged = logged || edit->toPlainText().contains("d_model = 30 is not divisible by heads = 4");
    }
    QVERIFY(logged);
  }
  void sweepStreamsPointsIntoItsTabAndOpensAClickedRun() {
    MainWindow w;
    w.show();
    auto* panel = sweepPanel(w);
    QVERIFY(panel);
    QCOMPARE(centralTabs(w)->tabText(centralTabs(w)->indexOf(panel)), QString("Sample efficiency"));
    // The dialog rejects a bad size, naming the field, and starts nothing.
    auto* dialog = panel->dialog();
    SweepOptions rejected;
    QString error;
    dialog->setSizesText("16, many");
    QVERIFY(!dialog->readOptions(&rejected, &error));
    QVERIFY2(error.startsWith("Sizes N") && error.contains("many"), qPrintable(error));
    dialog->setSizesText("16, 64");
    dialog->setAxisText("mix.share=0, 0.5");  // a task axis: the regime map's x
    QVERIFY2(dialog->readOptions(&rejected, &error), qPrintable(error));
    QVERIFY(rejected.axis.name == "mix_share" && rejected.axis.values.size() == 2);
    dialog->setAxisText("mix.share");
    QVERIFY(!dialog->readOptions(&rejected, &error) && error.startsWith("Task axis"));
    dialog->setAxisText({});
    // A tiny sweep through the dialog's own path: 2 models × 2 sizes × 1 seed.
    RunConfig base;
    base.task.name = "seasonal";
    base.task.length = 16;
    base.task.validation_size = 16;
    base.task.test_size = 16;
    base.model.d_model = 8;
    base.model.heads = 4;
    base.model.layers = 1;
    base.trainer.batch_size = 4;
    base.trainer.eval_every = 2;
    dialog->setBase(base);
    dialog->setModels({"gru", "rsa"});
    dialog->setSizesText("8, 32");
    dialog->setSeeds(1);
    dialog->setSteps(4);
    QSignalSpy finished(panel, &SweepPanel::sweepFinished);
    dialog->startButton()->click();
    QVERIFY(panel->isRunning());
    QVERIFY(w.isVisible());  // the GUI thread is free while the sweep trains
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    // 4 runs + the 4 baselines (mean, persistence, seasonal naive, AR(p)) at each of the 2 N
    QCOMPARE(panel->view()->pointCount(), 4 + 2 * 4);
    QVERIFY(panel->view()->isReference("ar_lsq"));
    QCOMPARE(panel->view()->meanGraphCount(), 0);  // its tab is hidden: drawn when shown
    centralTabs(w)->setCurrentWidget(panel);
    QTRY_COMPARE_WITH_TIMEOUT(panel->view()->meanGraphCount(), 2 + 4, 5000);
    // Two sizes: no power law (it needs 3), and the legend says so.
    QVERIFY(panel->view()->legendText("gru").contains("fit needs 3+ sizes"));
    QCOMPARE(dialog->progressBar()->value(), 4);
    auto* table = panel->table()->table();
    QCOMPARE(table->rowCount(), 2);
    for (int r = 0; r < 2; ++r) {
      QVERIFY(table->item(r, ComparisonTable::kFlops)->data(Qt::UserRole).toDouble() > 0);
      QVERIFY(table->item(r, ComparisonTable::kParameters)->data(Qt::UserRole).toDouble() > 0);
      QVERIFY(table->item(r, ComparisonTable::kStepsPerSecond)->data(Qt::UserRole).toDouble() > 0);
    }
    QCOMPARE(table->columnCount(), ComparisonTable::kFirstLoss + 2);  // N = 8 and N = 32
    panel->table()->setDifferencesOnly(true);
    QVERIFY(panel->table()->visibleConfigKeys().contains("model.model"));
    QVERIFY(panel->table()->visibleConfigKeys().contains("model.rem.regular"));  // rsa only
    QVERIFY(!panel->table()->visibleConfigKeys().contains("model.d_model"));     // shared
    // Clicking the rsa point at N = 32 opens its curves and its inspector record.
    const SweepRow* rsa = nullptr;
    for (const auto& r : panel->rows()) {
      if (r.model == "rsa" && r.size == 32) rsa = &r;
    }
    QVERIFY(rsa && rsa->has_inspection);
    QCOMPARE(rsa->train_curve.size(), size_t{4});
    const int run_id = static_cast<int>(rsa->run);
    emit panel->view()->pointClicked(run_id);
    const RunId opened(RunSource::Sweep, run_id);
    QVERIFY(curves(w)->hasRun(opened));
    QCOMPARE(curves(w)->series(opened, LossCurveView::Curve::kTrain)->size(), size_t{4});
    QVERIFY(inspectedRun(w) == opened);
    // The sweep's run keeps its truth and its references in the run store (its REM view's truth,
    // its skill): the gru/rsa sweep ran on a seasonal task with baselines per N and seed.
    const Run* held = w.runStore()->find(opened);
    QVERIFY(held && !held->what.truth.empty() && held->what.length > 0);
    QVERIFY(!held->what.references.empty());
    QCOMPARE(held->now.state, RunState::Finished);
    QCOMPARE(snapshotHistory(w).steps(opened).size(), size_t{1});
    QTRY_VERIFY_WITH_TIMEOUT(inspectorGrid(w)->layerCount() > 0, 5000);
  }
  void closingWhileTrainingAsksAndCancelKeepsTraining() {
    auto window = std::make_unique<MainWindow>();
    MainWindow& w = *window;
    w.show();
    auto s = setupPanel(w)->setup();
    s.config.trainer.max_steps = 100000;
    s.config.model.d_model = 16;
    setupPanel(w)->setSetup(s);
    startAction(w)->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(runsTable(w)->rowCount(), 3, 20000);
    w.setCloseAnswerForTests(0);
    QVERIFY(!w.close());
    QVERIFY(w.isTraining());
    w.setCloseAnswerForTests(1);
    QPointer<TrainingWorker> worker = controllerWorker(w);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(w.close());
    window.reset();  // joins the training thread
    const auto ms = timer.elapsed();
    qInfo("close while training took %lld ms", static_cast<long long>(ms));
    QVERIFY2(ms < 5000, "closing during training took more than 5 s");  // a bound, not a benchmark
    // The worker is deleted when its thread finishes (QThread::finished -> deleteLater).
    QTRY_VERIFY_WITH_TIMEOUT(worker.isNull(), 2000);
  }
};

int main(int argc, char** argv) {
  rsalab::initRuntime();
  QApplication app(argc, argv);
  TestMainWindow test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_main_window.moc"
