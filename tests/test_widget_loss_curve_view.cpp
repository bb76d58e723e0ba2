// SPDX-License-Identifier: GPL-3.0-or-later
// LossCurveView: every point kept, drawing bounded by pixel columns, EMA smoothing against a
// literal reference, markers, axis modes, visibility and the throttled redraw.
#include <qcustomplot.h>

#include <QtTest>
#include <cmath>
#include <random>

#include "support/test_registry.h"
#include "tests/support/widget_shots.h"
#include "widgets/curve_series.h"
#include "widgets/loss_curve_view.h"
#include "widgets/run_palette.h"
#include "widgets/run_store.h"
#include "widgets/runs_table.h"

using namespace rsalab;
using Curve = LossCurveView::Curve;

namespace {

// s_t = Σ_{i≤t} α^{t-i}(1-α) y_i / Σ_{i≤t} α^{t-i}(1-α): the debiased EMA written out literally.
std::vector<double> referenceEma(const std::vector<double>& y, double alpha) {
  std::vector<double> out;
  for (size_t t = 0; t < y.size(); ++t) {
    double num = 0, den = 0;
    for (size_t i = 0; i <= t; ++i) {
      const double w = std::pow(alpha, double(t - i)) * (1 - alpha);
      num += w * y[i];
      den += w;
    }
    out.push_back(num / den);
  }
  return out;
}

QCPPlottableLegendItem* legendItem(LossCurveView& view, const QString& name) {
  QCustomPlot* plot = view.plot();
  for (int i = 0; i < plot->legend->itemCount(); ++i) {
    auto* p = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i));
    if (p && p->plottable()->name() == name) return p;
  }
  return nullptr;
}

void clickLegend(LossCurveView& view, const QString& name) {
  view.flush();  // the legend's rects are laid out by a replot
  QCPPlottableLegendItem* item = legendItem(view, name);
  QVERIFY2(item, qPrintable("no legend entry " + name));
  QTest::mouseClick(view.plot(), Qt::LeftButton, {}, item->rect().center());
}

QPen graphPen(LossCurveView& view, const QString& name) {
  QCPPlottableLegendItem* item = legendItem(view, name);
  return item ? item->plottable()->pen() : QPen();
}

void fillNoisy(LossCurveView& view, int run, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 0.05);
  for (int i = 0; i < n; ++i) {
    const double loss = 2.0 * std::exp(-i / double(n / 4 + 1)) + 0.1 + noise(rng);
    view.appendTrain(run, i, 32.0 * i, std::max(loss, 0.01));
    if (i % std::max(1, n / 20) == 0) view.appendValidation(run, i, 32.0 * i, 0.9 * loss + 0.1);
  }
}

QCustomPlot* plotOf(LossCurveView& view) { return view.findChild<QCustomPlot*>(); }

}  // namespace

