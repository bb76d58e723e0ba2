// SPDX-License-Identifier: GPL-3.0-or-later
// SampleEfficiencyView and the sweep figures: the power-law slope read back from the legend, one
// mean line per model with the right mean and band, live points, click → run id; and the figure
// writer (what `rsalab-cli sweep --figures` calls) producing a real PNG and a parseable SVG.
#include <qcustomplot.h>

#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>
#include <random>

#include "app/figures/sweep_figures.h"
#include "engine/core/sweep/sweep_io.h"
#include "support/test_registry.h"
#include "widgets/sample_efficiency_view.h"

using namespace rsalab;

namespace {

struct LegendFit {
  double b = NAN, low = NAN, high = NAN;
};

LegendFit parseLegend(const QString& text) {
  static const QRegularExpression re("b = (-?[0-9.]+) \\[(-?[0-9.]+), (-?[0-9.]+)\\]");
  LegendFit f;
  const auto m = re.match(text);
  if (m.hasMatch()) {
    f.b = m.captured(1).toDouble();
    f.low = m.captured(2).toDouble();
    f.high = m.captured(3).toDouble();
  }
  return f;
}

// loss = a·N^(−b)·exp(noise) at N = 16 … 4096, `seeds` points per N.
QVector<SampleEfficiencyPoint> synthetic(const QString& model, double a, double b, int seeds,
                                         double noise, unsigned seed, int first_run) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> eps(0.0, noise);
  QVector<SampleEfficiencyPoint> out;
  int run = first_run;
  for (double n : {16.0, 64.0, 256.0, 1024.0, 4096.0}) {
    for (int s = 0; s < seeds; ++s) {
      out.push_back(
          {model, n, static_cast<quint64>(s), a * std::pow(n, -b) * std::exp(eps(rng)), run++});
    }
  }
  return out;
}

QCPGraph* meanGraph(QCustomPlot* plot, const QString& model) {
  for (int i = 0; i < plot->graphCount(); ++i) {
    if (plot->graph(i)->property("model").toString() == model) return plot->graph(i);
  }
  return nullptr;
}

}  // namespace

class TestSampleEfficiencyView : public QObject {
  Q_OBJECT
 private slots:
  void legendShowsTheFittedSlopeWithItsInterval() {
    SampleEfficiencyView view;
    view.resize(900, 600);
    auto points = synthetic("rsa", 2.5, 0.45, 3, 0.05, 4, 0);
    points += synthetic("gru", 1.2, 0.15, 3, 0.05, 5, 100);
    view.setPoints(points);
    view.flush();
    const auto rsa = parseLegend(view.legendText("rsa"));
    const auto gru = parseLegend(view.legendText("gru"));
    qInfo("legend: '%s' | '%s'", qPrintable(view.legendText("rsa")),
          qPrintable(view.legendText("gru")));
    QVERIFY2(std::abs(rsa.b - 0.45) < 0.03, qPrintable(view.legendText("rsa")));
    QVERIFY(rsa.low < 0.45 && 0.45 < rsa.high);
    QVERIFY(rsa.high - rsa.low < 0.1);
    QVERIFY2(std::abs(gru.b - 0.15) < 0.03, qPrintable(view.legendText("gru")));
    QVERIFY(gru.low < 0.15 && 0.15 < gru.high);
    // Exact power law: b exactly, zero-width interval.
    SampleEfficiencyView exact;
    exact.setPoints(synthetic("linear", 3.0, 0.7, 2, 0.0, 1, 0));
    exact.flush();
    const auto e = parseLegend(exact.legendText("linear"));
    QCOMPARE(e.b, 0.7);
    QCOMPARE(e.low, 0.7);
    QCOMPARE(e.high, 0.7);
  }

