// SPDX-License-Identifier: GPL-3.0-or-later
// RegimeMapView (the seed paper's Figure 1, live): one heat map per model of the mean excess loss
// over seeds on one shared, locked colour scale; the winner map (the winner's colour, a marked tie,
// an empty pending cell) read back from the drawing; the tooltip; a click → the cell's run id;
// CSV / image exports; and the regime map of `rsalab-cli sweep --figures`.
#include <qcustomplot.h>

#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>

#include "app/figures/sweep_figures.h"
#include "support/test_registry.h"
#include "tests/support/widget_shots.h"
#include "widgets/plot_export.h"
#include "widgets/regime_map_view.h"
#include "widgets/run_palette.h"
#include "widgets/sample_efficiency_view.h"

using namespace rsalab;

namespace {

// Three models × axis {0, 0.5, 1} × N {16, 64, 256} × 3 seeds. gru wins clearly at a = 0, rsa at
// a = 1, rsa and gru tie at a = 0.5 (seeds spread widely, and in opposite directions, so the
// paired interval covers 0); at (a = 1, N = 256) only rsa ran
// (pending). The transformer is 20× worse everywhere (the means span more than a decade).
std::vector<RegimePoint> synthetic() {
  std::vector<RegimePoint> out;
  int64_t run = 0;
  for (const char* model : {"rsa", "gru", "transformer"}) {
    for (double a : {0.0, 0.5, 1.0}) {
      for (int64_t n : {16, 64, 256}) {
        if (a == 1.0 && n == 256 && std::string(model) != "rsa") continue;
        for (uint64_t s = 0; s < 3; ++s) {
          const double scale = 1.0 / std::sqrt(double(n));
          double base, jitter = 0.01;
          if (a == 0.5) {
            base = std::string(model) == "gru" ? 1.05 : 1.0;
            jitter = 0.3;
          } else {
            const bool rsa_wins = a == 1.0;
            base = (std::string(model) == "rsa") == rsa_wins ? 0.5 : 1.0;
          }
          if (std::string(model) == "transformer") base = 20;
          // At a = 0.5 gru's seeds move against rsa's: the paired differences change sign.
          const double sign = a == 0.5 && std::string(model) == "gru" ? -1.0 : 1.0;
          out.push_back(
              {model, a, n, s, base * scale * (1 + sign * jitter * (double(s) - 1)), run++});
        }
      }
    }
  }
  return out;
}

// The test's own means, apart from the core library's: (model, a, N) → mean.
std::map<std::tuple<std::string, double, int64_t>, double> means(
    const std::vector<RegimePoint>& points) {
  std::map<std::tuple<std::string, double, int64_t>, std::pair<double, int>> sums;
  for (const auto& p : points) {
    auto& s = sums[{p.model, p.axis_value, p.size}];
    s.first += p.excess;
    s.second += 1;
  }
  std::map<std::tuple<std::string, double, int64_t>, double> out;
  for (const auto& [key, s] : sums) out[key] = s.first / s.second;
  return out;
}

int lowestRun(const std::vector<RegimePoint>& points, const std::string& model, double a,
              int64_t n) {
  int best = -1;
  for (const auto& p : points) {
    if (p.model == model && p.axis_value == a && p.size == n && (best < 0 || p.run < best))
      best = static_cast<int>(p.run);
  }
  return best;
}

bool near(const QColor& a, const QColor& b, int tolerance = 6) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestRegimeMapView : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  void fill(RegimeMapView& view, QSize size = {1400, 700}) {
    view.setAxisName("mix.share");
    view.setPoints(synthetic());
    view.resize(size);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.flush();
  }

