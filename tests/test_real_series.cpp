// SPDX-License-Identifier: GPL-3.0-or-later
// Real series: rolling-origin windows that fit short series, honest N, per-window
// normalisation, baselines on the same targets, the bundled series.
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/anchors.h"
#include "engine/core/forecast/arima_model.h"
#include "engine/core/forecast/baselines.h"
#include "engine/core/forecast/ets_model.h"
#include "engine/core/forecast/stl.h"
#include "engine/core/io/calendar.h"
#include "engine/core/io/resources.h"
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

// A bundled series' values (its second column).
std::vector<double> bundledValues(const std::string& name) {
  std::ifstream in(resourcePath("series/" + name + ".csv"));
  std::string line;
  std::getline(in, line);
  std::vector<double> y;
  while (std::getline(in, line)) y.push_back(std::stod(line.substr(line.find(',') + 1)));
  return y;
}

forecast::UnivariateProblem oneStepProblem(const std::string& series, int64_t train_end,
                                           int64_t period) {
  forecast::UnivariateProblem p;
  p.y = bundledValues(series);
  p.fit_end = train_end;
  p.period = period;
  for (int64_t o = train_end - 1; o <= static_cast<int64_t>(p.y.size()) - 2; ++o)
    p.origins.push_back(o);
  return p;
}