  // Where the task has a floor the view draws the excess, and its fit is the sweep's own
  // (fitSweep's excess fit, per seed): the same b, interval and a, not a pooled refit.
  void drawsTheSweepsExcessFit() {
    SweepResult sweep;
    const double floor = 0.25;
    const double b_of_seed[] = {0.4, 0.6, 0.9};  // seed-level spread in the exponent
    int run = 0;
    for (int seed = 0; seed < 3; ++seed)
      for (double n : {16.0, 64.0, 256.0, 1024.0}) {
        SweepRow r;
        r.run = run++;
        r.model = "rsa";
        r.size = static_cast<int64_t>(n);
        r.seed = static_cast<uint64_t>(seed);
        r.steps = 10;
        r.bayes_floor = floor;
        r.test_loss = floor + 2.0 * std::pow(n, -b_of_seed[seed]);
        sweep.rows.push_back(r);
      }
    fitSweep(sweep, {"rsa"});
    QCOMPARE(sweep.excess_fits.size(), size_t{1});
    const PowerLawFit& core = sweep.excess_fits[0];
    QCOMPARE(core.seeds(), int64_t{3});
    QVector<SampleEfficiencyPoint> points;
    for (const auto& r : sweep.rows)
      points.push_back({QString::fromStdString(r.model), static_cast<double>(r.size),
                        static_cast<quint64>(r.seed), r.test_loss, static_cast<int>(r.run), false,
                        r.bayes_floor});
    SampleEfficiencyView view;
    view.resize(900, 600);
    view.setPoints(points);
    view.flush();
    QVERIFY(view.quantity() == SampleEfficiencyView::Quantity::kExcessLoss);
    const PowerLawFit drawn = view.curve("rsa").fit;
    QCOMPARE(drawn.b, core.b);
    QCOMPARE(drawn.b_low, core.b_low);
    QCOMPARE(drawn.b_high, core.b_high);
    QCOMPARE(drawn.a, core.a);
    QVERIFY(std::abs(core.b - (0.4 + 0.6 + 0.9) / 3) < 1e-9);  // exact power laws per seed
    const auto legend = parseLegend(view.legendText("rsa"));
    QVERIFY2(std::abs(legend.b - core.b) < 5e-4, qPrintable(view.legendText("rsa")));
    QVERIFY(view.legendText("rsa").contains("3 seeds"));
  }

  void oneMeanLinePerModelWithTheMeanAndBand() {
    SampleEfficiencyView view;
    view.resize(900, 600);
    // Two seeds at each of two sizes for "a"; one model "b" with one size (no slope).
    view.setPoints({{"a", 10, 0, 1.0, 0},
                    {"a", 10, 1, 3.0, 1},
                    {"a", 100, 0, 0.5, 2},
                    {"a", 100, 1, 0.7, 3},
                    {"b", 10, 0, 2.0, 4},
                    {"b", 10, 1, -1.0, 5}});  // a loss <= 0 cannot be drawn
    view.flush();
    QCOMPARE(view.meanGraphCount(), 2);
    QCOMPARE(view.models(), (QStringList{"a", "b"}));
    auto* a = meanGraph(view.plot(), "a");
    QVERIFY(a);
    QCOMPARE(a->dataCount(), 2);
    QCOMPARE(a->data()->at(0)->key, 10.0);
    QCOMPARE(a->data()->at(0)->value, 2.0);  // (1 + 3) / 2
    QCOMPARE(a->data()->at(1)->value, 0.6);  // (0.5 + 0.7) / 2
    auto* b = meanGraph(view.plot(), "b");
    QCOMPARE(b->dataCount(), 1);
    QCOMPARE(b->data()->at(0)->value, 2.0);  // the -1 point is left out
    QVERIFY(view.legendText("b").contains("fit needs"));
    auto c = view.curve("a");
    QCOMPARE(c.low[0], 1.0);  // min–max band
    QCOMPARE(c.high[0], 3.0);
    view.setBand(SampleEfficiencyView::Band::kStdDev);
    c = view.curve("a");
    const double sd =
        std::sqrt(((1 - 2.0) * (1 - 2.0) + (3 - 2.0) * (3 - 2.0)) / 1.0);  // n − 1 = 1
    QVERIFY(std::abs(c.high[0] - (2.0 + sd)) < 1e-12);
    QVERIFY(c.low[0] > 0);  // 2 − 1.414 > 0 stays, never <= 0 on a log axis
    QVERIFY(std::abs(c.low[0] - (2.0 - sd)) < 1e-12);
    QVERIFY(view.plot()->xAxis->scaleType() == QCPAxis::stLogarithmic);
    QVERIFY(view.plot()->yAxis->scaleType() == QCPAxis::stLogarithmic);
  }