 private slots:
  void mapsShowTheMeansOnOneSharedScale() {
    RegimeMapView view;
    fill(view);
    QVERIFY(view.showsMaps());
    const auto expected = means(synthetic());
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [key, mean] : expected) {
      lo = std::min(lo, mean);
      hi = std::max(hi, mean);
    }
    QCOMPARE(view.models(), (QStringList{"gru", "transformer", "rsa"}));  // registry order
    const QCPRange shared = view.colorScale()->dataRange();
    QVERIFY(view.logColorScale());  // 20× apart: more than a decade
    QCOMPARE(view.colorScale()->dataScaleType(), QCPAxis::stLogarithmic);
    QVERIFY(qFuzzyCompare(shared.lower, lo));
    QVERIFY(qFuzzyCompare(shared.upper, hi));
    const auto& m = view.regimeMap();
    for (const QString& model : view.models()) {
      QCPColorMap* map = view.colorMap(model);
      QVERIFY2(map, qPrintable(model));
      QCOMPARE(map->dataRange(), shared);  // every map on the same, locked range
      QCOMPARE(map->colorScale(), view.colorScale());
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          const double drawn = map->data()->data(i, j);  // column i = a, row j = N (upward)
          const auto it = expected.find({model.toStdString(), m.axis_values[i], m.sizes[j]});
          if (it == expected.end()) {
            QVERIFY2(std::isnan(drawn), qPrintable(QString("%1 %2 %3").arg(model).arg(i).arg(j)));
          } else {
            QVERIFY2(std::abs(drawn - it->second) < 1e-12 * it->second,
                     qPrintable(QString("%1 at (%2, %3): %4 vs %5")
                                    .arg(model)
                                    .arg(i)
                                    .arg(j)
                                    .arg(drawn)
                                    .arg(it->second)));
          }
        }
      }
    }
    // Sizes ascend upward: N = 256 is drawn above N = 16.
    QVERIFY(view.cellPixel("rsa", 0, 256).y() < view.cellPixel("rsa", 0, 16).y());
    QVERIFY(view.cellPixel("rsa", 1, 16).x() > view.cellPixel("rsa", 0, 16).x());
    // The colour bar says what it shows; the x axis the parameter.
    QVERIFY(view.colorScale()->axis()->label().contains("mean excess test loss (lower is better)"));
    bool titled = false;
    for (auto* rect : view.plot()->axisRects())
      titled = titled || rect->axis(QCPAxis::atBottom)->label() == "recurrent share a (mix.share)";
    QVERIFY(titled);
  }

  void winnerMapColoursWinnersMarksTiesLeavesPendingEmpty() {
    RegimeMapView view;
    fill(view);
    const QColor gru = modelColor("gru");
    const QColor rsa = modelColor("rsa");
    for (int64_t n : {16, 64, 256}) {
      QCOMPARE(view.winnerColor(0, n), gru);
      QCOMPARE(view.winnerColor(0.5, n), RegimeMapView::kTieColor);
      QCOMPARE(view.winnerText(0.5, n), QString("tie"));
      QCOMPARE(view.winnerText(0, n), QString());
    }
    QCOMPARE(view.winnerColor(1, 64), rsa);
    QVERIFY(!view.winnerColor(1, 256).isValid());  // pending: only rsa ran there
    // What is drawn: the winner's colour in the winner map's cells (away from the centre text).
    const QImage image = test::grabShot(view.plot(), "regime_map_plot");
    const QPoint at = view.cellPixel("", 0, 64) + QPoint(8, 8);
    QVERIFY2(near(image.pixelColor(at), gru),
             qPrintable(image.pixelColor(at).name() + " vs " + gru.name()));
    const QPoint pending = view.cellPixel("", 1, 256) + QPoint(8, 8);
    QVERIFY2(near(image.pixelColor(pending), Qt::white),
             qPrintable(image.pixelColor(pending).name()));
    // Deeper is better: gru's low excess is drawn darker than the transformer's high one.
    const QColor low = image.pixelColor(view.cellPixel("gru", 0, 64));
    const QColor high = image.pixelColor(view.cellPixel("transformer", 0, 64));
    QVERIFY(low.lightness() < high.lightness());
  }

  void toolTipListsEveryModelAndTheVerdict() {
    RegimeMapView view;
    fill(view);
    const QString winner = view.toolTip(0, 64);
    QVERIFY2(winner.startsWith("mix.share = 0, N = 64"), qPrintable(winner));
    const double gru_mean = 0.5 / 8;
    QVERIFY2(winner.contains(QString("gru: %1 ± ").arg(QString::number(gru_mean, 'g', 3))),
             qPrintable(winner));
    QVERIFY(winner.contains("(3 seed(s))"));
    QVERIFY(winner.contains("rsa: ") && winner.contains("transformer: "));
    QVERIFY(winner.contains("winner: gru"));
    const QString tie = view.toolTipAt(view.cellPixel("rsa", 0.5, 64));
    QVERIFY2(tie.contains("tie: rsa and gru"), qPrintable(tie));
    QVERIFY(view.toolTip(1, 256).contains("gru: no run yet"));
    QVERIFY(view.toolTip(1, 256).contains("pending"));
    QVERIFY(view.toolTipAt(QPoint(2, 2)).isEmpty());
  }

  void clickingACellEmitsItsLowestRunId() {
    RegimeMapView view;
    fill(view);
    const auto points = synthetic();
    QSignalSpy clicked(&view, &RegimeMapView::runClicked);
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.cellPixel("rsa", 1, 64));
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), lowestRun(points, "rsa", 1, 64));
    // On the winner map: the winner's cell.
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.cellPixel("", 0, 16));
    QCOMPARE(clicked.size(), 2);
    QCOMPARE(clicked.at(1).at(0).toInt(), lowestRun(points, "gru", 0, 16));
    // A pending winner cell and an empty model cell open nothing.
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.cellPixel("", 1, 256));
    QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.cellPixel("gru", 1, 256));
    QCOMPARE(clicked.size(), 2);
  }

  void pointsArriveLiveAndRedrawIsThrottled() {
    RegimeMapView view;
    view.setEmptyMessage("this sweep has no task axis");
    view.resize(1000, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.flush();
    QVERIFY(!view.showsMaps());
    QCOMPARE(view.findChild<QLabel*>("RegimeMapMessage")->text(),
             QString("this sweep has no task axis"));
    const auto points = synthetic();
    for (const auto& p : points) view.addPoint(p);
    QCOMPARE(view.pointCount(), static_cast<int>(points.size()));
    QVERIFY(!view.showsMaps());  // not yet: at most one redraw per interval
    QTRY_VERIFY_WITH_TIMEOUT(view.showsMaps(), 2000);
    QVERIFY(view.colorMap("rsa"));
    view.clear();
    view.flush();
    QVERIFY(!view.showsMaps());
    // Points without a Bayes floor (NaN excess): no cells, and the view says why.
    view.addPoint({"rsa", 0.5, 16, 0, NAN, 0});
    view.flush();
    QVERIFY(!view.showsMaps());
    QVERIFY(view.findChild<QLabel*>("RegimeMapMessage")->text().contains("Bayes floor"));
  }

  void gridUsesTheRoomItHas() {
    RegimeMapView view;
    fill(view, {1800, 500});
    QCOMPARE(view.gridColumns(), 4);  // 3 models + the winner map in one row
    view.resize(700, 1400);
    QTRY_VERIFY_WITH_TIMEOUT(view.gridColumns() <= 2, 2000);
  }

  void exportsWriteFiles() {
    RegimeMapView view;
    fill(view);
    QString error;
    const QString csv = dir_.filePath("cells.csv");
    QVERIFY2(view.saveCsv(csv, &error), qPrintable(error));
    const QStringList lines = QString::fromUtf8(readAll(csv)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QString("model,axis_value,N,seeds,mean,sd,verdict,best"));
    QCOMPARE(lines.size(), 1 + 9 + 8 + 8);  // rsa everywhere; gru and transformer miss one cell
    QVERIFY(
        lines.filter(QRegularExpression("^gru,0,64,3,0\\.0625\\d*,[0-9.e-]+,winner,gru$")).size() ==
        1);
    QVERIFY(lines.filter(QRegularExpression("^rsa,0\\.5,16,3,.*,tie,rsa$")).size() == 1);
    QVERIFY(lines.filter(QRegularExpression("^rsa,1,256,3,.*,pending,$")).size() == 1);
    for (const char* suffix : {"png", "svg", "pdf"}) {
      const QString path = dir_.filePath(QString("regime.") + suffix);
      QVERIFY2(view.saveImage(path, 1200, 700, &error), qPrintable(error));
      QVERIFY(readAll(path).size() > 1000);
    }
    QVERIFY(readAll(dir_.filePath("regime.png")).startsWith("\x89PNG"));
    QVERIFY(readAll(dir_.filePath("regime.svg")).contains("<svg"));
    QVERIFY(readAll(dir_.filePath("regime.pdf")).startsWith("%PDF"));
    QCOMPARE(QImage(dir_.filePath("regime.png")).size(), QSize(1200, 700));
    // The plot's context menu exports the numbers too.
    PlotExport* exporter = PlotExport::of(view.plot());
    QVERIFY(exporter);
    const auto tables = exporter->data(false);
    QCOMPARE(tables.size(), 4);  // three models and the winner map
    QCOMPARE(tables.last().rows.size(), 9);
    // Figures for a person to look at, when asked (as the widget shots).
    if (const QString shots = qEnvironmentVariable("RSALAB_WIDGET_SHOTS"); !shots.isEmpty()) {
      QDir().mkpath(shots);
      view.saveImage(shots + "/regime_map_1366x700.png", 1366, 700);
      view.saveImage(shots + "/regime_map_1920x1000.png", 1920, 1000);
    }
  }

  void sweepFiguresWriteTheRegimeMapWhenRowsHaveAnAxis() {
    std::vector<SweepRow> rows;
    for (const auto& p : synthetic()) {
      SweepRow r;
      r.run = p.run;
      r.model = p.model;
      r.size = p.size;
      r.seed = p.seed;
      r.axis_value = p.axis_value;
      r.bayes_floor = 0.5;
      r.test_loss = 0.5 + p.excess;
      r.steps = 10;
      rows.push_back(r);
    }
    FigureOptions options;
    options.out_dir = dir_.filePath("figures").toStdString();
    const auto written = writeSweepFigures(rows, options);
    const QString png = dir_.filePath("figures/regime_map.png");
    QVERIFY(std::find(written.begin(), written.end(), png.toStdString()) != written.end());
    QVERIFY(readAll(png).startsWith("\x89PNG"));
    QVERIFY(readAll(dir_.filePath("figures/regime_map.svg")).contains("<svg"));
    // Without an axis: no regime map.
    for (auto& r : rows) r.axis_value = NAN;
    options.out_dir = dir_.filePath("plain").toStdString();
    writeSweepFigures(rows, options);
    QVERIFY(!QFile::exists(dir_.filePath("plain/regime_map.png")));
    QVERIFY(QFile::exists(dir_.filePath("plain/sample_efficiency.png")));
  }
};

RSALAB_REGISTER_TEST(TestRegimeMapView, QTEST_MAIN)
#include "test_widget_regime_map_view.moc"
