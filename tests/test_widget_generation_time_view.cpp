// SPDX-License-Identifier: GPL-3.0-or-later
// GenerationTimeView: points drawn as they arrive (time and state per method), the verdicts of a
// whole probe in its label, every point in its data export, and "Measure again".
#include <qcustomplot.h>

#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include "support/test_registry.h"
#include "widgets/generation_time_view.h"
#include "widgets/plot_export.h"

using namespace rsalab;

namespace {

GenerationPoint point(int64_t t, double ms, int64_t state) {
  GenerationPoint p;
  p.position = t;
  p.ms_per_token = ms;
  p.ms_q1 = 0.9 * ms;
  p.ms_q3 = 1.2 * ms;
  p.tokens = 16;
  p.state_floats = state;
  return p;
}

}  // namespace

class TestGenerationTimeView : public QObject {
  Q_OBJECT
 private slots:
  void drawsPointsLiveThenTheVerdicts() {
    GenerationTimeView view;
    view.resize(900, 600);
    view.show();
    view.begin("d16 h2 L1, T up to 4096");
    QVERIFY(view.text().contains("Measuring (d16 h2 L1"));
    LinearAttentionRnnProbe probe;
    probe.max_error = 2e-16;
    probe.values = 512;
    probe.model = "d16 h2 L1, B = 1";
    for (int64_t t : {32, 256, 4096}) {
      const auto lin = point(t, 0.5, 288);
      const auto soft = point(t, 0.5 + t / 1000.0, 2 * t * 16);
      view.addPoint("linear", lin);
      view.addPoint("softmax", soft);
      probe.linear.points.push_back(lin);
      probe.softmax.points.push_back(soft);
    }
    QVERIFY(view.text().contains("T = 4096"));
    QCustomPlot* plot = view.plot();
    // Per method: its time graph and its state graph (right axis), three points each.
    QCOMPARE(plot->graphCount(), 4);
    for (int g = 0; g < 4; ++g) QCOMPARE(plot->graph(g)->data()->size(), 3);
    QCOMPARE(plot->graph(3)->data()->at(2)->value, 2.0 * 4096 * 16);
    QCOMPARE(view.probe().softmax.points.size(), size_t{3});
    view.setProbe(probe);
    const QString text = view.text();
    QVERIFY2(text.contains("holds: Causal linear attention is an RNN"), qPrintable(text));
    QVERIFY2(text.contains("holds: Generating a token costs the same"), qPrintable(text));
    // The export carries every point of every curve.
    auto tables = PlotExport::of(plot)->data(false);
    int rows = 0;
    for (const auto& t : tables) rows += t.rows.size();
    QVERIFY(rows >= 12);
    const QString dir = qEnvironmentVariable("RSALAB_WIDGET_SHOTS");
    if (!dir.isEmpty()) {
      QDir().mkpath(dir);
      QTest::qWait(50);
      QVERIFY(view.grab().save(dir + "/generation_time_view.png"));
    }
  }

  void measureAgainAsksAndIsDisabledWhileRunning() {
    GenerationTimeView view;
    QSignalSpy asked(&view, &GenerationTimeView::measureRequested);
    auto* button = view.findChild<QPushButton*>("GenerationMeasure");
    QVERIFY(button);
    button->click();
    QCOMPARE(asked.count(), 1);
    view.setRunning(true);
    QVERIFY(!button->isEnabled());
    view.setRunning(false);
    QVERIFY(button->isEnabled());
    view.setMessage("The measurement failed: out of memory");
    QVERIFY(view.text().contains("out of memory"));
  }
};

RSALAB_REGISTER_TEST(TestGenerationTimeView, QTEST_MAIN)
#include "test_widget_generation_time_view.moc"
