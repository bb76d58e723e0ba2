// SPDX-License-Identifier: GPL-3.0-or-later
// ComparisonTable: one row per model, numeric sorting on every column (not text order), the
// per-N loss columns, and the "differences only" toggle hiding config keys every model shares.
#include <QCheckBox>
#include <QTableWidget>
#include <QtTest>

#include "support/test_registry.h"
#include "widgets/comparison_table.h"

using namespace rsalab;

namespace {
QVector<ComparisonEntry> entries() {
  ComparisonEntry a, b, c;
  a.name = "gru";
  a.parameters = 900;
  a.flops_per_token = 2.0e5;
  a.steps_per_second = 40;
  a.wall_seconds = 12;
  a.runs = 3;
  a.test_loss = {{16, 0.9}, {256, 0.3}};
  a.config = {{"model.d_model", "32"}, {"model.layers", "2"}, {"trainer.max_steps", "300"}};
  b = a;
  b.name = "rsa";
  b.parameters = 10000;
  b.flops_per_token = 1.5e6;
  b.steps_per_second = 9.5;
  b.test_loss = {{16, 0.7}, {256, 0.25}};
  b.config = {{"model.d_model", "32"},
              {"model.layers", "2"},
              {"trainer.max_steps", "300"},
              {"model.rem.regular", "1"},
              {"model.heads", "4"}};
  c = a;
  c.name = "transformer";
  c.parameters = 50;
  c.flops_per_token = 1.4e6;
  c.steps_per_second = 11;
  c.test_loss = {{16, 1.1}};  // no N = 256 run
  c.config = {{"model.d_model", "32"},
              {"model.layers", "3"},
              {"trainer.max_steps", "300"},
              {"model.heads", "4"}};
  return {a, b, c};
}
}  // namespace

class TestComparisonTable : public QObject {
  Q_OBJECT
 private slots:
  void showsOneRowPerModelWithLossPerN() {
    ComparisonTable t;
    t.setEntries(entries());
    QCOMPARE(t.table()->rowCount(), 3);
    QCOMPARE(t.table()->columnCount(), ComparisonTable::kFirstLoss + 2);
    QCOMPARE(t.table()->horizontalHeaderItem(ComparisonTable::kFirstLoss + 1)->text(),
             QString("test loss N=256"));
    QCOMPARE(t.table()->item(1, ComparisonTable::kFlops)->text(), QString("1.50 M"));
    QCOMPARE(t.table()->item(2, ComparisonTable::kFirstLoss + 1)->text(), QString("–"));
  }

  void sortsNumericallyNotAsText() {
    ComparisonTable t;
    t.setEntries(entries());
    t.table()->sortItems(ComparisonTable::kParameters, Qt::AscendingOrder);
    // As text "10000" < "50" < "900"; as numbers 50 < 900 < 10000.
    QCOMPARE(t.modelOrder(), (QStringList{"transformer", "gru", "rsa"}));
    t.table()->sortItems(ComparisonTable::kStepsPerSecond, Qt::DescendingOrder);
    QCOMPARE(t.modelOrder(), (QStringList{"gru", "transformer", "rsa"}));
    t.table()->sortItems(ComparisonTable::kFirstLoss, Qt::AscendingOrder);  // loss at N = 16
    QCOMPARE(t.modelOrder(), (QStringList{"rsa", "gru", "transformer"}));
    t.table()->sortItems(ComparisonTable::kFirstLoss + 1,
                         Qt::AscendingOrder);  // missing sorts last
    QCOMPARE(t.modelOrder(), (QStringList{"rsa", "gru", "transformer"}));
  }

  void differencesOnlyHidesKeysEveryModelShares() {
    ComparisonTable t;
    t.setEntries(entries());
    QCOMPARE(t.visibleConfigKeys(), (QStringList{"model.d_model", "model.heads", "model.layers",
                                                 "model.rem.regular", "trainer.max_steps"}));
    t.differencesOnlyBox()->click();  // the user's toggle
    QVERIFY(t.differencesOnly());
    // d_model and max_steps agree everywhere; heads and rem are missing for some ("–"), layers
    // differ.
    QCOMPARE(t.visibleConfigKeys(),
             (QStringList{"model.heads", "model.layers", "model.rem.regular"}));
    t.setDifferencesOnly(false);
    QVERIFY(!t.differencesOnlyBox()->isChecked());
    QCOMPARE(t.visibleConfigKeys().size(), 5);
    t.setDifferencesOnly(true);
    auto same = entries();
    for (auto& e : same) e.config = {{"model.d_model", "32"}};
    t.setEntries(same);  // the filter survives new data
    QVERIFY(t.visibleConfigKeys().isEmpty());
  }
};

RSALAB_REGISTER_TEST(TestComparisonTable, QTEST_MAIN)
#include "test_widget_comparison_table.moc"
