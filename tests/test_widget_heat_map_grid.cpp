// SPDX-License-Identifier: GPL-3.0-or-later
// HeatMapGrid: titles per (layer, head), cells reused when the size is unchanged, clicks emit
// cellActivated, one shared colour scale.
#include <qcustomplot.h>

#include <QtTest>
#include <cmath>

#include "support/test_registry.h"
#include "tests/support/widget_shots.h"
#include "widgets/heat_map_grid.h"

using namespace rsalab;

namespace {

Matrix pattern(int64_t n, double shift) {
  Matrix m;
  m.rows = m.cols = n;
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      m.values.push_back(c > r ? 0.f : float(std::exp(-shift * double(r - c))));
    }
  }
  return m;
}

}  // namespace

class TestHeatMapGrid : public QObject {
  Q_OBJECT
 private slots:
  void titlesAndReuse() {
    HeatMapGrid grid;
    grid.setGridSize(2, 3);
    const int built = grid.rebuildCount();
    for (int l = 0; l < 2; ++l) {
      for (int h = 0; h < 3; ++h) {
        grid.setCell(l, h, pattern(8, 0.2 * (h + 1)), QString("L%1 H%2 cos γ=0.91").arg(l).arg(h));
      }
    }
    grid.setGridSize(2, 3);  // same size: nothing rebuilt
    QCOMPARE(grid.rebuildCount(), built);
    QCOMPARE(grid.cellTitle(1, 2), QString("L1 H2 cos γ=0.91"));
    QCOMPARE(grid.cellMatrix(1, 2).rows, int64_t(8));
    grid.setGridSize(3, 3);
    QCOMPARE(grid.rebuildCount(), built + 1);
    QCOMPARE(grid.layerCount(), 3);
    QVERIFY(grid.cellTitle(5, 0).isEmpty());
    QVERIFY(grid.tooltipFor(0, 0, 0, 0).isEmpty());  // rebuilt cells start empty
  }
  void clickEmitsCellActivated() {
    HeatMapGrid grid;
    grid.resize(700, 420);
    grid.setGridSize(2, 4);
    for (int l = 0; l < 2; ++l) {
      for (int h = 0; h < 4; ++h) grid.setCell(l, h, pattern(16, 0.1 * (h + 1)), "t");
    }
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    grid.flush();
    QSignalSpy activated(&grid, &HeatMapGrid::cellActivated);
    auto* plot = grid.findChild<QCustomPlot*>();
    QVERIFY(plot);
    const QRect r = grid.cellRect(1, 2);
    QVERIFY(r.isValid() && r.width() > 20);
    QCOMPARE(grid.cellAt(r.center()), QPoint(2, 1));
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->mapFrom(&grid, r.center()));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated[0][0].toInt(), 1);
    QCOMPARE(activated[0][1].toInt(), 2);
    // Cells do not overlap: the neighbour's centre is a different cell.
    QCOMPARE(grid.cellAt(grid.cellRect(1, 3).center()), QPoint(3, 1));
  }
  void sharedScaleCoversAllCells() {
    HeatMapGrid grid;
    grid.setGridSize(1, 2);
    Matrix a = pattern(4, 1), b = pattern(4, 1);
    for (float& v : b.values) v = -3 * v;
    grid.setCell(0, 0, a, "a");
    grid.setCell(0, 1, b, "b");
    grid.flush();
    QCOMPARE(grid.resolvedColorMode(), ColorMode::kDiverging);
    QCOMPARE(grid.colorValueLower(), -3.0);
    QCOMPARE(grid.colorValueUpper(), 3.0);
    QCOMPARE(grid.tooltipFor(0, 1, 0, 0), QString("L0 H1 — row 0, col 0: -3"));
    // The colour bar is labelled at both ends and in between (it once showed only 0.5).
    auto ticker = grid.colorScale()->axis()->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().size(), 5);
    QCOMPARE(ticker->ticks().value(-3.0), QString("-3"));
    QCOMPARE(ticker->ticks().value(0.0), QString("0"));
    QCOMPARE(ticker->ticks().value(3.0), QString("3"));
  }
  // The picture shows the colour-mapped cells (many saturated colours), not an empty frame.
  void pictureShowsTheColourMappedCells() {
    HeatMapGrid grid;
    grid.resize(760, 470);
    grid.setGridSize(2, 4);
    const char* kinds[] = {"regular", "cos", "sin", "softmax"};
    for (int l = 0; l < 2; ++l) {
      for (int h = 0; h < 4; ++h) {
        grid.setCell(l, h, pattern(32, 0.05 + 0.15 * h + 0.1 * l),
                     QString("L%1 H%2 %3 γ=0.%4 θ=0.52 σ(µ)=0.43")
                         .arg(l)
                         .arg(h)
                         .arg(kinds[h])
                         .arg(91 - 7 * h));
      }
    }
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    grid.flush();
    const QImage shot = rsalab::test::grabShot(&grid, "heat_map_grid");
    QVERIFY(!shot.isNull());
    QVERIFY2(rsalab::test::saturatedColorCount(shot) >= 20, "no colour-mapped cells drawn");
  }
};

RSALAB_REGISTER_TEST(TestHeatMapGrid, QTEST_MAIN)
#include "test_widget_heat_map_grid.moc"
