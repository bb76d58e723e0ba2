// SPDX-License-Identifier: GPL-3.0-or-later
// SnapshotHistory: bounded memory per run, exact and nearest-below lookups, thinning that keeps
// the first and the latest records.
#include <QtTest>
#include <algorithm>

#include "support/test_registry.h"
#include "widgets/snapshot_history.h"

using namespace rsalab;

namespace {

InspectionRecord recordFor(qint64 step) {
  InspectionRecord r;
  r.sample = step;  // a tag to recognise the record by
  r.model = "rsa";
  LayerInspection layer;
  HeadInspection head;
  head.has_rem = true;
  head.rem_kind = RemKind::Regular;
  head.lambda = 1.0 / double(step + 1);
  layer.heads.push_back(head);
  r.layers.push_back(layer);
  return r;
}

}  // namespace

class TestSnapshotHistory : public QObject {
  Q_OBJECT
 private slots:
  void boundedAfterManyInserts() {
    SnapshotHistory history;
    for (qint64 s = 1; s <= 5000; ++s) history.insert(/*run=*/0, s * 10, recordFor(s * 10));
    QVERIFY(history.size(0) <= history.maxPerRun());
    QVERIFY(history.size(0) >= SnapshotHistory::kRecentKept);
    const auto steps = history.steps(0);
    QVERIFY(std::is_sorted(steps.begin(), steps.end()));
    // The newest kRecentKept steps are all there, unthinned.
    for (qint64 s = 5000 - SnapshotHistory::kRecentKept + 1; s <= 5000; ++s)
      QCOMPARE(history.stepAt(0, s * 10), s * 10);
  }

  void thinningKeepsFirstAndLatest() {
    SnapshotHistory history(/*recent=*/20, /*older_cap=*/10);
    for (qint64 s = 1; s <= 1000; ++s) history.insert(/*run=*/3, s, recordFor(s));
    const auto steps = history.steps(3);
    QVERIFY(steps.size() <= 30u);
    QCOMPARE(steps.front(), qint64(1));
    QCOMPARE(steps.back(), qint64(1000));
    QCOMPARE(history.at(3, 1)->sample, qint64(1));
    QCOMPARE(history.at(3, 1000)->sample, qint64(1000));
  }

  void byteBudgetThinsAndKeepsFirstAndLatest() {
    InspectionRecord big = recordFor(0);
    big.layers[0].heads[0].attention = Matrix{64, 64, std::vector<float>(64 * 64, 0.5f)};
    const qint64 each = SnapshotHistory::recordBytes(big);
    QCOMPARE(each, qint64(64 * 64 * sizeof(float)));
    SnapshotHistory history(/*recent=*/500, /*older_cap=*/250, /*bytes_per_run=*/each * 40);
    for (qint64 s = 1; s <= 300; ++s) {
      big.sample = s;
      history.insert(/*run=*/0, s, big);
    }
    QVERIFY(history.bytes(0) <= each * 40);
    QCOMPARE(history.bytes(0), each * history.size(0));
    const auto steps = history.steps(0);
    QCOMPARE(steps.front(), qint64(1));
    QCOMPARE(steps.back(), qint64(300));
  }

  void exactAndNearestBelow() {
    SnapshotHistory history;
    for (qint64 s : {1, 50, 100, 150}) history.insert(/*run=*/1, s, recordFor(s));
    history.insert(/*run=*/2, 7, recordFor(7));
    QVERIFY(history.at(1, 0) == nullptr);
    QVERIFY(history.at(9, 100) == nullptr);
    QCOMPARE(history.at(1, 100)->sample, qint64(100));
    QCOMPARE(history.at(1, 100)->layers[0].heads[0].lambda, 1.0 / 101.0);
    QCOMPARE(history.at(1, 149)->sample, qint64(100));
    QCOMPARE(history.at(1, 100000)->sample, qint64(150));
    QCOMPARE(history.stepAt(1, 60), qint64(50));
    QCOMPARE(history.at(2, 7)->sample, qint64(7));
    QCOMPARE(int(history.runs().size()), 2);
    history.insert(1, 50, recordFor(51));  // replaces
    QCOMPARE(history.at(1, 50)->sample, qint64(51));
    QCOMPARE(history.size(1), 4);
    history.clearRun(1);
    QCOMPARE(history.size(1), 0);
  }
};

RSALAB_REGISTER_TEST(TestSnapshotHistory, QTEST_GUILESS_MAIN)
#include "test_widget_snapshot_history.moc"