class TestLossCurveView : public QObject {
  Q_OBJECT
 private slots:
  void keepsEveryPointDrawsBounded() {
    LossCurveView view;
    view.resize(800, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.addRun(0, "rsa");
    fillNoisy(view, 0, 100000, 1);
    view.flush();
    QCOMPARE(view.series(0, Curve::kTrain)->size(), size_t(100000));
    const int w = view.plotWidthPixels();
    QVERIFY2(w > 500 && w < 800, qPrintable(QString::number(w)));
    const int drawn = view.drawnPointCount(0, Curve::kTrain);
    QVERIFY2(drawn <= 2 * w + 2 && drawn > w / 2,
             qPrintable(QString("drawn %1 for %2 px").arg(drawn).arg(w)));
    // Raw + smoothed + validation: still bounded by the pixel columns, not the data.
    QVERIFY(view.drawnPointCount() <= 3 * (2 * w + 2));
    // Zoomed in to fewer steps than pixels: every real point in range is drawn.
    view.setXRange(5000, 5100);
    view.flush();
    QCOMPARE(view.drawnPointCount(0, Curve::kTrain), 101 + 2);  // + one neighbour each side
    QCOMPARE(view.series(0, Curve::kTrain)->size(), size_t(100000));
  }
  void decimationKeepsExtremes() {
    // A single spike among 10⁴ flat points survives min/max decimation into 100 columns.
    std::vector<double> x, y;
    for (int i = 0; i < 10000; ++i) {
      x.push_back(i);
      y.push_back(i == 4321 ? 9.0 : 1.0);
    }
    QVector<QCPGraphData> out;
    decimateMinMax(x, y, 0, 9999, 100, /*positive_only=*/false, &out);
    QVERIFY(out.size() <= 200);
    bool spike = false;
    for (const auto& p : out) spike |= (p.key == 4321 && p.value == 9.0);
    QVERIFY(spike);
    for (int i = 1; i < out.size(); ++i) QVERIFY(out[i].key >= out[i - 1].key);
  }
  void emaMatchesReference() {
    CurveSeries s;
    s.setSmoothing(0.5);
    for (double v : {1.0, 3.0, 5.0}) s.append(0, 0, v);
    QVERIFY(std::abs(s.smoothed()[0] - 1.0) < 1e-12);
    QVERIFY(std::abs(s.smoothed()[1] - 7.0 / 3.0) < 1e-12);   // (0.25·1 + 0.5·3) / 0.75
    QVERIFY(std::abs(s.smoothed()[2] - 27.0 / 7.0) < 1e-12);  // (0.125 + 0.75 + 2.5) / 0.875

    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0, 4);
    std::vector<double> y(300);
    for (double& v : y) v = u(rng);
    CurveSeries t;
    for (size_t i = 0; i < y.size(); ++i) t.append(double(i), 0, y[i]);
    for (double alpha : {0.0, 0.6, 0.9, 0.999}) {
      t.setSmoothing(alpha);  // recomputed over the stored points
      const auto ref = referenceEma(y, alpha);
      double worst = 0;
      for (size_t i = 0; i < y.size(); ++i)
        worst = std::max(worst, std::abs(ref[i] - t.smoothed()[i]));
      QVERIFY2(worst < 1e-9, qPrintable(QString("α=%1: max |diff| %2").arg(alpha).arg(worst)));
    }
    t.setSmoothing(0);
    QCOMPARE(t.smoothed(), t.values());
  }
  void smoothingSetThroughView() {
    LossCurveView view;
    view.setSmoothing(0.9);
    for (double v : {4.0, 2.0, 1.0}) view.appendTrain(7, v, v, v);
    QCOMPARE(view.smoothing(), 0.9);
    QVERIFY(std::abs(view.series(7, Curve::kTrain)->smoothed()[1] -
                     referenceEma({4, 2, 1}, 0.9)[1]) < 1e-12);
    view.setSmoothing(5);  // clamped
    QCOMPARE(view.smoothing(), 0.999);
  }
  void markersAdded() {
    LossCurveView view;
    view.resize(700, 380);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    fillNoisy(view, 0, 1000, 2);
    view.addMarker(500, "lr 3e-3 → 1e-3", 0);
    view.addMarker(800, "restart");
    view.flush();
    QCOMPARE(view.markerCount(), 2);
    QCPItemText* label = nullptr;
    for (int i = 0; i < plotOf(view)->itemCount(); ++i) {
      if (auto* t = qobject_cast<QCPItemText*>(plotOf(view)->item(i));
          t && t->text().startsWith("lr")) {
        label = t;
      }
    }
    QVERIFY(label);
    QCOMPARE(label->text(), QString("lr 3e-3 → 1e-3"));
    QVERIFY(label->visible());
    QCOMPARE(label->position->coords().x(), 500.0);
    view.setXAxisMode(LossCurveView::XAxisMode::kSamplesSeen);
    view.flush();
    QCOMPARE(label->position->coords().x(), 500.0 * 32);  // placed by the run's samples at step 500
    view.setRunVisible(0, false);
    view.flush();
    QVERIFY(!label->visible());  // hidden with its run
    view.removeRun(0);
    QCOMPARE(view.markerCount(), 1);  // the run's marker went with it; the global one stays
    view.clearMarkers();
    QCOMPARE(view.markerCount(), 0);
  }
  void axisModesAndLogY() {
    LossCurveView view;
    view.resize(600, 300);
    fillNoisy(view, 1, 500, 4);
    view.appendTrain(1, 500, 16000, -1.0);  // cannot be drawn on a log axis
    view.flush();
    QCOMPARE(plotOf(view)->xAxis->label(), QString("step"));
    QCOMPARE(plotOf(view)->yAxis->label(), QString("loss"));
    QVERIFY(plotOf(view)->xAxis->range().upper < 600);
    view.setXAxisMode(LossCurveView::XAxisMode::kSamplesSeen);
    view.flush();
    QCOMPARE(plotOf(view)->xAxis->label(), QString("samples seen"));
    QVERIFY(plotOf(view)->xAxis->range().upper >= 15000);
    view.setLogY(true);
    view.flush();
    QCOMPARE(plotOf(view)->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(plotOf(view)->yAxis->range().lower > 0);
    for (int i = 0; i < plotOf(view)->graphCount(); ++i) {
      for (auto it = plotOf(view)->graph(i)->data()->constBegin();
           it != plotOf(view)->graph(i)->data()->constEnd(); ++it) {
        QVERIFY(it->value > 0);
      }
    }
  }
  // A log axis over less than a decade (a diverged run's losses 1.8 .. 3.5) labels every tick
  // differently: with one significant digit 2.5 and 3 both read "3·10⁰".
  void logAxisLabelsDoNotRepeat() {
    LossCurveView view;
    view.resize(800, 500);
    view.addRun(0, "rnn s0");
    for (int s = 1; s <= 50; ++s) view.appendTrain(0, s, s * 32, 1.8 + 1.7 * (s % 7) / 6.0);
    view.setLogY(true);
    view.flush();
    plotOf(view)->replot();
    const QVector<QString> labels = plotOf(view)->yAxis->tickVectorLabels();
    QVERIFY(labels.size() >= 2);
    for (int i = 1; i < labels.size(); ++i)
      QVERIFY2(!labels.mid(0, i).contains(labels[i]),
               qPrintable(QStringList(labels.toList()).join(", ")));
    // Over several decades: powers of ten.
    for (int s = 51; s <= 60; ++s) view.appendTrain(0, s, s * 32, std::pow(10.0, -(s - 50)));
    view.flush();
    QCOMPARE(plotOf(view)->yAxis->numberFormat(), QString("eb"));
  }
  void visibilityAndLegendClick() {
    LossCurveView view;
    view.resize(700, 380);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    fillNoisy(view, 0, 200, 5);
    fillNoisy(view, 1, 200, 6);
    view.flush();
    view.setRunVisible(1, false);  // no store: the view keeps the run's visibility itself
    view.flush();
    QCOMPARE(view.drawnPointCount(1, Curve::kTrain), 0);
    QVERIFY(view.drawnPointCount(0, Curve::kTrain) > 0);
    // Clicking run 1's legend entry shows it again.
    clickLegend(view, "run 1");
    QVERIFY(view.isRunVisible(1));
  }
  // With a store, the legend and the runs table's box are one state: a legend click clears the
  // table's box, and ticking the box shows the curve again; the store's colour is the curve's.
  void legendAndRunsTableShareVisibility() {
    RunStore store;
    RunsTable table;
    table.setStore(&store);
    LossCurveView view;
    view.setStore(&store);
    view.resize(700, 380);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Run a, b;
    a.id = RunId(RunSource::Live, 0);
    a.what.model = "rnn";
    b.id = RunId(RunSource::Live, 1);
    b.what.model = "rsa";
    store.add(a);
    store.add(b, QColor(10, 200, 30));
    view.addRun(a.id, "rnn s0");
    view.addRun(b.id, "rsa s0");
    fillNoisy(view, 0, 100, 5);
    fillNoisy(view, 1, 100, 6);
    view.flush();
    QCOMPARE(graphPen(view, "rsa s0").color(), QColor(10, 200, 30));
    const QModelIndex box = store.index(1, RunStore::kVisible);
    QCOMPARE(table.model()->data(box, Qt::CheckStateRole).toInt(), int(Qt::Checked));
    clickLegend(view, "rsa s0");  // the legend → the store → the table's box
    QCOMPARE(table.model()->data(box, Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(!store.isVisible(b.id));
    QVERIFY(!view.isRunVisible(b.id));
    view.flush();
    QCOMPARE(view.drawnPointCount(b.id, Curve::kTrain), 0);
    // The table's box (the user ticks it: the view's setData) → the store → the legend.
    QVERIFY(table.model()->setData(box, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(view.isRunVisible(b.id));
    view.flush();
    QVERIFY(view.drawnPointCount(b.id, Curve::kTrain) > 0);
    // setRunVisible on a stored run writes through the store as well.
    view.setRunVisible(a.id, false);
    QVERIFY(!store.isVisible(a.id));
    // A run added to the store hidden keeps the store's state when its curve arrives later.
    Run c;
    c.id = RunId(RunSource::Live, 2);
    store.add(c);
    QVERIFY(store.setData(store.index(2, RunStore::kVisible), Qt::Unchecked, Qt::CheckStateRole));
    view.addRun(c.id, "late");
    QVERIFY(!view.isRunVisible(c.id));
  }
  void appendsRedrawOnTimerOnly() {
    LossCurveView view;
    view.resize(600, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.flush();
    for (int i = 0; i < 50; ++i) view.appendTrain(0, i, i, 1.0 / (i + 1));
    QCOMPARE(view.drawnPointCount(0, Curve::kTrain), 0);  // appends only mark dirty
    QTRY_COMPARE_WITH_TIMEOUT(view.drawnPointCount(0, Curve::kTrain), 50, 1000);
  }
  void hiddenViewDrawsWhenShown() {
    LossCurveView view;
    view.resize(600, 300);
    for (int i = 0; i < 50; ++i) view.appendTrain(0, i, i, 1.0 / (i + 1));
    QTest::qWait(3 * LossCurveView::kRepaintIntervalMs);
    QCOMPARE(view.drawnPointCount(0, Curve::kTrain), 0);  // hidden: nothing drawn
    view.show();
    QTRY_COMPARE_WITH_TIMEOUT(view.drawnPointCount(0, Curve::kTrain), 50, 1000);
  }
  void wheelZoomsAndStopsFollowing() {
    LossCurveView view;
    view.resize(600, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    fillNoisy(view, 0, 1000, 10);
    view.flush();
    QCustomPlot* plot = plotOf(view);
    const QCPRange before = plot->xAxis->range();
    const QPointF at = plot->axisRect()->rect().center();
    QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(plot, &wheel);
    QVERIFY(plot->xAxis->range().size() < 0.95 * before.size());
    view.appendTrain(0, 5000, 5000 * 32, 0.2);
    view.flush();
    QVERIFY(plot->xAxis->range().upper < 1000);  // the user's zoom is kept
  }
  void doubleClickFitsAll() {
    LossCurveView view;
    view.resize(600, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    fillNoisy(view, 0, 1000, 7);
    view.setXRange(10, 20);
    view.flush();
    QVERIFY(plotOf(view)->xAxis->range().upper < 100);
    QTest::mouseDClick(plotOf(view), Qt::LeftButton, {}, plotOf(view)->axisRect()->rect().center());
    view.flush();
    QVERIFY(plotOf(view)->xAxis->range().upper >= 999);
    // Following again: new data extends the range.
    view.appendTrain(0, 5000, 5000 * 32, 0.2);
    view.flush();
    QVERIFY(plotOf(view)->xAxis->range().upper >= 5000);
    view.clear();
    QVERIFY(view.runIds().empty());
    QCOMPARE(view.drawnPointCount(), 0);
  }
  // A validation point lands at the samples the run had seen when it was evaluated, so changing
  // the batch size between evaluations moves no point (batch 8 up to step 10, then 16).
  void evaluationsLandAtTheirSamplesSeen() {
    LossCurveView view;
    view.addRun(0, "rsa");
    int64_t seen = 0;
    for (int64_t step = 1; step <= 20; ++step) {
      seen += step <= 10 ? 8 : 16;
      view.appendStep(0, StepMetrics{step, seen, 1.0 / double(step), 1e-3, 0, 0});
      if (step % 10 == 0) {
        EvalMetrics e;
        e.step = step;
        e.samples_seen = seen;
        e.split = Split::Validation;
        e.loss = 2.0 / double(step);
        view.appendEvaluation(0, e);
        e.split = Split::Test;  // not a validation point
        view.appendEvaluation(0, e);
      }
    }
    const CurveSeries* validation = view.series(0, LossCurveView::Curve::kValidation);
    QVERIFY(validation);
    QCOMPARE(validation->steps(), (std::vector<double>{10, 20}));
    QCOMPARE(validation->samplesSeen(), (std::vector<double>{80, 240}));
    const CurveSeries* train = view.series(0, LossCurveView::Curve::kTrain);
    QCOMPARE(train->samplesSeen()[9], 80.0);  // the training curve at the same x
    QCOMPARE(train->samplesSeen()[19], 240.0);
  }

  // Every run's colour is in the picture, on linear and on log axes.
  void pictureShowsEveryRunsCurve() {
    LossCurveView view;
    view.resize(820, 420);
    view.addRun(0, "transformer");
    view.addRun(1, "rsa");
    view.addRun(2, "lstm");
    fillNoisy(view, 0, 3000, 8);
    std::mt19937 rng(9);
    std::normal_distribution<double> noise(0, 0.04);
    for (int i = 0; i < 3000; ++i) {
      view.appendTrain(1, i, 32.0 * i, 1.6 * std::exp(-i / 500.0) + 0.05 + noise(rng));
      view.appendTrain(2, i, 32.0 * i, 1.2 * std::exp(-i / 1500.0) + 0.3 + noise(rng));
      if (i % 150 == 0) view.appendValidation(1, i, 32.0 * i, 1.5 * std::exp(-i / 500.0) + 0.12);
    }
    view.addMarker(1000, "lr 3e-3 → 1e-3", 1);
    view.addMarker(2000, "batch 32 → 64");
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.flush();
    const QImage linear = rsalab::test::grabShot(&view, "loss_curve_view");
    QVERIFY(!linear.isNull());
    for (int run : {0, 1, 2}) QVERIFY(rsalab::test::countColor(linear, runColor(run)) > 20);
    view.setLogY(true);
    view.flush();
    const QImage log = rsalab::test::grabShot(&view, "loss_curve_view_log");
    for (int run : {0, 1, 2}) QVERIFY(rsalab::test::countColor(log, runColor(run)) > 20);
    QVERIFY(log != linear);
  }
};

RSALAB_REGISTER_TEST(TestLossCurveView, QTEST_MAIN)
#include "test_widget_loss_curve_view.moc"