  void pointsArriveLiveAndRedrawIsThrottled() {
    SampleEfficiencyView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.addPoint({"rnn", 16, 0, 1.0, 0});
    QCOMPARE(view.pointCount(), 1);
    QCOMPARE(view.meanGraphCount(), 0);  // not drawn yet: the repaint timer draws
    QTRY_COMPARE_WITH_TIMEOUT(view.meanGraphCount(), 1, 2000);
    view.addPoint({"rnn", 64, 0, 0.5, 1});
    view.addPoint({"rsa", 16, 0, 0.9, 2});
    QTRY_COMPARE_WITH_TIMEOUT(view.meanGraphCount(), 2, 2000);
    QTRY_COMPARE_WITH_TIMEOUT(meanGraph(view.plot(), "rnn")->dataCount(), 2, 2000);
  }

  void clickingAPointEmitsItsRunId() {
    SampleEfficiencyView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setPoints({{"rnn", 16, 0, 1.0, 7}, {"rnn", 256, 0, 0.3, 8}, {"rsa", 16, 0, 0.5, 9}});
    view.flush();
    QSignalSpy spy(&view, &SampleEfficiencyView::pointClicked);
    const QPoint p = view.pixelOf(8);
    QVERIFY(p.x() > 0 && p.y() > 0);
    QCOMPARE(view.runAt(p), 8);
    QCOMPARE(view.runAt(p + QPoint(30, 30)), -1);
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, p);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 8);
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));  // empty corner
    QCOMPARE(spy.count(), 1);
  }

  void figuresAreAValidPngAndSvg() {
    QTemporaryDir dir;
    std::vector<SweepRow> rows;
    int64_t run = 0;
    for (const char* model : {"rnn", "rsa"}) {
      for (int64_t n : {16, 64, 256}) {
        for (uint64_t seed : {0u, 1u}) {
          SweepRow r;
          r.run = run++;
          r.model = model;
          r.size = n;
          r.seed = seed;
          r.steps = 20;
          r.stop_reason = StopReason::MaxSteps;
          r.test_loss =
              2.0 * std::pow(static_cast<double>(n), -0.3) * (1 + 0.05 * static_cast<double>(seed));
          for (int64_t s = 1; s <= 20; ++s) {
            StepMetrics m;
            m.step = s;
            m.train_loss = 1.0 / static_cast<double>(s);
            r.train_curve.push_back(m);
          }
          EvalMetrics e;
          e.step = 20;
          e.split = Split::Validation;
          e.loss = 0.06;
          r.validation_curve.push_back(e);
          rows.push_back(r);
        }
      }
    }
    FigureOptions o;
    o.out_dir = dir.filePath("figs").toStdString();
    o.title = "synthetic";
    const auto written = writeSweepFigures(rows, o);
    QCOMPARE(written.size(), size_t{4});
    for (const char* name : {"sample_efficiency", "loss"}) {
      QFile png(dir.filePath(QString("figs/%1.png").arg(name)));
      QVERIFY2(png.open(QIODevice::ReadOnly), name);
      const QByteArray bytes = png.readAll();
      QVERIFY(bytes.size() > 2000);
      QVERIFY(bytes.startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8)));
      const QImage image = QImage::fromData(bytes, "PNG");
      QCOMPARE(image.width(), o.width);
      QCOMPARE(image.height(), o.height);

      QFile svg(dir.filePath(QString("figs/%1.svg").arg(name)));
      QVERIFY2(svg.open(QIODevice::ReadOnly), name);
      QXmlStreamReader xml(&svg);
      QString root;
      int elements = 0;
      while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement) {
          if (root.isEmpty()) root = xml.name().toString();
          ++elements;
        }
      }
      QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
      QCOMPARE(root, QString("svg"));
      QVERIFY(elements > 20);  // axes, ticks, lines: not an empty canvas
    }
    QVERIFY(sweepFiguresAvailable());
  }
};

RSALAB_REGISTER_TEST(TestSampleEfficiencyView, QTEST_MAIN)
#include "test_widget_sample_efficiency_view.moc"
