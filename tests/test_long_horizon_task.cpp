// SPDX-License-Identifier: GPL-3.0-or-later
// The long-horizon task on the bundled ETTh1 (engine/tasks/long_horizon_task.h): its tensors
// against a literal reading of the CSV (z-scores of the train part, the windows' rows), the
// window counts, the univariate (OT) form, persistence, the run config's budget (one evaluation
// per epoch), and a one-epoch table run that renders.
#include <QtTest>
#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/core/verdicts/paper_table.h"
#include "engine/sweep/paper_table_run.h"
#include "engine/tasks/long_horizon_task.h"
#include "engine/tasks/text_tasks.h"  // resourcePath
#include "support/test_support.h"

using namespace rsalab;

namespace {

// The CSV read literally: rows of 7 numbers after the date.
std::vector<std::vector<double>> readEtt(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string cell;
    std::getline(s, cell, ',');  // date
    std::vector<double> row;
    while (std::getline(s, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

class TestLongHorizonTask : public QObject {
  Q_OBJECT

 private slots:
  void tensorsMatchTheCsv() {
    const auto raw = readEtt(resourcePath("series/ett/ETTh1.csv"));
    QCOMPARE(raw.size(), size_t{17420});
    LongHorizonTaskOptions o;
    o.horizon = 24;
    const auto t = makeLongHorizonTask(o);
    const auto& d = *t.data;
    QCOMPARE(d.train.size(), int64_t{8640 - 96 - 24 + 1});
    QCOMPARE(d.validation.size(), int64_t{2880 - 24 + 1});
    QCOMPARE(d.test.size(), int64_t{2880 - 24 + 1});
    QCOMPARE(d.io.input_dim, int64_t{7});
    QCOMPARE(d.io.output_dim, int64_t{24 * 7});
    QCOMPARE(d.test.y.size(1), int64_t{1});  // scored at the last position: direct
    QCOMPARE(t.columns.back(), std::string("OT"));
    for (int c = 0; c < 7; ++c) {
      double mean = 0, ss = 0;
      for (int r = 0; r < 8640; ++r) mean += raw[r][c] / 8640;
      for (int r = 0; r < 8640; ++r) ss += (raw[r][c] - mean) * (raw[r][c] - mean);
      const double sd = std::sqrt(ss / 8640);
      auto z = [&](int r) { return (raw[r][c] - mean) / sd; };
      QVERIFY(std::fabs(t.scaling.mean[c] - mean) < 1e-9);
      QVERIFY(std::fabs(t.scaling.stddev[c] - sd) < 1e-9);
      // The first test window: inputs rows 11424 .. 11519, targets 11520 .. 11543.
      QVERIFY(std::fabs(d.test.x[0][0][c].item<double>() - z(11424)) < 1e-5);
      QVERIFY(std::fabs(d.test.x[0][95][c].item<double>() - z(11519)) < 1e-5);
      QVERIFY(std::fabs(d.test.y[0][0][c].item<double>() - z(11520)) < 1e-5);
      // The last test window's last target is row 14399.
      QVERIFY(std::fabs(d.test.y[-1][0][23 * 7 + c].item<double>() - z(14399)) < 1e-5);
      QVERIFY(std::fabs(d.validation.y[0][0][c].item<double>() - z(8640)) < 1e-5);
    }
    // Persistence: the last input row repeated, scored over every window, step and column.
    double se = 0;
    for (int64_t n = 0; n < d.test.size(); ++n) {
      auto last = d.test.x[n][95];            // (C)
      auto y = d.test.y[n][0].view({24, 7});  // (H, C)
      se += (y - last.unsqueeze(0)).pow(2).sum().item<double>();
    }
    QVERIFY(std::fabs(d.references.front().test_loss - se / (d.test.size() * 24 * 7)) < 1e-6);
    QCOMPARE(d.references.front().name, std::string("persistence"));
  }

  void univariateIsOtAlone() {
    LongHorizonTaskOptions o;
    o.features = forecast::LongHorizonFeatures::Univariate;
    o.horizon = 96;
    o.train_fraction = 0.1;
    const auto t = makeLongHorizonTask(o);
    QCOMPARE(t.columns, std::vector<std::string>{"OT"});
    QCOMPARE(t.data->io.input_dim, int64_t{1});
    QCOMPARE(t.data->test.size(), int64_t{2785});
    QCOMPARE(t.data->train.size(), int64_t{845});  // ceil(0.1 · 8449), the most recent
    QCOMPARE(t.windows.train.back(), int64_t{8640 - 96 - 96});
    QVERIFY_EXCEPTION_THROWN(makeLongHorizonTask({"lynx", 96, 24}), std::invalid_argument);
  }

  void budgetIsEpochs() {
    PaperTableOptions o;
    o.epochs = 5;
    const auto c = paperRunConfig(o, "rsa", 24, 8521, 2);
    QCOMPARE(c.trainer.eval_every, int64_t{267});  // ceil(8521 / 32): one evaluation per epoch
    QCOMPARE(c.trainer.max_steps, int64_t{5 * 267});
    QVERIFY(c.trainer.restore_best);
    QCOMPARE(c.model.lookback, int64_t{96});
  }

  // One epoch of dlinear at H = 24: the JSON renders, persistence is there, dlinear beats it.
  void oneEpochTableRenders() {
    PaperTableOptions o;
    o.horizons = {24};
    o.seeds = 1;
    o.models = {"dlinear"};
    o.univariate_horizon = 0;
    o.anchors = "none";
    o.epochs = 1;
    const auto r = runPaperTable(o);
    QVERIFY(!r.failed);
    const auto md = paperTableMarkdown(r.json);
    QVERIFY2(md.find("| dlinear |") != std::string::npos, md.c_str());
    QVERIFY(md.find("| persistence (reference) |") != std::string::npos);
    QVERIFY(md.find("RSA-Informer** (published") != std::string::npos);
    const auto curves = paperTableCurves(r.json);
    QVERIFY(curves.size() >= 2 && curves[0].label == "dlinear");
    QVERIFY(curves[0].mse[0] < curves[1].mse[0]);  // dlinear below persistence
  }
};

RSALAB_TEST_MAIN(TestLongHorizonTask)
#include "test_long_horizon_task.moc"
