// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop app's room for its figures, offscreen: the Regime map tab beside Sample efficiency,
// fed from sweep rows with a task axis (a click opens the run), focus mode (on by itself when
// results are opened; docks hidden only while a figure tab is shown; restored as they were) and
// the status bar's elided message with the whole text in its tooltip; the linear-attention claim's
// tab, measured live.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "app/gui/main_window.h"
#include "app/gui/sweep_panel.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/verdicts/presets.h"
#include "engine/runtime.h"
#include "tests/support/widget_shots.h"
#include "widgets/elided_label.h"
#include "widgets/generation_time_view.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/regime_map_view.h"

using namespace rsalab;

namespace {
template <typename T>
T* part(const QObject& parent, const char* name) {
  T* child = parent.findChild<T*>(QString::fromLatin1(name));
  if (!child) qFatal("the window has no %s named %s", T::staticMetaObject.className(), name);
  return child;
}
SweepPanel* sweepPanel(const MainWindow& w) { return part<SweepPanel>(w, "SweepPanel"); }
QTabWidget* centralTabs(const MainWindow& w) { return part<QTabWidget>(w, "InspectorTabs"); }
LossCurveView* curves(const MainWindow& w) { return part<LossCurveView>(w, "LossCurveView"); }
}  // namespace

class TestMainWindowFigures : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir_.filePath("settings"));
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir_.filePath("settings"));
    QSettings().clear();
  }
  void figuresGetTheRoomTheyNeed() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* panel = sweepPanel(w);
    auto* regime = part<RegimeMapView>(w, "RegimeMapView");
    auto* runs = part<QDockWidget>(w, "RunsDock");
    auto* focus = part<QAction>(w, "FocusAction");
    QCOMPARE(centralTabs(w)->tabText(centralTabs(w)->indexOf(regime)), QString("Regime map"));
    QVERIFY(runs->isVisible() && !focus->isChecked());
    // gru, transformer, rsa × a ∈ {0, 0.5, 1} × N ∈ {16, 64, 256} × 2 seeds: gru wins at a = 0,
    // rsa at a = 1, the two tie at a = 0.5.
    SweepResult result;
    result.axis = {"mix.share", {0, 0.5, 1}};
    const char* models[] = {"gru", "transformer", "rsa"};
    for (int64_t run = 0; run < 54; ++run) {
      SweepRow r;
      r.run = run;
      r.model = models[run / 18];
      r.axis_value = 0.5 * static_cast<double>(run / 6 % 3);
      r.size = 16 << (2 * (run / 2 % 3));
      r.seed = static_cast<uint64_t>(run % 2);
      const double a = r.axis_value;
      const double base = r.model == "gru" ? 0.05 + 0.2 * a : r.model == "rsa" ? 0.25 - 0.2 * a : 1;
      r.bayes_floor = 1;
      r.test_loss = 1 + base * std::pow(r.size / 16.0, -0.4) * (1 + 0.02 * double(r.seed));
      r.steps = 5;
      result.rows.push_back(r);
    }
    // Opened results without a task axis: focus mode on, docks hidden, the figure tab shown.
    SweepResult plain = result;
    plain.axis = {};
    for (auto& r : plain.rows) r.axis_value = NAN;
    const QString json = dir_.filePath("plain_sweep.json");
    std::ofstream(json.toStdString()) << sweepJson(plain);
    QString error;
    QVERIFY2(panel->loadResults(json, &error), qPrintable(error));
    QVERIFY(focus->isChecked() && w.focus()->isFocused());
    QCOMPARE(centralTabs(w)->currentWidget(), static_cast<QWidget*>(panel));
    QVERIFY(!runs->isVisible());
    regime->flush();
    QVERIFY(
        part<QLabel>(*regime, "RegimeMapMessage")->text().contains("a sweep along a task axis"));
    // Another tab brings the docks back; the figure tab hides them again; the action ends it.
    centralTabs(w)->setCurrentIndex(InspectorPanel::kInspectorTab);
    QVERIFY(!w.focus()->isFocused() && runs->isVisible());
    centralTabs(w)->setCurrentWidget(regime);
    QVERIFY(w.focus()->isFocused() && !runs->isVisible());
    focus->trigger();
    QVERIFY(!w.focus()->isFocused() && runs->isVisible());
    // Rows with a task axis feed the regime map; a click opens the run (and leaves focus mode).
    panel->showResult(result, "axis");
    QCOMPARE(regime->pointCount(), 54);
    QCOMPARE(regime->axisName(), QString("mix.share"));
    focus->trigger();
    centralTabs(w)->setCurrentWidget(regime);
    QTRY_VERIFY_WITH_TIMEOUT(regime->showsMaps(), 5000);
    QVERIFY(test::saturatedColorCount(test::grabShot(&w, "main_window_regime_1366x768")) > 20);
    w.resize(1920, 1080);  // the maps lay out again for the room they have
    test::grabShot(&w, "main_window_regime_1920x1080");
    emit regime->runClicked(5);
    QVERIFY(curves(w)->hasRun(RunId(RunSource::Sweep, 5)));
    QVERIFY(!w.focus()->isFocused() && runs->isVisible());
    // Long status text is elided, whole in the tooltip.
    const QString long_text = "Sweep finished: " + QString("rsa b=0.123 [0.1, 0.2]; ").repeated(20);
    w.showStatus(long_text);
    auto* message = part<ElidedLabel>(w, "StatusMessage");
    QCOMPARE(w.statusText(), long_text);
    QVERIFY(message->isElided());
    QCOMPARE(message->toolTip(), long_text);
    QVERIFY(message->width() < w.width());
  }

  // The Regime map tab's empty state offers the Figure 1 preset as a button (a GUI user is not
  // sent to a shell); pressing it starts the preset's sweep.
  void regimeMapOffersTheFigure1Preset() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* map = part<RegimeMapView>(w, "RegimeMapView");
    centralTabs(w)->setCurrentWidget(map);
    map->flush();
    QPushButton* button = map->emptyActionButton();
    QVERIFY(button && button->isVisible());
    QVERIFY(button->text().contains("Figure 1"));
    test::grabShot(&w, "main_window_regime_map_empty");
    QVERIFY(!sweepPanel(w)->isRunning());
    button->click();
    QTRY_VERIFY_WITH_TIMEOUT(sweepPanel(w)->isRunning(), 10000);
    QVERIFY2(w.statusText().contains("Figure 1") || w.statusText().contains("figure"),
             qPrintable(w.statusText()));
    sweepPanel(w)->cancelSweep();
    QTRY_VERIFY_WITH_TIMEOUT(!sweepPanel(w)->isRunning(), 60000);
  }

  // The linear-attention claim: measured off the GUI thread, drawn point by point in its tab, the
  // verdicts in the status bar; a window closed mid-measurement stops it.
  void linearAttentionClaimIsMeasuredLive() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* view = part<GenerationTimeView>(w, "GenerationTimeView");
    QCOMPARE(centralTabs(w)->tabText(centralTabs(w)->indexOf(view)),
             QString("Linear attention = RNN"));
    RunConfig small = findPreset("linear-attention")->config;
    small.model.d_model = 16;
    small.model.heads = 2;
    small.model.layers = 1;
    small.task.length = 128;
    QVERIFY(w.presets()->measureGeneration(small));
    QVERIFY(w.presets()->isMeasuringGeneration());
    QVERIFY(!w.presets()->measureGeneration(small));  // one at a time
    QCOMPARE(centralTabs(w)->currentWidget(), view);
    QTRY_VERIFY_WITH_TIMEOUT(!w.presets()->isMeasuringGeneration(), 60000);
    QCOMPARE(view->probe().linear.points.size(), size_t{3});  // T = 32, 64, 128
    QCOMPARE(view->probe().softmax.points.size(), size_t{3});
    QVERIFY2(view->text().contains("holds: Causal linear attention is an RNN"),
             qPrintable(view->text()));
    test::grabShot(&w, "main_window_generation");
    // The preset itself (T up to 4096 at d128 L4) starts a measurement; closing the window stops
    // it and waits for its thread.
    QVERIFY(w.presets()->apply("linear-attention"));
    QVERIFY(w.presets()->isMeasuringGeneration());
    QVERIFY(w.statusText().contains("Linear attention is an RNN"));
  }
};

int main(int argc, char** argv) {
  rsalab::initRuntime();
  QApplication app(argc, argv);
  TestMainWindowFigures test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_main_window_figures.moc"
