// SPDX-License-Identifier: GPL-3.0-or-later
// The blocked attention kernel's block rows for short sequences, compiled with
// -D_GLIBCXX_ASSERTIONS (tests/CMakeLists.txt): std::clamp with lo > hi is undefined behaviour,
// which libstdc++'s assertions turn into an abort. Plain C++ and Qt Test: no LibTorch.
#include <QtTest>

#include "engine/kernels/blocked_attention_plan.h"

using namespace rsalab;

class TestBlockedAttentionPlan : public QObject {
  Q_OBJECT
 private slots:
  void rowsStayWithinOneAndTForEveryLength() {
    for (int64_t T = 1; T <= 300; ++T) {
      for (int64_t values : {int64_t{1}, int64_t{64}, int64_t{1000}, int64_t{64} * 1024}) {
        const int64_t rows = attentionBlockRows(T, values);
        QVERIFY2(
            rows >= 1 && rows <= T,
            qPrintable(QString("T = %1, block values %2: %3 rows").arg(T).arg(values).arg(rows)));
        if (T >= 16) QVERIFY(rows >= 16);
      }
    }
  }

  void shortSequencesTakeAllRowsInOneBlock() {
    QCOMPARE(attentionBlockRows(7, 64), int64_t{7});
    QCOMPARE(attentionBlockRows(7, 64 * 1024), int64_t{7});
    QCOMPARE(attentionBlockRows(1, 1), int64_t{1});
    QCOMPARE(attentionBlockRows(37, 64), int64_t{16});  // 64 / 37 = 1 row, raised to 16
    QCOMPARE(attentionBlockRows(64, 64 * 1024), int64_t{64});
    QCOMPARE(attentionBlockRows(4096, 64 * 1024), int64_t{16});
  }
};

QTEST_APPLESS_MAIN(TestBlockedAttentionPlan)
#include "test_blocked_attention_plan.moc"
