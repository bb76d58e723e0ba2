// SPDX-License-Identifier: GPL-3.0-or-later
// PlotExport (widgets/plot_export): images (PNG magic bytes, SVG as XML with <svg>, PDF header),
// CSV/JSON data of a loss-curve view (every stored point; visible range) and a heat map, and the
// context menu's actions. Runs offscreen; never touches the user's settings.
#include <qcustomplot.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "support/test_registry.h"
#include "widgets/heat_map_view.h"
#include "widgets/loss_curve_view.h"
#include "widgets/plot_export.h"
#include "widgets/regime_map_view.h"
#include "widgets/rem_parameter_view.h"

using namespace rsalab;

namespace {
QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}
}  // namespace

class TestPlotExport : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString file(const QString& name) const { return dir_.filePath(name); }

  void fillCurves(LossCurveView& view) {
    view.addRun(0, "rsa s1");
    view.addRun(1, "gru s1");
    for (int s = 1; s <= 300; ++s) {
      view.appendTrain(0, s, 32.0 * s, 1.0 / s);
      view.appendTrain(1, s, 32.0 * s, 2.0 / s);
    }
    view.appendValidation(0, 100, 3200, 0.02);
    view.resize(600, 400);
    view.show();
    view.flush();
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir_.filePath("settings"));
  }

  void imagesAreValidFiles() {
    LossCurveView view;
    fillCurves(view);
    PlotExport* exporter = PlotExport::of(view.plot());
    QVERIFY(exporter);
    QString error;
    QVERIFY2(exporter->saveImage(file("curves.png"), &error), qPrintable(error));
    QVERIFY(readAll(file("curves.png")).startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8)));
    QImage png(file("curves.png"));
    QVERIFY(!png.isNull());
    QVERIFY(png.width() >= 600);

    QVERIFY2(exporter->saveImage(file("curves.svg"), &error), qPrintable(error));
    const QByteArray svg = readAll(file("curves.svg"));
    QXmlStreamReader xml(svg);
    bool has_svg_root = false;
    int elements = 0;
    while (!xml.atEnd()) {
      if (xml.readNext() == QXmlStreamReader::StartElement) {
        if (xml.name() == QLatin1String("svg") && elements == 0) has_svg_root = true;
        ++elements;
      }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(has_svg_root);
    QVERIFY2(elements > 20, "the SVG holds no drawing");

    QVERIFY2(exporter->saveImage(file("curves.pdf"), &error), qPrintable(error));
    QVERIFY(readAll(file("curves.pdf")).startsWith("%PDF"));
    QVERIFY(!QFile::exists(file("curves.pdf.tmp.pdf")));

    QVERIFY(!exporter->saveImage(file("curves.bmpx"), &error));
    QVERIFY(error.contains("bmpx"));
  }

  void curveDataHasEveryPointAndTheVisibleRange() {
    LossCurveView view;
    fillCurves(view);
    PlotExport* exporter = PlotExport::of(view.plot());
    QString error;
    QVERIFY2(exporter->saveData(file("all.csv"), /*visible_only=*/false, &error),
             qPrintable(error));
    const QStringList lines =
        QString::fromUtf8(readAll(file("all.csv"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QString("series,step,samples_seen,loss,smoothed"));
    QCOMPARE(lines.size(), 1 + 300 + 300 + 1);  // every stored point, not the decimated drawing
    QCOMPARE(lines[2].section(',', 0, 3), QString("rsa s1 train,2,64,0.5"));
    QVERIFY(lines.filter(QRegularExpression("^rsa s1 validation,100,3200,0.02,$")).size() == 1);

    view.setXRange(10.5, 20.5);
    view.flush();
    QVERIFY(exporter->saveData(file("visible.csv"), /*visible_only=*/true, &error));
    const QStringList visible =
        QString::fromUtf8(readAll(file("visible.csv"))).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(visible.size(), 1 + 10 + 10);  // steps 11..20 of both runs; validation at 100 is out

    view.setRunVisible(1, false);
    QVERIFY(exporter->saveData(file("visible.json"), true, &error));
    const auto json = QJsonDocument::fromJson(readAll(file("visible.json"))).array();
    QCOMPARE(json.size(), 1);
    QCOMPARE(json[0].toObject()["name"].toString(), QString("rsa s1 train"));
    QCOMPARE(json[0].toObject()["rows"].toArray().size(), 10);
    QCOMPARE(json[0].toObject()["rows"].toArray()[0].toArray()[0].toDouble(), 11.0);
  }

  void heatMapExportsTheFullMatrix() {
    HeatMapView view;
    Matrix m;
    m.rows = 3;
    m.cols = 4;
    for (int i = 0; i < 12; ++i) m.values.push_back(float(i) - 5.5f);
    view.setMatrix(m);
    view.setTitle("L0 H1");
    const auto tables = PlotExport::of(view.findChild<QCustomPlot*>())->data(false);
    QCOMPARE(tables.size(), 1);
    QCOMPARE(tables[0].name, QString("L0 H1"));
    QCOMPARE(tables[0].rows.size(), 12);
    QCOMPARE(tables[0].rows[6], (QVector<double>{1, 2, 0.5}));  // row 1, column 2 = 6 - 5.5
    const QString csv = tablesCsv(tables);
    QVERIFY(csv.startsWith("row,column,value\n0,0,-5.5\n"));
  }

  void regimeMapExportsImagesAndItsCells() {
    RegimeMapView view;
    for (int64_t run = 0; run < 8; ++run) {
      const char* model = run < 4 ? "rsa" : "gru";
      view.addPoint({model, run % 2 ? 1.0 : 0.0, 16, uint64_t(run / 2 % 2), 0.1 + 0.01 * run, run});
    }
    view.resize(900, 500);
    view.show();
    view.flush();
    PlotExport* exporter = PlotExport::of(view.findChild<QCustomPlot*>("RegimeMapPlot"));
    QVERIFY(exporter);
    QString error;
    for (const char* name : {"regime.png", "regime.svg", "regime.pdf"}) {
      QVERIFY2(exporter->saveImage(file(name), &error), qPrintable(error));
      QVERIFY(readAll(file(name)).size() > 1000);
    }
    QVERIFY(readAll(file("regime.png")).startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8)));
    QVERIFY(exporter->saveData(file("regime.csv"), /*visible_only=*/false, &error));
    const QStringList lines =
        QString::fromUtf8(readAll(file("regime.csv"))).split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.first().startsWith("series,axis_value,N,seeds,mean,sd"), qPrintable(lines[0]));
    QCOMPARE(lines.filter(QRegularExpression("^rsa,")).size(), 2);  // a = 0 and a = 1 at N = 16
    QVERIFY(view.saveCsv(file("cells.csv"), &error));
    QVERIFY(readAll(file("cells.csv")).startsWith("model,axis_value,N,seeds,mean,sd,verdict,best"));
  }

  void genericPlotDataAndMenu() {
    RemParameterView view;  // attached with the generic extractor
    QCustomPlot* plot = view.findChild<QCustomPlot*>("RemParameterPlot");
    QVERIFY(plot);
    auto* g = plot->addGraph();
    g->setName("λ L0H0");
    g->setData({1, 2, 3}, {0.5, 0.6, 0.7});
    plot->xAxis->setRange(1.5, 3.5);
    const auto all = plotData(plot, false);
    const auto visible = plotData(plot, true);
    int all_rows = -1, visible_rows = -1;
    for (const auto& t : all)
      if (t.name == "λ L0H0") all_rows = t.rows.size();
    for (const auto& t : visible)
      if (t.name == "λ L0H0") visible_rows = t.rows.size();
    QCOMPARE(all_rows, 3);
    QCOMPARE(visible_rows, 2);
    QMenu* menu = PlotExport::of(plot)->buildMenu(plot);
    QStringList names;
    for (auto* a : menu->actions())
      if (!a->isSeparator()) names << a->objectName();
    QCOMPARE(names, (QStringList{"copyImage", "saveImage", "exportVisible", "exportAll"}));
    QCOMPARE(plot->contextMenuPolicy(), Qt::CustomContextMenu);
  }
};

RSALAB_REGISTER_TEST(TestPlotExport, QTEST_MAIN)
#include "test_widget_plot_export.moc"
