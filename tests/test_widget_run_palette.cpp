// SPDX-License-Identifier: GPL-3.0-or-later
// Run palette: Okabe–Ito colours, distinct and stable per run index.
#include <QtTest>
#include <cmath>

#include "support/test_registry.h"
#include "widgets/run_palette.h"

using namespace rsalab;

class TestRunPalette : public QObject {
  Q_OBJECT
 private slots:
  void firstColoursAreOkabeIto() {
    QCOMPARE(runColorCount(), 8);
    QCOMPARE(runColor(0), QColor(0x0072B2));  // blue
    QCOMPARE(runColor(1), QColor(0xD55E00));  // vermillion
  }
  void coloursAreDistinct() {
    // Pairwise RGB distance well above "looks the same" for every pair of the first N colours,
    // including the wrapped-around second cycle.
    const int n = 2 * runColorCount();
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const QColor a = runColor(i), b = runColor(j);
        const double d =
            std::hypot(std::hypot(a.red() - b.red(), a.green() - b.green()), a.blue() - b.blue());
        QVERIFY2(d > 30, qPrintable(QString("runs %1 and %2 too close: %3 vs %4")
                                        .arg(i)
                                        .arg(j)
                                        .arg(a.name(), b.name())));
      }
    }
  }
  void sameRunSameColour() {
    for (int i = -3; i < 40; ++i) QCOMPARE(runColor(i), runColor(i));
    QCOMPARE(runColor(-2), runColor(2));
    QVERIFY(runColor(100).isValid());
  }
};

RSALAB_REGISTER_TEST(TestRunPalette, QTEST_MAIN)
#include "test_widget_run_palette.moc"
