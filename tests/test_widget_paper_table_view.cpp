// SPDX-License-Identifier: GPL-3.0-or-later
// The paper-table preset's view and figure on the committed table (docs/data/paper_table.json):
// one line per model with error bars, the published points as unconnected markers, the progress
// bar counting runs, the Markdown shown; and the PNG rsalab-cli paper-table writes.
#include <qcustomplot.h>

#include <QImage>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QTemporaryDir>
#include <QtTest>

#include "app/figures/paper_table_figure.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/verdicts/paper_table.h"
#include "support/test_registry.h"
#include "widgets/paper_table_view.h"

using namespace rsalab;

class TestPaperTableView : public QObject {
  Q_OBJECT

  std::string json() {
    return readTextFile(std::string(RSALAB_SOURCE_ROOT) + "/docs/data/paper_table.json", 16 << 20);
  }

 private slots:
  void drawsModelsAndPublishedPoints() {
    const auto curves = paperTableCurves(json());
    PaperTableView view;
    view.resize(900, 700);
    view.begin("test");
    QVERIFY(view.isRunning());
    view.setProgress(3, 36, "rsa M H=24 seed 0: MSE 0.5");
    QCOMPARE(view.progressBar()->value(), 3);
    QCOMPARE(view.progressBar()->maximum(), 36);
    view.setTable(json());
    QVERIFY(!view.isRunning());
    QCOMPARE(view.plot()->graphCount(), static_cast<int>(curves.size()));
    int published = 0, lines = 0;
    for (int k = 0; k < view.plot()->graphCount(); ++k) {
      auto* g = view.plot()->graph(k);
      if (g->lineStyle() == QCPGraph::lsNone)
        ++published;
      else
        ++lines;
    }
    QVERIFY(published >= 2);  // Informer and RSA-Informer (RSA paper), the LTSF rows
    QVERIFY(lines >= 3);      // transformer, rsa, dlinear, persistence
    QVERIFY(view.findChild<QPlainTextEdit*>()->toPlainText().contains("RSA-Informer"));
    view.setTable("{}");  // a malformed table is said, not drawn
  }

  void figureFileIsWritten() {
    QTemporaryDir dir;
    FigureOptions o;
    o.out_dir = dir.path().toStdString();
    const auto files = writePaperTableFigure(json(), o);
    QCOMPARE(files.size(), size_t{2});
    const QImage png(QString::fromStdString(files.front()));
    QCOMPARE(png.width(), o.width);
  }
};

RSALAB_REGISTER_TEST(TestPaperTableView, QTEST_MAIN)
#include "test_widget_paper_table_view.moc"