struct TimedAnchor {
  std::string model;
  double aicc = NAN, seconds = NAN;
};
TimedAnchor timedAnchor(const std::string& series, const std::string& method, int64_t train_end,
                        int64_t period) {
  const auto p = oneStepProblem(series, train_end, period);
  for (const auto& row : forecast::anchorTable()) {
    if (method != row.name) continue;
    auto q = p;
    if (q.period > row.max_period) q.period = 1;
    const auto start = std::chrono::steady_clock::now();
    const auto out = row.forecast(q);
    return {out.model, out.aicc,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  }
  return {};
}

// "ETS(M,Ad,M)" → the form; false when the text is not one.
bool parseEtsForm(const std::string& text, forecast::ets::Form& form) {
  using C = forecast::ets::Component;
  std::vector<std::string> parts;
  if (text.rfind("ETS(", 0) != 0 || text.back() != ')') return false;
  std::stringstream s(text.substr(4, text.size() - 5));
  for (std::string part; std::getline(s, part, ',');) parts.push_back(part);
  if (parts.size() != 3) return false;
  auto component = [](const std::string& c) {
    return c == "A" ? C::Additive : c == "M" ? C::Multiplicative : c == "Ad" ? C::Damped : C::None;
  };
  form = {component(parts[0]), component(parts[1]), component(parts[2])};
  return true;
}

// "ARIMA(p,d,q)(P,D,Q)[m] with drift" → the order.
bool parseArimaOrder(const std::string& text, int64_t period, forecast::arima::Order& o) {
  int values[6] = {0, 0, 0, 0, 0, 0};
  long long m = 1;
  const int read = std::sscanf(text.c_str(), "ARIMA(%d,%d,%d)(%d,%d,%d)[%lld]", &values[0],
                               &values[1], &values[2], &values[3], &values[4], &values[5], &m);
  if (read != 3 && read != 7) return false;
  o = {};
  o.p = values[0], o.d = values[1], o.q = values[2], o.P = values[3], o.D = values[4],
  o.Q = values[5];
  o.m = read == 7 ? m : period;
  o.constant = contains(text, "drift") || contains(text, "non-zero mean");
  return true;
}

// Why our chosen form is not R's: R's form fitted our way, scored by the same AICc (or, for
// ARIMA with other differencing, what chose ours).
std::string whyFormsDiffer(const std::string& series, const std::string& method,
                           const std::string& ours, const std::string& theirs, int64_t train_end,
                           int64_t period) {
  auto y = bundledValues(series);
  y.resize(static_cast<size_t>(train_end));
  std::ostringstream why;
  try {
    if (method == "ets") {
      forecast::ets::Form mine, r;
      if (!parseEtsForm(ours, mine) || !parseEtsForm(theirs, r)) return "unparsed forms";
      const auto a = forecast::ets::fitForm(mine, y, period),
                 b = forecast::ets::fitForm(r, y, period);
      why << "by AICc, our fits: ours " << a.aicc << ", R's form " << b.aicc
          << (a.aicc <= b.aicc ? " (higher, so ours is chosen)"
                               : " (lower here: our selection did not see it so)");
    } else if (method == "auto_arima") {
      forecast::arima::Order mine, r;
      if (!parseArimaOrder(ours, period, mine) || !parseArimaOrder(theirs, period, r))
        return "unparsed orders";
      if (mine.d != r.d || mine.D != r.D) {
        why << "differencing differs (ours d = " << mine.d << ", D = " << mine.D
            << "; R d = " << r.d << ", D = " << r.D << ")";
        if (period > 1 && static_cast<int64_t>(y.size()) > 2 * period)
          why << "; our STL seasonal strength " << forecast::seasonalStrength(y, period)
              << " against the 0.64 threshold";
      } else {
        const auto w = forecast::arima::difference(y, mine.d, mine.D, mine.m);
        const auto a = forecast::arima::fit(w, mine, forecast::arima::Method::Exact);
        const auto b = forecast::arima::fit(w, r, forecast::arima::Method::Exact);
        why << "same differencing; exact-likelihood AICc, our fits: ours " << a.aicc
            << ", R's order " << b.aicc
            << (a.aicc <= b.aicc ? " (higher: our stepwise search reached the lower one)"
                                 : " (lower: our stepwise search stopped at a local minimum, or "
                                   "scored the orders by CSS on a long series)");
      }
    } else {
      why << "the seasonality test or the indices differ";
    }
  } catch (const std::exception& e) {
    why << "R's form cannot be fitted here: " << e.what();
  }
  return why.str();
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

  // RevIN (--norm revin): window's statistics, the affine undone exactly at the output (a literal
  // γ_c·(x − µ)/σ + β_c on the way in), and the gradients of γ and β against central finite
  // differences in float64.
  void revinRoundTripsAndItsGradientsMatchFiniteDifferences() {
    torch::manual_seed(5);
    const int64_t B = 3, T = 12, C = 2, H = 3;
    const auto f64 = torch::kFloat64;
    const auto x = torch::randn({B, T, C}, f64) * 5 + 10;
    const auto w = torch::rand({C}, f64) + 0.5, b = torch::randn({C}, f64);
    const auto s = windowScale(x, NormMode::Revin, {}, {});
    const auto sw = windowScale(x, NormMode::Window, {}, {});
    QVERIFY(torch::equal(s.shift, sw.shift) && torch::equal(s.scale, sw.scale));  // causal ones
    const auto z = revinAffine(normaliseInput(x, s), w, b);                       // (B, T, C)
    for (int64_t n = 0; n < B; ++n)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) {
          const double expect = w[c].item<double>() *
                                    (x[n][t][c].item<double>() - s.shift[n][t][c].item<double>()) /
                                    s.scale[n][t][c].item<double>() +
                                b[c].item<double>();
          QVERIFY(std::fabs(z[n][t][c].item<double>() - expect) < 1e-12);
        }
    // Reversible: H copies of the transformed input come back as H copies of x, up to the
    // kRevinEps in the inverse's denominator, which leaves (x − µ)·kRevinEps/(γ + kRevinEps).
    const auto back = restoreOutput(revinInverse(torch::cat({z, z, z}, 2), w, b), s);
    const auto left = ((x - s.shift).abs() * (kRevinEps / w.view({1, 1, C}))).max();
    QVERIFY((back - torch::cat({x, x, x}, 2)).abs().max().item<double>() <
            2 * left.item<double>() + 1e-12);
    // Gradients through the whole map with a nonlinear stand-in for the model.
    const auto A = torch::randn({C, H * C}, f64), R = torch::randn({B, T, H * C}, f64);
    auto loss = [&](const torch::Tensor& wk, const torch::Tensor& bk) {
      const auto out = torch::tanh(revinAffine(normaliseInput(x, s), wk, bk)).matmul(A);
      return (restoreOutput(revinInverse(out, wk, bk), s) * R).sum();
    };
    auto wg = w.clone().requires_grad_(true), bg = b.clone().requires_grad_(true);
    loss(wg, bg).backward();
    const double eps = 1e-6;
    for (int64_t c = 0; c < C; ++c) {
      const auto e = torch::zeros({C}, f64).index_put_({c}, eps);
      const double dw = (loss(w + e, b) - loss(w - e, b)).item<double>() / (2 * eps);
      const double db = (loss(w, b + e) - loss(w, b - e)).item<double>() / (2 * eps);
      const double gw = wg.grad()[c].item<double>(), gb = bg.grad()[c].item<double>();
      QVERIFY2(std::fabs(gw - dw) <= 1e-6 * std::max(1.0, std::fabs(dw)),
               qPrintable(QString("d/dweight[%1]: autograd %2, finite difference %3")
                              .arg(c)
                              .arg(gw, 0, 'g', 12)
                              .arg(dw, 0, 'g', 12)));
      QVERIFY2(std::fabs(gb - db) <= 1e-6 * std::max(1.0, std::fabs(db)),
               qPrintable(QString("d/dbias[%1]: autograd %2, finite difference %3")
                              .arg(c)
                              .arg(gb, 0, 'g', 12)
                              .arg(db, 0, 'g', 12)));
    }
  }

  // RevIN's scale and shift are the model's: trained, saved in its checkpoint and loaded back.
  void revinParametersAreTheModels() {
    RunConfig c = realSeriesDefaults(defaultRunConfig());
    c.task.name = "airpassengers";
    c.task.norm = NormMode::Revin;
    c.task.anchors = AnchorMode::None;
    c.model.model = "gru";
    c.trainer.max_steps = 30;
    c.trainer.learning_rate = 1e-2;
    Trainer trainer(c);
    auto named = [](Trainer& t) {
      std::map<std::string, torch::Tensor> out;
      for (const auto& [k, v] : t.namedParameters()) out[k] = v.clone();
      return out;
    };
    QVERIFY(named(trainer).count("revin_weight") && named(trainer).count("revin_bias"));
    trainer.run(nullptr);
    const auto trained = named(trainer);
    QVERIFY(!torch::equal(trained.at("revin_weight"), torch::ones({1})));  // it learns
    QTemporaryDir dir;
    const auto path = (dir.path() + "/checkpoint.pt").toStdString();
    trainer.saveCheckpoint(path);
    Trainer again(c);
    again.loadCheckpoint(path);
    const auto loaded = named(again);
    QVERIFY(torch::equal(loaded.at("revin_weight"), trained.at("revin_weight")));
    QVERIFY(torch::equal(loaded.at("revin_bias"), trained.at("revin_bias")));
    // Without revin the model has no such parameters (older checkpoints load as they did).
    c.task.norm = NormMode::Window;
    Trainer plain(c);
    QVERIFY(!named(plain).count("revin_weight"));
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

  // The anchors inside the app against R's forecast package on the six bundled series
  // (tests/data/anchors_r.csv, written by scripts/anchors-r.R): the app's own split, its period
  // (the calendar's), parameters fitted on the train part and fixed, one-step forecasts from every
  // validation and test origin. ETS and Theta within 5 %, ARIMA within 10 % of R's test MSE on at
  // least 5 of the 6 series; every series is printed with our fit time (and R's, when the fixture
  // has a fit_seconds column), and where our chosen form differs from R's the line says why.
  void anchorsAgreeWithR() {
    std::ifstream in(std::string(RSALAB_TEST_DATA_DIR) + "/anchors_r.csv");
    QVERIFY2(in, "tests/data/anchors_r.csv is missing");
    auto cells = [](const std::string& line) {  // CSV with quoted model strings
      std::vector<std::string> f;
      std::string cell;
      bool quoted = false;
      for (char ch : line) {
        if (ch == '"')
          quoted = !quoted;
        else if (ch == ',' && !quoted)
          f.push_back(cell), cell.clear();
        else
          cell += ch;
      }
      f.push_back(cell);
      return f;
    };
    std::string line;
    std::getline(in, line);
    const auto header = cells(line);
    auto column = [&](const std::string& name) {
      const auto it = std::find(header.begin(), header.end(), name);
      return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    };
    for (const char* name : {"series", "period", "train_end", "method", "model", "test_mse"})
      QVERIFY2(column(name) >= 0, name);
    const int seconds_column = column("fit_seconds");  // optional
    struct Row {
      std::string series, method, model;
      int64_t period, train_end;
      double test, seconds;
    };
    std::vector<Row> rows;
    while (std::getline(in, line)) {
      const auto f = cells(line);
      QCOMPARE(f.size(), header.size());
      rows.push_back({f[column("series")], f[column("method")], f[column("model")],
                      std::stoll(f[column("period")]), std::stoll(f[column("train_end")]),
                      std::stod(f[column("test_mse")]),
                      seconds_column >= 0 ? std::stod(f[seconds_column]) : NAN});
    }
    const std::map<std::string, double> tolerance = {
        {"ets", 0.05}, {"auto_arima", 0.10}, {"theta", 0.05}};
    std::map<std::string, int> agree, total;
    std::ostringstream table;
    std::map<std::string, TaskData> tasks;
    std::map<std::string, double> r_fit_seconds;
    for (const auto& r : rows) r_fit_seconds[r.series] += r.seconds;
    for (const auto& r : rows) {
      if (!tasks.count(r.series)) {
        auto o = realSeriesDefaults(defaultRunConfig()).task;
        o.name = r.series;
        QElapsedTimer clock;
        clock.start();
        tasks[r.series] = makeTask(o, 1024, 0);
        table << r.series << ": P = " << tasks[r.series].season.period << "; R's four fits took "
              << r_fit_seconds[r.series] << " s, the app built the task with its baselines and "
              << "anchors (fits and every forecast) in " << 1e-9 * double(clock.nsecsElapsed())
              << " s\n";
      }
      const TaskData& d = tasks[r.series];
      // The fixture's split and period are the app's.
      QCOMPARE(d.validation.size() + d.test.size() > 0, true);
      const auto* seasonal = findReference(d.references, "seasonal_naive");
      QVERIFY(seasonal);
      QVERIFY2(seasonal->label.find("P = " + std::to_string(r.period) + ")") != std::string::npos,
               (r.series + ": " + seasonal->label).c_str());
      if (!tolerance.count(r.method)) {  // ar_aicc: R's AR on all train rows; ours on windows
        const auto* ar = findReference(d.references, "ar_lsq");
        table << r.series << " AR: R " << r.model << " test " << r.test << " (fit " << r.seconds
              << " s), ours "
              << (ar ? ar->label + " test " + std::to_string(ar->test_loss) : "absent")
              << " (printed, not checked)\n";
        continue;
      }
      const auto* ours = findReference(d.references, r.method);
      const double test = ours ? ours->test_loss : NAN;
      const double gap = std::abs(test / r.test - 1);
      total[r.method] += 1;
      const bool ok = gap <= tolerance.at(r.method);
      agree[r.method] += ok ? 1 : 0;
      // Our fit, timed on the same problem the app gives the anchor (one-step forecasts from the
      // train end on).
      const auto fitted = timedAnchor(r.series, r.method, r.train_end, r.period);
      table << r.series << " " << r.method << ": R " << r.model << " test " << r.test << ", ours "
            << (ours ? ours->label : std::string("absent")) << " test " << test << " ("
            << (ours ? std::to_string(100 * gap) + " %" : std::string("n/a")) << ")"
            << (ok ? "" : "  <- outside") << "; fit " << fitted.seconds << " s"
            << (std::isfinite(r.seconds) ? " (R " + std::to_string(r.seconds) + " s)" : "") << "\n";
      if (ours && ours->label != r.model)
        table << "    ours " << ours->label << " vs R " << r.model << ": "
              << whyFormsDiffer(r.series, r.method, ours->label, r.model, r.train_end, r.period)
              << "\n";
    }
    qInfo().noquote() << QString::fromStdString(table.str());
    for (const auto& [method, n] : total) {
      QCOMPARE(n, 6);
      QVERIFY2(agree[method] >= 5, qPrintable(QString("%1: %2 of 6 within tolerance")
                                                  .arg(QString::fromStdString(method))
                                                  .arg(agree[method])));
    }
  }

  // 200 rows (140 train, 30 validation and 30 test origins) of a sine with a slight trend.
  static forecast::AnchorInput anchorInput(int64_t columns, int64_t period, bool constant) {
    forecast::AnchorInput in;
    in.columns = columns;
    in.scale.assign(static_cast<size_t>(columns), 1.0);
    for (int64_t r = 0; r < 200; ++r)
      for (int64_t c = 0; c < columns; ++c)
        in.values.push_back(constant ? 3.0 : 10 + std::sin(0.3 * r + c) + 0.01 * r);
    in.train_end = 140;
    in.period = period;
    for (int64_t o = 139; o < 169; ++o) in.validation_origins.push_back(o);
    for (int64_t o = 169; o < 199; ++o) in.test_origins.push_back(o);
    return in;
  }
  static bool anyOf(const std::vector<std::string>& notes, const std::string& what) {
    return std::any_of(notes.begin(), notes.end(),
                       [&](const std::string& n) { return n.find(what) != std::string::npos; });
  }

  // Bad input to the anchors is a note, never a crash or a made-up number.
  void anchorsSayWhatTheyLeaveOut() {
    auto input = anchorInput;
    auto any = anyOf;
    auto wide = forecast::computeAnchors(input(17, 1, false));
    QVERIFY(wide.scores.empty() && any(wide.notes, "17 columns"));
    auto flat = forecast::computeAnchors(input(1, 1, true));
    QVERIFY(flat.scores.empty());
    QVERIFY(any(flat.notes, "ETS left out") && any(flat.notes, "Theta left out"));
    auto long_season = forecast::computeAnchors(input(1, 48, false));
    QCOMPARE(long_season.scores.size(), size_t{3});
    QVERIFY(any(long_season.notes, "auto ARIMA fitted without a season: P = 48"));
  }

  // The anchors' budget: each (anchor, column) fit reported once as it finishes; the same scores
  // on one thread as on several; `none` fits nothing; the modes' tails and seasonal limits are
  // said; a cancel skips the fits not yet begun.
  void anchorsKeepTheirBudget() {
    auto in = anchorInput(2, 1, false);
    in.column_names = {"a", "b"};
    std::vector<forecast::AnchorProgress> seen;
    in.progress = [&](const forecast::AnchorProgress& p) { seen.push_back(p); };
    in.threads = 3;
    const auto parallel = forecast::computeAnchors(in);
    QCOMPARE(seen.size(), size_t{6});  // 3 anchors × 2 columns
    for (size_t k = 0; k < seen.size(); ++k) {
      QCOMPARE(seen[k].done, static_cast<int64_t>(k + 1));
      QCOMPARE(seen[k].total, int64_t{6});
      QVERIFY(seen[k].column == "a" || seen[k].column == "b");
      QVERIFY(seen[k].error.empty() && !seen[k].model.empty() && seen[k].seconds >= 0);
    }
    in.progress = nullptr;
    in.threads = 1;
    const auto serial = forecast::computeAnchors(in);
    QCOMPARE(parallel.scores.size(), size_t{3});
    QCOMPARE(serial.scores.size(), parallel.scores.size());
    for (size_t k = 0; k < serial.scores.size(); ++k) {
      QCOMPARE(serial.scores[k].name, parallel.scores[k].name);
      QCOMPARE(serial.scores[k].validation_loss, parallel.scores[k].validation_loss);
      QCOMPARE(serial.scores[k].test_loss, parallel.scores[k].test_loss);
    }

    in.mode = AnchorMode::None;
    const auto none = forecast::computeAnchors(in);
    QVERIFY(none.scores.empty() && anyOf(none.notes, "--anchors none"));
    QVERIFY(forecast::anchorPlan(in).empty());

    auto cancelled = anchorInput(1, 24, false);
    std::atomic<bool> cancel{true};
    cancelled.cancel = &cancel;
    cancelled.train_end = 140;
    cancelled.mode = AnchorMode::All;
    auto skipped = forecast::computeAnchors(cancelled);
    QVERIFY(skipped.cancelled && skipped.scores.empty());
    QVERIFY(anyOf(skipped.notes, "P, Q ≤ 1 (period 24, --anchors all)"));
    cancelled.period = 12;  // not above the long-period limit of `all`: the full search
    QVERIFY(!anyOf(forecast::computeAnchors(cancelled).notes, "P, Q ≤"));
    cancelled.mode = AnchorMode::Fast;  // every period limited, and a shorter tail
    skipped = forecast::computeAnchors(cancelled);
    QVERIFY(anyOf(skipped.notes, "P, Q ≤ 1 (period 12, --anchors fast)"));
    // The tail: at most 12,000 / period rows (fast) and 48,000 / period (all).
    cancelled.period = 24;
    cancelled.train_end = 600;
    QVERIFY(anyOf(forecast::computeAnchors(cancelled).notes, "last 500 of the 600 train rows"));
    QVERIFY(contains(forecast::anchorPlan(cancelled), "the last 500 of the 600 train rows"));
    cancelled.mode = AnchorMode::All;
    QVERIFY(contains(forecast::anchorPlan(cancelled), "the 600 train rows"));
    QCOMPARE(forecast::anchorBudget(AnchorMode::All).period_rows / 24, int64_t{2000});
  }

  // A task built with deferred anchors has its baselines at once and the same anchors later.
  void deferredAnchorsAreTheSame() {
    auto o = realSeriesDefaults(defaultRunConfig()).task;
    o.name = "airpassengers";
    const TaskData now = makeTask(o, 64, 0);
    TaskBuild build;
    build.defer_anchors = true;
    TaskData later = makeTask(o, 64, 0, build);
    QVERIFY(later.pending_anchors);
    QCOMPARE(later.references.size() + 3, now.references.size());
    int calls = 0;
    const auto fitted = fitAnchors(later, [&](const forecast::AnchorProgress&) { ++calls; });
    QCOMPARE(calls, 3);
    QVERIFY(!later.pending_anchors);
    QCOMPARE(later.references.size(), now.references.size());
    for (size_t k = 0; k < now.references.size(); ++k) {
      QCOMPARE(later.references[k].name, now.references[k].name);
      QCOMPARE(later.references[k].test_loss, now.references[k].test_loss);
    }
    QVERIFY(fitted.seconds > 0);
    o.anchors = AnchorMode::None;
    const TaskData without = makeTask(o, 64, 0);
    QCOMPARE(without.references.size() + 3, now.references.size());
    QVERIFY(std::any_of(without.notes.begin(), without.notes.end(), [](const std::string& n) {
      return n.find("--anchors none") != std::string::npos;
    }));
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

  // The best reference is chosen on validation, never on test; the headline skill is against it.
  void bestAnchorIsChosenOnValidation() {
    const std::vector<ReferenceScore> refs = {{"persistence", "persistence", 0.5, 0.4},
                                              {"ets", "ETS(A,N,N)", 0.3, 0.6},
                                              {"theta", "Theta", 0.35, 0.2}};
    QCOMPARE(bestAnchor(refs)->name, std::string("ets"));  // lowest validation, not lowest test
    QCOMPARE(skillVersusBest(0.3, refs), 0.5);             // 1 − 0.3 / ETS's test 0.6
    QCOMPARE(skillVersusBest(0.15, refs, /*on_test=*/false), 0.5);
    QVERIFY(std::isnan(skillVersusBest(0.3, {})));
  }
};

RSALAB_TEST_MAIN(TestRealSeries)
#include "test_real_series.moc"
