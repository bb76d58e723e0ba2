// SPDX-License-Identifier: GPL-3.0-or-later
// HeatMapView: colour mapping (viridis, diverging centred on 0), locked scale, tooltips with
// labels, click-to-pin, and exact tooltips after downsampling past 512 cells.
#include <qcustomplot.h>

#include <QtTest>
#include <cmath>

#include "support/test_registry.h"
#include "tests/support/widget_shots.h"
#include "widgets/heat_map_support.h"
#include "widgets/heat_map_view.h"

using namespace rsalab;

namespace {

Matrix makeMatrix(int64_t rows, int64_t cols, float (*f)(int64_t, int64_t)) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) m.values.push_back(f(r, c));
  }
  return m;
}

bool near(const QColor& a, const QColor& b, int tol = 3) {
  return std::abs(a.red() - b.red()) <= tol && std::abs(a.green() - b.green()) <= tol &&
         std::abs(a.blue() - b.blue()) <= tol;
}

}  // namespace

class TestHeatMapView : public QObject {
  Q_OBJECT
 private slots:
  void viridisForNonNegativeData() {
    HeatMapView view;
    view.setMatrix(makeMatrix(4, 4, [](int64_t r, int64_t c) { return float(r * 4 + c); }));
    QCOMPARE(view.resolvedColorMode(), ColorMode::kSequential);
    QCOMPARE(view.colorValueLower(), 0.0);
    QCOMPARE(view.colorValueUpper(), 15.0);
    const QColor low = view.colorForValue(0), high = view.colorForValue(15);
    QVERIFY2(near(low, QColor(0x440154)), qPrintable(low.name()));    // viridis dark purple
    QVERIFY2(near(high, QColor(0xFDE725)), qPrintable(high.name()));  // viridis yellow
    // Perceptually ordered: relative luminance rises monotonically from low to high.
    double previous = -1;
    for (int i = 0; i <= 30; ++i) {
      const QColor c = view.colorForValue(0.5 * i);
      const double y = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
      QVERIFY2(y > previous, qPrintable(QString("luminance drops at %1").arg(0.5 * i)));
      previous = y;
    }
  }
  void divergingCentredOnZeroForSignedData() {
    HeatMapView view;
    view.setMatrix(makeMatrix(3, 3, [](int64_t r, int64_t c) { return float(r - 0.25 * c); }));
    // values -0.5 .. 2: diverging, symmetric ±max|v|
    QCOMPARE(view.resolvedColorMode(), ColorMode::kDiverging);
    QCOMPARE(view.colorValueLower(), -2.0);
    QCOMPARE(view.colorValueUpper(), 2.0);
    const QColor zero = view.colorForValue(0);
    QVERIFY2(zero.red() > 235 && zero.green() > 235 && zero.blue() > 235, qPrintable(zero.name()));
    const QColor neg = view.colorForValue(-2), pos = view.colorForValue(2);
    QVERIFY2(neg.blue() > neg.red() + 60, qPrintable(neg.name()));
    QVERIFY2(pos.red() > pos.blue() + 60, qPrintable(pos.name()));
  }
  void forcedModes() {
    HeatMapView view;
    view.setColorMode(ColorMode::kDiverging);
    view.setMatrix(makeMatrix(2, 2, [](int64_t r, int64_t c) { return float(r + c + 1); }));
    QCOMPARE(view.resolvedColorMode(), ColorMode::kDiverging);
    QCOMPARE(view.colorValueLower(), -3.0);
    QCOMPARE(view.colorValueUpper(), 3.0);
    view.setColorMode(ColorMode::kSequential);
    QCOMPARE(view.colorValueLower(), 1.0);
    QCOMPARE(view.colorValueUpper(), 3.0);
  }
  void lockedScaleKeepsRange() {
    HeatMapView view;
    view.setMatrix(makeMatrix(2, 2, [](int64_t r, int64_t c) { return float(r + c) / 2; }));
    view.setScaleLocked(true);
    view.setMatrix(makeMatrix(2, 2, [](int64_t r, int64_t c) { return float(10 * (r + c)); }));
    QCOMPARE(view.colorValueLower(), 0.0);
    QCOMPARE(view.colorValueUpper(), 1.0);
    // A value above the locked range saturates instead of rescaling.
    QCOMPARE(view.colorForValue(20), view.colorForValue(1));
    view.setScaleLocked(false);
    QCOMPARE(view.colorValueUpper(), 20.0);
  }
  void lockBeforeDataUsesFirstUpdate() {
    HeatMapView view;
    view.setScaleLocked(true);
    view.setMatrix(makeMatrix(2, 2, [](int64_t r, int64_t c) { return float(r + c); }));
    view.setMatrix(makeMatrix(2, 2, [](int64_t r, int64_t c) { return float(r - c - 5); }));
    QCOMPARE(view.resolvedColorMode(), ColorMode::kSequential);
    QCOMPARE(view.colorValueLower(), 0.0);
    QCOMPARE(view.colorValueUpper(), 2.0);
  }
  void tooltipWithLabels() {
    HeatMapView view;
    view.setMatrix(makeMatrix(3, 4, [](int64_t r, int64_t c) { return float(r * 4 + c) + 0.5f; }),
                   {"the", "cat", "sat"}, {"a", "b", "c"});
    QCOMPARE(view.tooltipFor(1, 2), QString("row 1 (cat), col 2 (c): 6.5"));
    QCOMPARE(view.tooltipFor(2, 3), QString("row 2 (sat), col 3: 11.5"));  // no label for col 3
    QVERIFY(view.tooltipFor(3, 0).isEmpty());
    QVERIFY(view.tooltipFor(0, -1).isEmpty());
  }
  void clickPinsCell() {
    HeatMapView view;
    view.resize(500, 400);
    view.setTitle("attention L0 H0");
    view.setMatrix(makeMatrix(6, 8, [](int64_t r, int64_t c) { return float(r * 10 + c); }));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.flush();
    QSignalSpy pinned(&view, &HeatMapView::cellPinned);
    auto* plot = view.findChild<QCustomPlot*>();
    QVERIFY(plot);
    QCOMPARE(view.cellAt(view.cellCenter(4, 7)), QPoint(7, 4));
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->mapFrom(&view, view.cellCenter(4, 7)));
    QCOMPARE(pinned.count(), 1);
    QCOMPARE(pinned[0][0].toInt(), 4);
    QCOMPARE(pinned[0][1].toInt(), 7);
    QCOMPARE(pinned[0][2].toDouble(), 47.0);
    QVERIFY(view.hasPinnedCell());
    // Outside the map: nothing.
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(pinned.count(), 1);
  }
  void downsamplingKeepsTooltipsExact() {
    HeatMapView view;
    view.resize(600, 500);
    view.setMatrix(makeMatrix(1000, 700, [](int64_t r, int64_t c) { return float(r * 1000 + c); }));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.flush();
    QVERIFY(view.drawnSize().width() <= HeatMapView::kMaxDrawnCells);
    QVERIFY(view.drawnSize().height() <= HeatMapView::kMaxDrawnCells);
    QCOMPARE(view.drawnSize(), QSize(512, 512));
    QCOMPARE(view.tooltipFor(999, 699), QString("row 999, col 699: 999699"));
    QCOMPARE(view.tooltipFor(517, 3), QString("row 517, col 3: 517003"));
    // Hover/click positions resolve to full-resolution cells, to within the cells one pixel
    // covers (here up to ~3 rows per pixel), including the edge cells.
    for (auto [r, c] :
         std::initializer_list<std::pair<int, int>>{{0, 0}, {999, 699}, {500, 350}, {123, 456}}) {
      const QPoint cell = view.cellAt(view.cellCenter(r, c));
      QVERIFY2(
          std::abs(cell.x() - c) <= 2 && std::abs(cell.y() - r) <= 3,
          qPrintable(QString("(%1, %2) -> (%3, %4)").arg(r).arg(c).arg(cell.y()).arg(cell.x())));
    }
    QCOMPARE(view.cellAt(view.cellCenter(0, 0)), QPoint(0, 0));
    QCOMPARE(view.cellAt(view.cellCenter(999, 699)), QPoint(699, 999));
  }
  void blockMeanMatchesLoops() {
    // The fast downsampler against a literal per-block loop (an independent computation).
    const Matrix m = makeMatrix(1030, 515, [](int64_t r, int64_t c) {
      return float(std::sin(0.37 * r) + std::cos(0.11 * c) + 0.001 * r * c);
    });
    const Matrix d = downsampleBlockMean(m, 512, 512);
    QCOMPARE(d.rows, int64_t(512));
    QCOMPARE(d.cols, int64_t(512));
    double worst = 0;
    for (int64_t i = 0; i < d.rows; ++i) {
      for (int64_t j = 0; j < d.cols; ++j) {
        double sum = 0;
        int n = 0;
        for (int64_t r = i * m.rows / d.rows; r < (i + 1) * m.rows / d.rows; ++r) {
          for (int64_t c = j * m.cols / d.cols; c < (j + 1) * m.cols / d.cols; ++c) {
            sum += m.at(r, c);
            ++n;
          }
        }
        worst = std::max(worst, std::abs(sum / n - d.at(i, j)));
      }
    }
    QVERIFY2(worst < 1e-4, qPrintable(QString("max |diff| %1").arg(worst)));
    // Small matrices are drawn as they are.
    const Matrix small = makeMatrix(5, 7, [](int64_t r, int64_t c) { return float(r + c); });
    QCOMPARE(downsampleBlockMean(small, 512, 512).values, small.values);
  }
  // Both colour maps are drawn: many saturated colours in each picture.
  void pictureShowsTheColourMap() {
    HeatMapView view;
    view.resize(560, 460);
    view.setTitle("L0 H1 softmax attention");
    view.setAxisLabels("key position", "query position");
    view.setValueLabel("weight");
    const QStringList tokens = {"The", "cat",   "sat", "on",  "the",  "mat",
                                "and", "slept", "all", "day", "long", "."};
    view.setMatrix(makeMatrix(12, 12,
                              [](int64_t r, int64_t c) {
                                return c > r ? 0.f
                                             : float(std::exp(-0.5 * (r - c)) / (1 + 0.2 * r));
                              }),
                   tokens, tokens);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.pinCell(5, 3);
    view.flush();
    const QImage sequential = rsalab::test::grabShot(&view, "heat_map_view_viridis");
    QVERIFY(!sequential.isNull());
    QVERIFY2(rsalab::test::saturatedColorCount(sequential) >= 20, "no colour map drawn");
    view.setTitle("L1 H0 REM (cos, γ=0.91, θ=0.52)");
    view.setMatrix(makeMatrix(40, 40, [](int64_t r, int64_t c) {
      return r < c ? 0.f : float(std::pow(0.91, r - c) * std::cos(0.52 * (r - c)));
    }));
    view.flush();
    const QImage diverging = rsalab::test::grabShot(&view, "heat_map_view_diverging");
    QVERIFY2(rsalab::test::saturatedColorCount(diverging) >= 20, "no colour map drawn");
    QVERIFY(diverging != sequential);
  }
};

RSALAB_REGISTER_TEST(TestHeatMapView, QTEST_MAIN)
#include "test_widget_heat_map_view.moc"
