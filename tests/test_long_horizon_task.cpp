// SPDX-License-Identifier: GPL-3.0-or-later
// The long-horizon task on the bundled ETTh1 (engine/tasks/long_horizon_task.h): its tensors
// against a literal reading of the CSV (z-scores of the train part, the windows' rows), the
// window counts, the univariate (OT) form, persistence, the run config's budget (one evaluation
// per epoch), and a one-epoch table run that renders.
#include <QtTest>
#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/core/config/run_config.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/sweep/paper_table_run.h"
#include "engine/tasks/long_horizon_task.h"
#include "engine/tasks/text_tasks.h"  // resourcePath
#include "engine/training/trainer.h"
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

  // `train --series etth1` (protocol auto) builds the protocol's task through makeTask, with its
  // borders, window counts and persistence; --protocol split keeps the 70/15/15 split; a series
  // the protocol cannot take is refused with a message.
  void makeTaskRunsTheProtocolOnEtt() {
    RunConfig c = longHorizonDefaults(defaultRunConfig());
    c.task.name = "etth1";
    c.task.horizon = 24;
    c.task.anchors = AnchorMode::None;
    QVERIFY(usesLongHorizonProtocol(c.task));
    const auto d = makeTask(c.task, c.train_size, 0);
    QCOMPARE(d.protocol, std::string("long-horizon"));
    QCOMPARE(d.train.size(), int64_t{8640 - 96 - 24 + 1});
    QCOMPARE(d.test.size(), int64_t{2880 - 24 + 1});
    QCOMPARE(d.length, int64_t{96});  // --length auto: L = 96
    QVERIFY2(d.summary.find("rows train [0, 8640), validation [8640, 11520), test [11520, "
                            "14400); windows train 8521, validation 2857, test 2857") !=
                 std::string::npos,
             d.summary.c_str());
    QCOMPARE(d.references.front().name, std::string("persistence"));
    QCOMPARE(actualTrainSize(c.task, c.train_size, 0), int64_t{8521});
    c.task.protocol = SeriesProtocol::Split;
    QVERIFY(!usesLongHorizonProtocol(c.task));
    QCOMPARE(makeTask(c.task, 64, 0).protocol, std::string());
    c.task.name = "lynx";
    QVERIFY(!usesLongHorizonProtocol(c.task));  // auto: the split on other series
    c.task.protocol = SeriesProtocol::LongHorizon;
    QVERIFY_EXCEPTION_THROWN(makeTask(c.task, 64, 0), std::invalid_argument);
    c.task.name = "seasonal";  // a synthetic task never runs it
    QVERIFY(!usesLongHorizonProtocol(c.task));
  }

  // The protocol with S: OT alone, the anchors (fast) its references beside persistence; with M
  // they are notes (they score OT, not every column).
  void anchorsOnOt() {
    TaskOptions t = longHorizonDefaults(defaultRunConfig()).task;
    t.name = "etth1";
    t.horizon = 24;
    t.features = forecast::LongHorizonFeatures::Univariate;
    const auto s = makeTask(t, 1024, 0);
    QCOMPARE(s.io.input_dim, int64_t{1});
    QVERIFY(s.references.size() > 1);  // persistence and the anchors that fitted
    t.features = forecast::LongHorizonFeatures::Multivariate;
    const auto m = makeTask(t, 1024, 0);
    QCOMPARE(m.references.size(), size_t{1});
    bool noted = false;
    for (const auto& n : m.notes) noted = noted || n.find("on OT alone: validation MSE") != n.npos;
    QVERIFY(noted);
  }

  // The train path and the paper table are one implementation: for a dlinear seed, the run
  // config the trainer resolves equals paperRunConfig's, and the test MSE agrees to 1e-6.
  void trainPathMatchesThePaperTable() {
    PaperTableOptions o;
    o.horizons = {24};
    o.seeds = 1;
    o.models = {"dlinear"};
    o.univariate_horizon = 0;
    o.anchors = "none";
    o.epochs = 1;
    o.parallel = 1;
    const auto r = runPaperTable(o);
    QVERIFY(!r.failed);
    double table_mse = NAN;
    for (const auto& run : r.runs)
      if (run.model == "dlinear") table_mse = run.mse;

    RunConfig c = longHorizonDefaults(defaultRunConfig());  // what `train --series etth1` resolves
    c.task.name = "etth1";
    c.task.horizon = 24;
    c.task.epochs = 1;
    c.task.anchors = AnchorMode::None;
    c.model.model = "dlinear";
    c.trainer.seed = 0;
    Trainer trainer(c);
    const auto want = paperRunConfig(o, "dlinear", 24, 8521, 0);
    const auto& got = trainer.config();
    QCOMPARE(got.trainer.max_steps, want.trainer.max_steps);
    QCOMPARE(got.trainer.eval_every, want.trainer.eval_every);
    QCOMPARE(got.trainer.batch_size, want.trainer.batch_size);
    QCOMPARE(got.trainer.patience, want.trainer.patience);
    QCOMPARE(got.trainer.learning_rate, want.trainer.learning_rate);
    QCOMPARE(got.model.lookback, want.model.lookback);
    QCOMPARE(got.model.skip_lags, want.model.skip_lags);
    trainer.run(nullptr);
    const double mse = scoreLongHorizonTest(trainer.data(), trainer.forecasts("test")).mse;
    QVERIFY2(
        std::fabs(mse - table_mse) < 1e-6,
        qPrintable(
            QString("train %1, paper-table %2").arg(mse, 0, 'g', 12).arg(table_mse, 0, 'g', 12)));
    QVERIFY(std::fabs(trainer.evaluate("test").loss - mse) < 1e-5);
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
