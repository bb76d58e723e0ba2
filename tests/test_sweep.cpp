// SPDX-License-Identifier: GPL-3.0-or-later
// Sample-efficiency sweeps: one row per (model, N, seed), CSV/JSON output, power-law fit, a real
// series parsed once per sweep.
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <cmath>
#include <fstream>
#include <random>
#include <set>

#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/session/session_bundle.h"
#include "engine/sweep/sweep.h"
#include "engine/sweep/sweep_references.h"
#include "engine/tasks/csv_series.h"
#include "support/test_support.h"

using namespace rsalab;

class TestSweep : public QObject {
  Q_OBJECT
 private slots:
  void powerLawFitRecoversAKnownSlope() {
    std::mt19937 rng(4);
    std::normal_distribution<double> noise(0.0, 0.05);
    std::vector<double> n, loss;
    for (double size : {16.0, 64.0, 256.0, 1024.0, 4096.0}) {
      for (int seed = 0; seed < 3; ++seed) {
        n.push_back(size);
        loss.push_back(2.5 * std::pow(size, -0.45) * std::exp(noise(rng)));
      }
    }
    auto fit = fitPowerLaw(n, loss);
    qInfo("b = %.4f [%.4f, %.4f], a = %.3f, R2 = %.4f", fit.b, fit.b_low, fit.b_high, fit.a,
          fit.r2);
    QVERIFY(std::abs(fit.b - 0.45) < 0.03);
    QVERIFY(fit.b_low < 0.45 && 0.45 < fit.b_high);
    QVERIFY(fit.b_high - fit.b_low < 0.1);
    QVERIFY(std::abs(fit.a - 2.5) / 2.5 < 0.2);
    QCOMPARE(fit.points, int64_t{15});
    // Exact data: zero-width interval.
    auto exact = fitPowerLaw({10, 100, 1000}, {1.0, 0.1, 0.01});
    QVERIFY(std::abs(exact.b - 1.0) < 1e-12 && std::abs(exact.b_high - exact.b_low) < 1e-9);
  }
  void sweepWritesOneRowPerRun() {
    SweepOptions o;
    o.base.task.name = "seasonal";
    o.base.task.length = 16;
    o.base.task.validation_size = 32;
    o.base.task.test_size = 32;
    o.base.model.d_model = 8;
    o.base.model.heads = 4;
    o.base.model.layers = 1;
    o.base.trainer.max_steps = 4;
    o.base.trainer.eval_every = 2;
    o.base.trainer.batch_size = 4;
    o.models = {"gru", "rsa", "starsaber"};
    o.sizes = {8, 32};
    o.seeds = 2;
    o.keep_curves = true;
    int64_t calls = 0;
    auto result = runSweep(o, [&](int64_t done, int64_t total, const SweepRow&) {
      ++calls;
      QCOMPARE(total, int64_t{12});
      QVERIFY(done <= total);
    });
    QCOMPARE(calls, int64_t{12});
    // 12 runs, then the baselines of each of the 4 datasets (N × seed): mean, persistence,
    // seasonal naive, AR(p) — reference rows, after the runs.
    QCOMPARE(result.rows.size(), size_t{12 + 4 * 4});
    std::set<std::tuple<std::string, int64_t, uint64_t>> keys;
    std::set<int64_t> run_ids;
    for (const auto& r : result.rows) {
      QVERIFY2(r.error.empty(), r.error.c_str());
      if (r.reference) {
        QVERIFY(r.run >= 12 && !r.ok() && std::isfinite(r.test_loss) && r.steps == 0);
        continue;
      }
      run_ids.insert(r.run);
      QCOMPARE(r.train_curve.size(), size_t{4});       // keep_curves: every step
      QCOMPARE(r.validation_curve.size(), size_t{2});  // evaluations at steps 2 and 4, not the test
      QCOMPARE(r.train_curve.back().step, int64_t{4});
      QVERIFY(r.flops_per_token > 0);
      QVERIFY(!r.has_inspection);
      QVERIFY(std::isfinite(r.test_loss) && r.test_loss > 0);
      QCOMPARE(r.steps, int64_t{4});
      keys.insert({r.model, r.size, r.seed});
    }
    QCOMPARE(keys.size(), size_t{12});
    QCOMPARE(run_ids.size(), size_t{12});
    QCOMPARE(*run_ids.begin(), int64_t{0});
    QCOMPARE(*run_ids.rbegin(), int64_t{11});
    const auto csv = QString::fromStdString(sweepCsv(result));
    QCOMPARE(csv.trimmed().split('\n').size(), 1 + 12 + 16);  // header + runs + references
    QVERIFY(csv.startsWith("model,size,seed,test_loss"));
    // Two sizes: no power law (it needs 3), and the sweep's notes say so.
    QVERIFY(result.fits.empty());
    QVERIFY(!result.notes.empty() && result.notes.back().find("needs 3") != std::string::npos);
    const auto json = QJsonDocument::fromJson(QByteArray::fromStdString(sweepJson(result)));
    QCOMPARE(json["runs"].toArray().size(), 12 + 16);
    QCOMPARE(json["fits"].toArray().size(), 0);
    // Read back: same rows, fits and config (what the app's "Open sweep results" relies on).
    const auto back = sweepResultFromJson(sweepJson(result));
    QCOMPARE(back.rows.size(), size_t{12 + 16});
    QCOMPARE(back.base.model.d_model, int64_t{8});
    QCOMPARE(back.base.trainer.max_steps, int64_t{4});
    for (size_t i = 0; i < back.rows.size(); ++i) {
      QCOMPARE(back.rows[i].model, result.rows[i].model);
      QCOMPARE(back.rows[i].run, result.rows[i].run);
      QVERIFY(std::abs(back.rows[i].test_loss - result.rows[i].test_loss) <=
              1e-12 * result.rows[i].test_loss);
      QVERIFY(std::abs(back.rows[i].flops_per_token - result.rows[i].flops_per_token) < 1e-6);
    }
    QVERIFY(back.fits.empty());
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             sweepResultFromJson("{\"runs\": [{\"size\": 8}]}"));
  }
  // The same sweep twice, two runs at a time: identical test losses, run by run (each run's
  // numbers depend only on its config and seed, not on which run was built beside it).
  void sweepWithParallelRunsIsReproducible() {
    SweepOptions o;
    o.base.task.name = "seasonal";
    o.base.task.length = 16;
    o.base.task.validation_size = 32;
    o.base.task.test_size = 32;
    o.base.model.d_model = 64;
    o.base.model.heads = 4;
    o.base.model.layers = 3;
    o.base.trainer.max_steps = 1;
    o.base.trainer.eval_every = 1;
    o.base.trainer.batch_size = 4;
    o.models = {"rsa", "transformer", "starsaber"};
    o.sizes = {8, 16};
    o.seeds = 3;
    o.parallel = 2;
    const auto first = runSweep(o), second = runSweep(o);
    QCOMPARE(first.rows.size(), size_t{18 + 6 * 4});  // + each dataset's 4 reference rows
    QCOMPARE(second.rows.size(), first.rows.size());
    for (size_t i = 0; i < first.rows.size(); ++i) {
      QVERIFY2(first.rows[i].error.empty(), first.rows[i].error.c_str());
      QCOMPARE(second.rows[i].run, first.rows[i].run);
      QCOMPARE(second.rows[i].test_loss, first.rows[i].test_loss);
    }
  }

  // The GUI's long sweeps: with a run folder, a row keeps thinned curves and no inspection record
  // in memory, and the folder has every point and the record (memory bounded however many runs).
  void runFolderKeepsEveryPointOnDiskAndThinnedCurvesInMemory() {
    QTemporaryDir dir;
    SweepOptions o;
    o.base.task.name = "seasonal";
    o.base.task.length = 16;
    o.base.task.validation_size = 16;
    o.base.task.test_size = 16;
    o.base.model.d_model = 8;
    o.base.model.heads = 4;
    o.base.model.layers = 1;
    o.base.trainer.max_steps = 40;
    o.base.trainer.eval_every = 2;
    o.base.trainer.batch_size = 4;
    o.models = {"rsa", "gru"};
    o.sizes = {16};
    o.seeds = 1;
    o.keep_curves = true;
    o.keep_inspection = true;
    o.run_folder = dir.path().toStdString();
    o.curve_points = 8;
    const auto result = runSweep(o);
    int runs = 0;
    for (const auto& r : result.rows) {
      if (r.reference) continue;
      ++runs;
      QVERIFY2(r.error.empty(), r.error.c_str());
      QCOMPARE(r.train_curve.size(), size_t{8});
      QCOMPARE(r.train_curve.front().step, int64_t{1});  // the first and the last stay
      QCOMPARE(r.train_curve.back().step, int64_t{40});
      QCOMPARE(r.validation_curve.size(), size_t{8});
      QVERIFY(r.has_inspection && r.inspection.layers.empty() && r.inspection.gates.empty());
      QVERIFY(!r.files.empty());
      SessionRun all;
      parseSessionMetricsCsv(readTextFile(r.files + "/metrics.csv", 1 << 24), "metrics.csv", all);
      QCOMPARE(all.steps.size(), size_t{40});
      QCOMPARE(all.evals.size(), size_t{20});
      const auto record = inspectionFromJson(readTextFile(r.files + "/inspection.json", 1 << 24));
      QCOMPARE(QString::fromStdString(record.model), QString::fromStdString(r.model));
      QVERIFY(!record.layers.empty() || !record.gates.empty());
    }
    QCOMPARE(runs, 2);
  }

  // A real-series sweep at 16, 64, 256 (64 and 256 both give N = 53) over 2 seeds parses its CSV
  // once: not once per requested size (honestSweepSizes), again per dataset of the cells and again
  // per dataset of the reference rows (11 parses before the parsed file was kept). A changed file
  // is parsed again.
  void realSeriesSweepParsesItsFileOnce() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("once.csv").toStdString();
    auto write = [&](int64_t rows) {
      std::ofstream out(path);
      out << "time,value\n";
      for (int64_t t = 0; t < rows; ++t)
        out << "2000-" << t << "," << 100 + 0.8 * t + 10 * std::sin(2 * M_PI * t / 12.0) << "\n";
    };
    write(100);
    SweepOptions o;
    o.base = realSeriesDefaults(defaultRunConfig());
    o.base.task.name = "csv";
    o.base.task.csv_path = path;
    o.base.task.length = 24;
    o.base.task.anchors = AnchorMode::None;
    o.base.model.d_model = 8;
    o.base.model.layers = 1;
    o.base.trainer.max_steps = 2;
    o.base.trainer.eval_every = 1;
    o.models = {"gru"};
    o.sizes = {16, 64, 256};
    o.seeds = 2;
    const int64_t before = seriesFileParses();
    const SweepResult result = runSweep(o);
    const int64_t parses = seriesFileParses() - before;
    qInfo("parses of the series file in one sweep: %lld", static_cast<long long>(parses));
    QCOMPARE(parses, int64_t{1});
    int64_t trained = 0;
    for (const auto& r : result.rows) {
      QVERIFY2(r.error.empty(), r.error.c_str());
      trained += r.reference ? 0 : 1;
    }
    QCOMPARE(trained, int64_t{4});  // N = 16 and 53, 2 seeds each
    const int64_t all_windows = actualTrainSize(o.base.task, 1024, 0);
    QCOMPARE(seriesFileParses() - before, int64_t{1});
    write(120);  // another file at the same path: parsed again, once
    QVERIFY(actualTrainSize(o.base.task, 1024, 0) > all_windows);
    QCOMPARE(actualTrainSize(o.base.task, 16, 0), int64_t{16});
    QCOMPARE(seriesFileParses() - before, int64_t{2});
  }
  void badModelFailsBeforeTraining() {
    SweepOptions o;
    o.models = {"gru", "nosuchmodel"};
    o.sizes = {8};
    o.seeds = 1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runSweep(o));
  }
};

RSALAB_TEST_MAIN(TestSweep)
#include "test_sweep.moc"
