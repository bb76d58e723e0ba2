// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's self-test (engine/selftest/selftest.h; `rsalab-cli selftest`) on the CPU, one row
// per check: the REM builders against their loops, each card against its model and the peer's
// classes (skipped, saying why, without a Python with torch), causality and generation steps of
// every model, each model's registered forms and gradient checks, float64 gradients against
// central differences and the overfit runs, so that CI runs the same checks as
// `selftest --device cuda` on a GPU.
#include <algorithm>
#include <map>

#include "engine/core/registry/model_registry.h"
#include "engine/selftest/selftest.h"
#include "support/test_support.h"

using namespace rsalab;

class TestSelftest : public QObject {
  Q_OBJECT
  std::map<std::string, SelfCheckOutcome> outcomes_;

 private slots:
  void initTestCase() {
    for (auto& outcome : runSelftest("cpu")) outcomes_[outcome.check.name] = outcome;
  }
  void checkPasses_data() {
    QTest::addColumn<QString>("name");
    for (const auto& check : selfCheckList())
      QTest::newRow(check.name.c_str()) << QString::fromStdString(check.name);
  }
  void checkPasses() {
    QFETCH(QString, name);
    const auto found = outcomes_.find(name.toStdString());
    QVERIFY2(found != outcomes_.end(), "the check did not run");
    const auto& outcome = found->second;
    qInfo("%s", formatOutcome(outcome, "cpu", /*detail=*/true).c_str());
    if (outcome.result.skipped) QSKIP(outcome.result.detail.c_str());
    QVERIFY2(outcome.result.passed, outcome.result.detail.c_str());
  }
  // Every check covers a registered model and belongs to one of the nine groups.
  void checksNameTheirGroupAndModel() {
    const std::vector<std::string> groups = {"rem",          "card",      "peer",
                                             "forms",        "causality", "kv-cache",
                                             "linear-forms", "gradients", "overfit"};
    for (const auto& check : selfCheckList()) {
      QVERIFY2(findModel(check.model) != nullptr, check.name.c_str());
      QVERIFY2(std::find(groups.begin(), groups.end(), check.group) != groups.end(),
               check.name.c_str());
      QVERIFY2(check.name.rfind(check.group + "/", 0) == 0, check.name.c_str());
    }
  }
};

RSALAB_TEST_MAIN(TestSelftest)
#include "test_selftest.moc"
