// SPDX-License-Identifier: GPL-3.0-or-later
// Real series: rolling-origin windows that fit short series, honest N, per-window
// normalisation, baselines on the same targets, the bundled series. The anchors are in
// test_real_series_anchors.cpp, RevIN in test_revin.cpp.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/baselines.h"
#include "engine/core/io/calendar.h"
#include "engine/core/registry/task_registry.h"
#include "engine/sweep/sweep.h"
#include "engine/sweep/sweep_references.h"
#include "engine/tasks/csv_series.h"
#include "engine/training/series_norm.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// `rows` rows of a trending seasonal series (period 12) with a time column.
std::string seriesCsv(int64_t rows) {
  std::string text = "time,value\n";
  for (int64_t t = 0; t < rows; ++t) {
    const double v = 100 + 0.8 * t + 10 * std::sin(2 * M_PI * t / 12.0) + std::cos(0.7 * t);
    text += "2000-" + std::to_string(t) + "," + std::to_string(v) + "\n";
  }
  return text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool anyNote(const TaskData& data, const std::string& part) {
  for (const auto& n : data.notes)
    if (contains(n, part)) return true;
  return false;
}

}  // namespace

class TestRealSeries : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::string writeCsv(const std::string& name, const std::string& text) {
    const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path) << text;
    return path;
  }

 private slots:
  void hundredRowSeriesTrainsWithDefaults() {
    RunConfig c = realSeriesDefaults(defaultRunConfig());
    c.task.name = "csv";
    c.task.csv_path = writeCsv("hundred.csv", seriesCsv(100));
    c.trainer.max_steps = 60;  // the defaults' budget would only make the test slower
    c.trainer.eval_every = 20;
    validate(c);
    Trainer trainer(c);
    const TaskData& d = trainer.data();
    QCOMPARE(d.length, int64_t{17});             // auto: a quarter of the 70 train rows
    QCOMPARE(d.validation.size(), int64_t{15});  // every validation target (rows 70..84)
    QCOMPARE(d.test.size(), int64_t{15});        // every test target (rows 85..99)
    QCOMPARE(d.test.y.size(1), int64_t{1});      // one-step, scored at the last position
    QCOMPARE(d.train.size(), int64_t{70 - 17 - 1 + 1});
    QVERIFY(anyNote(d, "length auto: T = 17"));
    QCOMPARE(d.norm, std::string("window"));
    trainer.run();
    const auto test = trainer.evaluate("test");
    QVERIFY(std::isfinite(test.loss));
    QVERIFY(findReference(d.references, "persistence"));
    QVERIFY(findReference(d.references, "ar_lsq"));
    QVERIFY(std::isfinite(skillVersus(test.loss, d.references, "persistence")));
  }

  void actualNRecordedWhenCapped() {
    TaskOptions o;
    o.name = "csv";
    o.length = 0;
    o.csv_path = writeCsv("capped.csv", seriesCsv(100));
    const auto data = makeTask(o, 1024, 0);
    QCOMPARE(data.train.size(), int64_t{53});
    QCOMPARE(data.requested_train_size, int64_t{1024});
    QVERIFY(anyNote(data, "N capped: asked for 1024"));
    QCOMPARE(actualTrainSize(o, 1024, 0), int64_t{53});
    QCOMPARE(actualTrainSize(o, 16, 0), int64_t{16});

    // A sweep at 16, 64, 256: 64 and 256 both give N = 53 and run once, and say so.
    SweepOptions s;
    s.base = realSeriesDefaults(defaultRunConfig());
    s.base.task = o;
    s.base.trainer.max_steps = 2;
    s.base.trainer.eval_every = 1;
    s.models = {"lstm"};
    s.sizes = {16, 64, 256};
    s.seeds = 1;
    std::vector<std::string> notes;
    QCOMPARE(honestSweepSizes(s, &notes), (std::vector<int64_t>{16, 53}));
    QCOMPARE(notes.size(), size_t{1});
    QVERIFY(contains(notes[0], "64, 256 all give N = 53"));
    const auto result = runSweep(s);
    std::set<int64_t> model_sizes;
    int references = 0;
    for (const auto& r : result.rows) {
      if (r.reference) {
        ++references;
        QVERIFY(r.model == "mean" || r.model == "persistence" || r.model == "seasonal_naive" ||
                r.model == "ar_lsq" || r.model == "ets" || r.model == "auto_arima" ||
                r.model == "theta");
        continue;
      }
      QVERIFY2(r.error.empty(), r.error.c_str());
      model_sizes.insert(r.size);
      if (r.size == 53) QCOMPARE(r.requested_size, int64_t{64});
    }
    QCOMPARE(model_sizes, (std::set<int64_t>{16, 53}));
    QCOMPARE(references, 2 * 7);  // every reference and anchor at each N
    const auto csv = sweepCsv(result);
    QVERIFY(contains(csv, "requested_size,reference"));
    QVERIFY(contains(csv,
                     ",best_anchor,skill_vs_best_anchor,skill_ci95_low,skill_ci95_high,skill_dm_p,"
                     "skill_verdict\n"));
    QVERIFY(contains(csv, "\nar_lsq,53,"));
    const auto back = sweepResultFromJson(sweepJson(result));
    QCOMPARE(back.rows.size(), result.rows.size());
    QVERIFY(back.rows.back().reference);
    // Every model row has its interval and word; the per-target errors survive sweep.json.
    QVERIFY(contains(csv, ",beats\n") || contains(csv, ",ties\n") || contains(csv, ",loses\n"));
    QVERIFY(!result.rows.back().test_errors.empty());
    QCOMPARE(back.rows.back().test_errors, result.rows.back().test_errors);
  }

  void noTestTargetInAnyTrainingWindow() {
    // Values = row index + 1000, so every value names its row.
    CsvTable table;
    table.columns = {"v"};
    table.rows = 120;
    for (int64_t r = 0; r < table.rows; ++r) table.values.push_back(1000.0 + r);
    TaskOptions o;
    o.name = "csv";
    o.length = 0;
    o.horizon = 3;
    const auto layout = makeCsvLayout(table, o, 100000, "rows.csv");
    const auto data = makeCsvTaskFromTable(table, o, 100000, "rows.csv");
    const double mean = layout.mean[0], sd = layout.stddev[0];
    auto rowsOf = [&](const torch::Tensor& t) {
      std::set<int64_t> rows;
      auto flat = t.to(torch::kFloat64).reshape({-1});
      for (int64_t i = 0; i < flat.size(0); ++i)
        rows.insert(std::llround(flat[i].item<double>() * sd + mean) - 1000);
      return rows;
    };
    const auto train_targets = rowsOf(data.train.y), train_inputs = rowsOf(data.train.x);
    const auto test_targets = rowsOf(data.test.y), validation_targets = rowsOf(data.validation.y);
    QVERIFY(*train_targets.rbegin() < layout.train_end);
    QVERIFY(*train_inputs.rbegin() < layout.train_end);
    QCOMPARE(*validation_targets.begin(), layout.train_end);
    QCOMPARE(*validation_targets.rbegin(), layout.validation_end - 1);
    QCOMPARE(*test_targets.begin(), layout.validation_end);  // every test row is a target
    QCOMPARE(*test_targets.rbegin(), int64_t{119});
    QCOMPARE(static_cast<int64_t>(test_targets.size()), 120 - layout.validation_end);
    for (int64_t r : test_targets) QVERIFY(!train_targets.count(r) && !train_inputs.count(r));
    // A test window's inputs are the rows before its first target only.
    for (int64_t n = 0; n < data.test.size(); ++n) {
      const auto inputs = rowsOf(data.test.x[n]);
      const auto targets = rowsOf(data.test.y[n]);
      QVERIFY(*inputs.rbegin() < *targets.begin());
    }
  }

  void windowNormalisationRoundTrips() {
    torch::manual_seed(3);
    auto x = torch::randn({5, 16, 3}, torch::kFloat64) * 7 + 40;
    x[2].select(1, 1).fill_(3.25);  // a flat window column: no division by zero
    for (NormMode mode : {NormMode::Window, NormMode::None, NormMode::Global}) {
      const auto s = windowScale(x, mode, {1.0, -2.0, 0.5}, {2.0, 3.0, 0.25});
      const auto z = normaliseInput(x, s);
      QVERIFY(torch::isfinite(z).all().item<bool>());
      const auto back = restoreOutput(z, s);  // H = 1: the output has the input's layout
      QVERIFY((back - x).abs().max().item<double>() < 1e-12);
      if (mode == NormMode::Window) {
        // Causal: position t is centred and scaled by the inputs 0..t only (a literal loop).
        for (int64_t t : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{15}}) {
          const auto seen = x.narrow(1, 0, t + 1);                     // (B, t+1, C)
          const auto mean = seen.mean(1);                              // (B, C)
          const auto var = (seen - mean.unsqueeze(1)).pow(2).mean(1);  // (B, C) population
          const auto expect = (x.select(1, t) - mean) / (var + kWindowNormEps).sqrt();
          QVERIFY((z.select(1, t) - expect).abs().max().item<double>() < 1e-9);
        }
        QVERIFY(z[2].select(1, 1).abs().max().item<double>() == 0.0);
      }
    }
    // H = 2: every horizon block is mapped back with its column's statistics.
    const auto s = windowScale(x, NormMode::Window, {}, {});
    const auto z2 = torch::cat({normaliseInput(x, s), normaliseInput(x, s)}, 2);  // (B, T, 2·C)
    const auto back2 = restoreOutput(z2, s);
    QVERIFY((back2 - torch::cat({x, x}, 2)).abs().max().item<double>() < 1e-12);
  }

  void baselinesMatchHandComputation() {
    SeriesBaselineInput in;
    in.values = {1, 2, 4, 3, 5, 6, 8, 7, 9, 10};
    in.train_end = 6;
    in.length = 2;
    in.ar_order = 2;  // given: AR(2)
    in.horizon = 1;
    in.period = 2;
    in.train_starts = {0, 1, 2, 3};
    in.validation_origins = {5, 6};
    in.test_origins = {7, 8};
    const auto b = computeSeriesBaselines(in);
    auto ref = [&](const char* name) {
      const auto* r = findReference(b.scores, name);
      return r ? *r : ReferenceScore{"missing", "", NAN, NAN};
    };
    // mean of rows 0..5 = 3.5; test targets 9, 10; validation targets 8, 7
    QCOMPARE(ref("mean").test_loss, (5.5 * 5.5 + 6.5 * 6.5) / 2);
    QCOMPARE(ref("mean").validation_loss, 16.25);
    // persistence: 7 → 9, 9 → 10
    QCOMPARE(ref("persistence").test_loss, 2.5);
    QCOMPARE(ref("persistence").validation_loss, 2.5);
    // seasonal naive P = 2: z6 = 8 → 9, z7 = 7 → 10
    QCOMPARE(ref("seasonal_naive").test_loss, 5.0);
    QCOMPARE(ref("seasonal_naive").validation_loss, 5.0);
    QCOMPARE(b.season.period, int64_t{2});
    // AR(2) by hand (exact normal equations on the 4 windows): β = (53, 4, 11) / 21
    const auto w = fitArLeastSquares(in, 0, 1);
    QVERIFY(std::abs(w[0] - 53.0 / 21) < 1e-5 && std::abs(w[1] - 4.0 / 21) < 1e-6 &&
            std::abs(w[2] - 11.0 / 21) < 1e-6);
    QVERIFY(std::abs(ref("ar_lsq").test_loss - 1168.0 / 441) < 1e-5);
    QVERIFY(std::abs(ref("ar_lsq").validation_loss - 656.0 / 441) < 1e-5);
    QCOMPARE(ref("ar_lsq").label, std::string("AR(2) least squares, p given"));
    // Skill: 1 − model / reference
    QCOMPARE(skillVersus(1.25, b.scores, "persistence"), 0.5);
    QVERIFY(std::isnan(skillVersus(1.0, b.scores, "bayes_floor")));
    // A window or origin outside the series is an error, not a crash.
    in.test_origins = {9};
    bool threw = false;
    try {
      computeSeriesBaselines(in);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    QVERIFY(threw);
  }

  void seasonalPeriodOfAKnownSine() {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, 0.1);
    std::vector<double> v;
    for (int t = 0; t < 240; ++t) v.push_back(0.05 * t + std::sin(2 * M_PI * t / 12) + noise(rng));
    const auto e = detectSeasonalPeriod(v, 1, 240);
    QCOMPARE(e.period, int64_t{12});
    QVERIFY(e.autocorrelation > 0.5);
    std::vector<double> q;  // period 4, two columns
    for (int t = 0; t < 100; ++t) {
      q.push_back(std::cos(2 * M_PI * t / 4) + noise(rng));
      q.push_back(2 * std::sin(2 * M_PI * t / 4) + noise(rng));
    }
    QCOMPARE(detectSeasonalPeriod(q, 2, 100).period, int64_t{4});
    std::vector<double> walk{0};  // a random walk: no season
    for (int t = 1; t < 300; ++t) walk.push_back(walk.back() + noise(rng));
    QCOMPARE(detectSeasonalPeriod(walk, 1, 300).period, int64_t{1});
  }

  void bestWeightsRestoredForTheTest() {
    RunConfig c = realSeriesDefaults(defaultRunConfig());
    c.task.name = "lynx";
    c.model.model = "lstm";
    c.trainer.max_steps = 40;
    c.trainer.eval_every = 10;
    Trainer trainer(c);
    trainer.run();
    QVERIFY(trainer.bestStep() > 0);
    const auto v = trainer.evaluate("validation");
    QVERIFY(std::abs(v.loss - trainer.bestValidationLoss()) < 1e-9);
  }

  void bundledSeriesBuildWithDefaults() {
    QCOMPARE(bundledSeriesNames(),
             (std::vector<std::string>{"airpassengers", "lynx", "lakehuron", "nottem", "ukgas",
                                       "treering", "etth1", "etth2"}));
    // The classic series; ETTh1 and ETTh2 are the paper table's (test_long_horizon builds them).
    const std::vector<std::string> names = {"airpassengers", "lynx",  "lakehuron",
                                            "nottem",        "ukgas", "treering"};
    // The calendar's periods: monthly 12, yearly 1 (lynx, LakeHuron, treering), quarterly 4.
    const std::map<std::string, int64_t> periods = {{"airpassengers", 12}, {"lynx", 1},
                                                    {"lakehuron", 1},      {"nottem", 12},
                                                    {"ukgas", 4},          {"treering", 1}};
    for (const auto& name : names) {
      RunConfig c = realSeriesDefaults(defaultRunConfig());
      c.task.name = name;
      validate(c);
      const auto data = makeTask(c.task, c.train_size, 0);
      QVERIFY2(data.train.size() > 20 && data.test.size() >= 14, name.c_str());
      QCOMPARE(data.references.size(), size_t{7});  // 4 baselines and the 3 anchors
      for (const auto& r : data.references)
        QVERIFY2(std::isfinite(r.test_loss) && std::isfinite(r.validation_loss), name.c_str());
      QCOMPARE(data.season.period, periods.at(name));
      QVERIFY2(contains(data.season.rule, "from the time column 'time' ("), name.c_str());
    }
    TaskOptions o;
    o.name = "airpassengers";
    o.length = 0;
    QVERIFY(anyNote(makeTask(o, 64, 0),
                    "seasonal naive: P = 12 from the time column 'time' (monthly steps)"));
    o.name = "lynx";
    QVERIFY(anyNote(makeTask(o, 64, 0),
                    "seasonal naive: P = 1 from the time column 'time' "
                    "(yearly steps: no season"));
  }

  // The order of the rules: --period, the calendar (two seasons in the train part), detection.
  void periodRuleOrder() {
    CalendarPeriod monthly;
    monthly.column = "time";
    monthly.period = 12;
    monthly.step = "monthly";
    QCOMPARE(choosePeriod(7, monthly, 100).note(), std::string("P = 7 given by --period"));
    QCOMPARE(choosePeriod(0, monthly, 100).note(),
             std::string("P = 12 from the time column 'time' (monthly steps)"));
    const auto few = choosePeriod(0, monthly, 23);
    QCOMPARE(few.period, int64_t{1});
    QVERIFY2(contains(few.rule, "fewer than two seasons of 12"), few.rule.c_str());
    auto detect = choosePeriod(0, CalendarPeriod{}, 100);
    QCOMPARE(detect.period, int64_t{0});
    QCOMPARE(detect.rule, std::string("no time column"));
    CalendarPeriod uneven;
    uneven.column = "date";
    uneven.problem = "the time column 'date' has uneven steps: …";
    QCOMPARE(choosePeriod(0, uneven, 100).rule, uneven.problem);
    // Detection completes the rule with what it found.
    SeriesBaselineInput in;
    for (int t = 0; t < 200; ++t) in.values.push_back(std::sin(2 * M_PI * t / 12) + 0.01 * t);
    in.train_end = 140;
    in.length = 24;
    in.period_rule = detect.rule;
    auto b = computeSeriesBaselines(in);
    QCOMPARE(b.season.period, int64_t{12});
    QVERIFY2(
        contains(b.season.note(), "P = 12 detected from the autocorrelation (no time column): "),
        b.season.note().c_str());
    in.period = 4;
    in.period_rule = "given by --period";
    QCOMPARE(computeSeriesBaselines(in).season.note(), std::string("P = 4 given by --period"));
  }

  void perHorizonLossAndTargetColumn() {
    RunConfig c = realSeriesDefaults(defaultRunConfig());
    c.task.name = "csv";
    std::string text = "time,a,b\n";
    for (int t = 0; t < 150; ++t)
      text += "2000-" + std::to_string(t) + "," + std::to_string(std::sin(t * 0.5)) + "," +
              std::to_string(t) + "\n";
    c.task.csv_path = writeCsv("two.csv", text);
    c.task.horizon = 3;
    c.task.target = "b";
    c.model.model = "gru";
    c.trainer.max_steps = 4;
    c.trainer.eval_every = 2;
    Trainer trainer(c);
    QCOMPARE(trainer.data().columns, (std::vector<std::string>{"b"}));
    trainer.run();
    const auto test = trainer.evaluate("test");
    for (const char* k : {"mse_h1", "mse_h2", "mse_h3"}) QVERIFY(test.values.count(k));
    const double mean_h =
        (test.values.at("mse_h1") + test.values.at("mse_h2") + test.values.at("mse_h3")) / 3;
    QVERIFY(std::abs(mean_h - test.loss) < 1e-6 * std::max(1.0, test.loss));
    c.task.target = "c";
    bool threw = false;
    try {
      Trainer bad(c);
    } catch (const std::invalid_argument& e) {
      threw = contains(e.what(), "target column 'c'");
    }
    QVERIFY(threw);
  }
  // AR(p) reference: p chosen by AICc on the training windows, never p = T (which fitted noise
  // and exploded at N ≈ T). A true AR(2) series gives an order near 2 and beats AR(T).
  void arOrderIsChosenByAicc() {
    std::mt19937 rng(5);
    std::normal_distribution<double> noise(0.0, 1.0);
    SeriesBaselineInput in;
    const int64_t L = 400;
    in.values.assign(2, 0.0);
    for (int64_t t = 2; t < L; ++t)
      in.values.push_back(0.6 * in.values[t - 1] - 0.3 * in.values[t - 2] + noise(rng));
    in.train_end = 280;
    in.length = 40;
    for (int64_t s0 = 0; s0 <= in.train_end - in.length - 1; ++s0) in.train_starts.push_back(s0);
    for (int64_t o = 279; o < 339; ++o) in.validation_origins.push_back(o);
    for (int64_t o = 339; o < L - 1; ++o) in.test_origins.push_back(o);
    const auto chosen = computeSeriesBaselines(in);
    const auto* ar = findReference(chosen.scores, "ar_lsq");
    QVERIFY(ar);
    QVERIFY2(ar->label.find("by AICc") != std::string::npos, ar->label.c_str());
    const int p = std::stoi(ar->label.substr(3));  // "AR(p) least squares, p by AICc"
    QVERIFY2(p >= 2 && p <= 4, ar->label.c_str());
    in.ar_order = in.length;  // the old default: AR(T)
    const auto* full = findReference(computeSeriesBaselines(in).scores, "ar_lsq");
    QVERIFY2(ar->test_loss < full->test_loss,
             qPrintable(QString("AICc %1 vs AR(T) %2").arg(ar->test_loss).arg(full->test_loss)));
  }

  // The forecasts the ensembles average are the ones the loss scores.
  void forecastsScoreAsTheLoss() {
    RunConfig c = realSeriesDefaults(defaultRunConfig());
    c.task.name = "lynx";
    c.model.d_model = 8;
    c.trainer.max_steps = 5;
    validate(c);
    Trainer trainer(c);
    trainer.run();
    for (const char* split : {"validation", "test"}) {
      const auto f = trainer.forecasts(split);
      const auto& y =
          std::string(split) == "test" ? trainer.data().test.y : trainer.data().validation.y;
      QCOMPARE(static_cast<int64_t>(f.size()), y.numel());
      const auto flat = y.reshape({-1});
      double sum = 0;
      for (size_t i = 0; i < f.size(); ++i) {
        const double e = f[i] - flat[static_cast<int64_t>(i)].item<double>();
        sum += e * e;
      }
      const double loss = trainer.evaluate(split).loss;
      QVERIFY2(std::abs(sum / static_cast<double>(f.size()) - loss) < 1e-5 * std::max(1.0, loss),
               split);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainer.forecasts("train"));
  }
};

RSALAB_TEST_MAIN(TestRealSeries)
#include "test_real_series.moc"
