// SPDX-License-Identifier: GPL-3.0-or-later
// LinearRnnRemPanel: the linear RNN computed by its recurrence equals Z plus the REM terms built
// from W's eigenvalues (../shared/spec/models.md, "Why REMs"), in double precision.
#include <qcustomplot.h>

#include <QtTest>

#include "support/test_registry.h"
#include "widgets/linear_rnn_rem_panel.h"

using namespace rsalab;

class TestLinearRnnRemPanel : public QObject {
  Q_OBJECT
 private slots:
  void recurrenceEqualsRemDecomposition() {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      const auto demo = LinearRnnDemo::random(seed, /*T=*/64);
      QVERIFY(demo.spectralRadius() < 1);
      QVERIFY(std::abs(demo.eigenvalues()[2].imag()) > 0);  // a complex pair
      const double err = demo.maxError();
      QVERIFY2(err <= 1e-5, qPrintable(QString("seed %1: max error %2").arg(seed).arg(err)));
    }
  }

  void panelShowsEigenvaluesAndError() {
    LinearRnnRemPanel panel;
    panel.resize(600, 600);
    panel.show();
    QVERIFY(panel.maxError() <= 1e-5);
    auto* plot = panel.findChild<QCustomPlot*>();
    QVERIFY(plot);
    QCOMPARE(plot->graph(0)->data()->size(), 4);
    panel.regenerate(7);
    QVERIFY(panel.maxError() <= 1e-5);
    const QString dir = qEnvironmentVariable("RSALAB_WIDGET_SHOTS");
    if (!dir.isEmpty()) {
      QDir().mkpath(dir);
      QTest::qWait(50);
      QVERIFY(panel.grab().save(dir + "/linear_rnn_rem_panel.png"));
    }
  }
};

RSALAB_REGISTER_TEST(TestLinearRnnRemPanel, QTEST_MAIN)
#include "test_widget_linear_rnn_rem_panel.moc"
