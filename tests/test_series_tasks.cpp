// SPDX-License-Identifier: GPL-3.0-or-later
// Series tasks: synthetic seasonal/AR series (layout without leakage, windows equal to slices of
// the normalised series, recurrence recovered from autocorrelations, ground truth), the
// linear-recurrence teacher against a literal double loop over s < t, and the CSV task
// (time-ordered disjoint splits, train-only normalisation, train_size cap, the seasonal period from
// the time column).
#include <QTemporaryDir>
#include <cmath>
#include <fstream>
#include <functional>

#include "engine/tasks/csv_series.h"
#include "engine/tasks/synthetic_series.h"
#include "engine/tasks/teacher_task.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::contains;
using rsalab::test::errorOf;

namespace {

// Sample autocorrelation at `lag` of v[begin, end).
double autocorrelation(const torch::Tensor& v, int64_t begin, int64_t end, int64_t lag) {
  auto s = v.narrow(0, begin, end - begin).to(torch::kFloat64);
  s = s - s.mean();
  const int64_t n = s.size(0);
  return (s.narrow(0, 0, n - lag) * s.narrow(0, lag, n - lag)).sum().item<double>() /
         (s * s).sum().item<double>();
}

TaskOptions seriesOptions(const std::string& name) {
  TaskOptions o;
  o.name = name;
  o.length = 24;
  o.validation_size = 20;
  o.test_size = 30;
  return o;
}

// A CSV with a date column, a row-index column "t" and a wave "v"; values ≥ `from` are scaled.
std::string csvText(int64_t rows, int64_t scale_from = -1, double scale = 1) {
  std::string s = "date,t,v\n";
  for (int64_t r = 0; r < rows; ++r) {
    double v = std::sin(0.3 * r) + 0.01 * r;
    if (scale_from >= 0 && r >= scale_from) v *= scale;
    s += "2024-01-01T" + std::to_string(r) + ":00," + std::to_string(r) + "," + std::to_string(v) +
         "\n";
  }
  return s;
}

// The CSV with its row-index column t kept as a series (--target t,v): t is evenly spaced, so
// the reader sets it aside as the time index unless it is asked for by name.
CsvTable tracedTable(int64_t rows, int64_t scale_from = -1, double scale = 1) {
  return selectTargetColumns(parseCsv(csvText(rows, scale_from, scale), "s.csv"), "t,v", "s.csv");
}

// Row indices covered by the inputs and targets of a CSV split (column "t" de-normalised).
std::vector<int64_t> coveredRows(const DataSplit& split, const SeriesLayout& layout, int64_t H) {
  const int64_t C = layout.columns();
  std::vector<int64_t> rows;
  auto add = [&](const torch::Tensor& z) {
    auto raw = (z.to(torch::kFloat64) * layout.stddev[0] + layout.mean[0]).round().flatten();
    for (int64_t i = 0; i < raw.size(0); ++i) rows.push_back(raw[i].item<int64_t>());
  };
  add(split.x.select(2, 0));
  for (int64_t h = 0; h < H; ++h) add(split.y.select(2, h * C));
  return rows;
}

std::string twoDigits(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

// 72 rows of a wave of period 5 (the period the autocorrelation finds) under `header`, each row
// "time(k),value" (no time column when `time` is empty).
std::string wave72(const std::string& header, const std::function<std::string(int)>& time) {
  std::string s = header + "\n";
  for (int k = 0; k < 72; ++k) {
    const double v = std::sin(2 * M_PI * k / 5.0) + 0.02 * k;
    s += (time ? time(k) + "," : "") + std::to_string(v) + "\n";
  }
  return s;
}

std::string monthDate(int k) { return std::to_string(1974 + k / 12) + "-" + twoDigits(k % 12 + 1); }

std::string seasonalNote(const TaskData& data) {
  for (const auto& n : data.notes)
    if (n.rfind("seasonal naive: ", 0) == 0) return n;
  return "(no seasonal naive note)";
}

}  // namespace

class TestSeriesTasks : public QObject {
  Q_OBJECT
 private slots:
  void syntheticWindowsAreDisjointOrderedAndNonOverlapping() {
    auto o = seriesOptions("seasonal");
    o.horizon = 2;
    const int64_t span = o.length + o.horizon;
    const auto layout = makeSyntheticSeriesLayout(o, 40, 1);
    QCOMPARE(static_cast<int64_t>(layout.train_starts.size()), int64_t{40});
    QCOMPARE(static_cast<int64_t>(layout.validation_starts.size()), o.validation_size);
    QCOMPARE(static_cast<int64_t>(layout.test_starts.size()), o.test_size);
    QVERIFY(layout.train_end >= kMinTrainPeriod);
    int64_t previous_end = 0;
    auto check = [&](const std::vector<int64_t>& starts, int64_t begin, int64_t end) {
      for (int64_t s : starts) {
        QVERIFY(s >= begin && s + span <= end);
        QVERIFY(s >= previous_end);  // ordered and not overlapping, targets included
        previous_end = s + span;
      }
    };
    check(layout.train_starts, 0, layout.train_end);
    check(layout.validation_starts, layout.train_end, layout.validation_end);
    check(layout.test_starts, layout.validation_end, layout.length());
  }

  void syntheticWindowsAreSlicesOfTheNormalisedSeries() {
    auto o = seriesOptions("seasonal");
    o.horizon = 3;
    const auto layout = makeSyntheticSeriesLayout(o, 12, 4);
    const auto data = makeTask(o, 12, 4);
    QCOMPARE(data.train.y.sizes(), (torch::IntArrayRef{12, o.length, 3}));
    auto z = (layout.values.select(1, 0) - layout.mean[0]) / layout.stddev[0];  // (L)
    auto checkSplit = [&](const DataSplit& split, const std::vector<int64_t>& starts) {
      for (size_t n = 0; n < starts.size(); ++n) {
        const auto s = starts[n];
        const auto i = static_cast<int64_t>(n);
        QVERIFY(test::checkClose(split.x[i].select(1, 0), z.narrow(0, s, o.length), 1e-6, "x"));
        for (int64_t h = 0; h < 3; ++h) {
          QVERIFY(test::checkClose(split.y[i].select(1, h), z.narrow(0, s + 1 + h, o.length), 1e-6,
                                   "y"));
        }
      }
    };
    checkSplit(data.train, layout.train_starts);
    checkSplit(data.validation, layout.validation_starts);
    checkSplit(data.test, layout.test_starts);
  }

  void normalisationIsFittedOnTheTrainPeriodOnly() {
    const auto o = seriesOptions("ar");
    const auto layout = makeSyntheticSeriesLayout(o, 10, 2);
    auto train = layout.values.narrow(0, 0, layout.train_end).select(1, 0);
    QVERIFY(std::abs(train.mean().item<double>() - layout.mean[0]) < 1e-12);
    const double sd = (train - train.mean()).pow(2).mean().sqrt().item<double>();  // population
    QVERIFY(std::abs(sd - layout.stddev[0]) < 1e-12);
    auto z = (train - layout.mean[0]) / layout.stddev[0];
    QVERIFY(std::abs(z.mean().item<double>()) < 1e-9);
    // Statistics of the whole series would differ: the later periods are not used.
    auto all = layout.values.select(1, 0);
    QVERIFY(all.mean().item<double>() != layout.mean[0]);
  }

  void arRecurrenceIsRecoveredForwardsAndBackwards() {
    auto o = seriesOptions("ar");
    o.ar_poles = {0.8};
    o.noise = 0;
    o.validation_size = 1500;
    o.test_size = 1500;  // 75k forward-generated rows
    const auto layout = makeSyntheticSeriesLayout(o, 10, 9);
    auto v = layout.values.select(1, 0);
    const double back = autocorrelation(v, 0, layout.train_end, 1);
    const double fwd = autocorrelation(v, layout.train_end, layout.length(), 1);
    QVERIFY2(std::abs(back - 0.8) < 0.02, qPrintable(QString::number(back)));
    QVERIFY2(std::abs(fwd - 0.8) < 0.02, qPrintable(QString::number(fwd)));
    QVERIFY(std::abs(autocorrelation(v, 0, layout.train_end, 2) - 0.64) < 0.03);
    // Unit stationary variance per component.
    QVERIFY(std::abs(v.std().item<double>() - 1.0) < 0.05);
  }

  void seasonalRecurrenceIsRecoveredForwardsAndBackwards() {
    auto o = seriesOptions("seasonal");
    o.ar_poles = {};
    o.periods = {12};
    o.dampings = {0.9};
    o.noise = 0;
    o.validation_size = 1500;
    o.test_size = 1500;
    const auto layout = makeSyntheticSeriesLayout(o, 10, 11);
    auto v = layout.values.select(1, 0);
    const double g = 0.9, th = 2 * M_PI / 12;
    const double phi1 = 2 * g * std::cos(th), phi2 = -g * g;
    const double rho1 = phi1 / (1 - phi2), rho2 = phi1 * rho1 + phi2;
    for (auto [b, e] : {std::pair<int64_t, int64_t>{0, layout.train_end},
                        std::pair<int64_t, int64_t>{layout.train_end, layout.length()}}) {
      const double r1 = autocorrelation(v, b, e, 1), r2 = autocorrelation(v, b, e, 2);
      QVERIFY2(std::abs(r1 - rho1) < 0.02, qPrintable(QString("%1 vs %2").arg(r1).arg(rho1)));
      QVERIFY2(std::abs(r2 - rho2) < 0.03, qPrintable(QString("%1 vs %2").arg(r2).arg(rho2)));
    }
  }

  void groundTruthValues() {
    auto o = seriesOptions("seasonal");
    o.ar_poles = {0.8, -0.5};
    o.periods = {12, 30};
    o.dampings = {0.97};  // one damping for every period
    const auto data = makeTask(o, 8, 0);
    QCOMPARE(data.truth.lambdas(), (std::vector<double>{0.8, -0.5}));
    const auto cyc = data.truth.cyclical();
    QCOMPARE(cyc.size(), size_t{2});
    QCOMPARE(cyc[0].first, 0.97);
    QCOMPARE(cyc[1].first, 0.97);
    QVERIFY(std::abs(cyc[0].second - 2 * M_PI / 12) < 1e-15);
    QVERIFY(std::abs(cyc[1].second - 2 * M_PI / 30) < 1e-15);
    // Each pole pair is both a cos and a sin REM; the poles are labelled for what they are.
    QCOMPARE(data.truth.components.size(), size_t{2 + 2 * 2});
    QVERIFY(data.truth.meaning.find("not the optimum") != std::string::npos);
    QVERIFY2(contains(data.truth.description, "λ=0.8") && contains(data.truth.description, "P=30"),
             data.truth.description.c_str());
    o.name = "ar";
    const auto ar = makeTask(o, 8, 0);
    QCOMPARE(ar.truth.lambdas(), (std::vector<double>{0.8, -0.5}));
    QVERIFY(ar.truth.cyclical().empty());
  }

  void syntheticTrainWindowsAreNestedAcrossTrainSizes() {
    const auto o = seriesOptions("seasonal");
    const auto small = makeTask(o, 16, 5), large = makeTask(o, 64, 5);
    QVERIFY(torch::equal(small.train.x, large.train.x.narrow(0, 48, 16)));
    QVERIFY(torch::equal(small.validation.x, large.validation.x));
    QVERIFY(torch::equal(small.test.y, large.test.y));
  }

  void badSeriesOptionsNameTheField() {
    auto bad = [](auto edit) {
      auto o = seriesOptions("seasonal");
      edit(o);
      return errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); });
    };
    QVERIFY(contains(bad([](TaskOptions& o) { o.ar_poles = {1.0}; }),
                     "ar_poles[0] = 1 is out of range"));
    QVERIFY(contains(bad([](TaskOptions& o) { o.periods = {12, 1}; }), "periods[1]"));
    QVERIFY(contains(bad([](TaskOptions& o) { o.dampings = {1.2}; }), "dampings[0]"));
    QVERIFY(contains(bad([](TaskOptions& o) { o.dampings = {0.9, 0.8}; }), "dampings has 2"));
    QVERIFY(contains(bad([](TaskOptions& o) { o.noise = -1; }), "noise"));
    QVERIFY(contains(bad([](TaskOptions& o) { o.horizon = 0; }), "horizon = 0"));
    QVERIFY(contains(bad([](TaskOptions& o) {
                       o.name = "ar";
                       o.ar_poles = {};
                     }),
                     "ar_poles"));
  }

  void teacherTargetsEqualLiteralLoops() {
    auto o = seriesOptions("teacher");
    o.length = 30;
    o.teacher_kinds = {TeacherKind::Regular, TeacherKind::Cos, TeacherKind::Regular};
    o.teacher_bases = {0.8, 0.9, -0.5};
    o.teacher_thetas = {0.0, 0.5, 0.0};
    const auto data = makeTask(o, 6, 3);
    QCOMPARE(data.train.x.sizes(), (torch::IntArrayRef{6, 30, 1}));
    QCOMPARE(data.train.y.sizes(), (torch::IntArrayRef{6, 30, 1}));
    auto x = data.train.x.select(2, 0).to(torch::kFloat64);  // (N, T)
    auto expected = torch::zeros_like(x);
    for (int64_t n = 0; n < x.size(0); ++n) {
      for (int64_t t = 0; t < x.size(1); ++t) {
        double sum = 0;
        for (int64_t s = 0; s < t; ++s) {
          const double d = static_cast<double>(t - s);
          const double k =
              std::pow(0.8, d) + std::pow(0.9, d) * std::cos(0.5 * d) + std::pow(-0.5, d);
          sum += k * x[n][s].item<double>();
        }
        expected[n][t] = sum;
      }
    }
    QVERIFY(test::checkClose(data.train.y.select(2, 0), expected, 1e-5, "teacher y (float32)"));
    QVERIFY(test::checkClose(teacherTargets(x, teacherTerms(o)), expected, 1e-12,
                             "teacher recursion (float64)"));
    QVERIFY(torch::equal(data.train.y.select(1, 0), torch::zeros({6, 1})));  // nothing before t=0
    QCOMPARE(data.truth.lambdas(), (std::vector<double>{0.8, -0.5}));
    QCOMPARE(data.truth.cyclical().size(), size_t{1});
    QCOMPARE(data.truth.cyclical()[0].first, 0.9);
    QCOMPARE(data.truth.cyclical()[0].second, 0.5);
    // White-noise inputs.
    const auto big = makeTask(o, 400, 1);
    QVERIFY(std::abs(big.train.x.mean().item<double>()) < 0.03);
    QVERIFY(std::abs(big.train.x.std().item<double>() - 1) < 0.03);
  }

  void badTeacherOptionsNameTheField() {
    auto bad = [](auto edit) {
      auto o = seriesOptions("teacher");
      edit(o);
      return errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); });
    };
    QVERIFY(contains(bad([](TaskOptions& o) { o.teacher_bases = {1.0}; }), "teacher_bases[0]"));
    QVERIFY(contains(bad([](TaskOptions& o) {
                       o.teacher_bases = {0.5, 0.5};
                     }),
                     "teacher_bases has 2"));
    QVERIFY(contains(bad([](TaskOptions& o) {
                       o.teacher_kinds = {};
                       o.teacher_bases = {};
                     }),
                     "teacher_kinds"));
    QVERIFY(contains(bad([](TaskOptions& o) {
                       o.teacher_kinds = {TeacherKind::Regular, TeacherKind::Cos};
                       o.teacher_bases = {0.5, 0.5};
                       o.teacher_thetas = {0.1};
                     }),
                     "teacher_thetas"));
    QVERIFY(contains(bad([](TaskOptions& o) {
                       o.teacher_kinds = {TeacherKind::Cos};
                       o.teacher_thetas = {4.0};
                     }),
                     "teacher_thetas[0]"));
  }

  void csvSplitsAreDisjointAndTimeOrdered() {
    auto o = seriesOptions("csv");
    o.length = 10;
    o.horizon = 2;
    const auto table = tracedTable(400);
    QCOMPARE(table.columns, (std::vector<std::string>{"t", "v"}));
    const auto layout = makeCsvLayout(table, o, 1000, "s.csv");
    const auto data = makeCsvTaskFromTable(table, o, 1000, "s.csv");
    QCOMPARE(data.io.input_dim, int64_t{2});
    QCOMPARE(data.io.output_dim, int64_t{4});
    QCOMPARE(data.columns, table.columns);
    const auto tr = coveredRows(data.train, layout, 2);
    // Validation and test (rolling origin): their targets, in the last position's y.
    auto targetRows = [&](const DataSplit& split) {
      DataSplit targets;
      targets.x = split.y.narrow(2, 0, 1);  // (N, 1, 1): column t of the first step
      targets.y = split.y;
      return coveredRows(targets, layout, 2);
    };
    const auto va = targetRows(data.validation);
    const auto te = targetRows(data.test);
    const auto [tr_min, tr_max] = std::minmax_element(tr.begin(), tr.end());
    const auto [va_min, va_max] = std::minmax_element(va.begin(), va.end());
    const auto [te_min, te_max] = std::minmax_element(te.begin(), te.end());
    QCOMPARE(*tr_min, int64_t{0});
    QCOMPARE(*tr_max, int64_t{279});  // 70% of 400 rows
    QCOMPARE(*va_min, int64_t{280});
    QCOMPARE(*va_max, int64_t{339});
    QCOMPARE(*te_min, int64_t{340});
    QCOMPARE(*te_max, int64_t{399});
    // y[..., h·C + c] is column c, h + 1 steps ahead.
    // y[..., h·C + c] is column c, h + 1 steps ahead: here h = 1, c = 0.
    QVERIFY(test::checkClose(data.train.y.select(2, 2).narrow(1, 0, 8),
                             data.train.x.select(2, 0).narrow(1, 2, 8), 1e-5, "two steps ahead"));
  }

  // A numeric time column (year, 1871, 1872, …) is the time index, not a series: it is left out
  // of the forecast and of every loss, the summary says so, and --target still chooses it.
  void numericTimeColumnIsNotForecast() {
    auto o = seriesOptions("csv");
    o.length = 10;
    const auto table = parseCsv(csvText(400), "s.csv");
    QCOMPARE(table.columns, std::vector<std::string>{"v"});
    QCOMPARE(table.skipped_columns, (std::vector<std::string>{"date", "t"}));
    const auto data = makeCsvTaskFromTable(table, o, 1000, "s.csv");
    QCOMPARE(data.io.input_dim, int64_t{1});
    QVERIFY2(data.summary.find("skipped time column 't' (numbers, but the time index") !=
                 std::string::npos,
             data.summary.c_str());
    const auto chosen = selectTargetColumns(table, "t", "s.csv");
    QCOMPARE(chosen.columns, std::vector<std::string>{"t"});
    QCOMPARE(chosen.at(399, 0), 399.0);
    QCOMPARE(chosen.skipped_columns, std::vector<std::string>{"date"});
  }

  void csvNormalisationUsesTrainRowsOnly() {
    auto o = seriesOptions("csv");
    o.length = 10;
    o.horizon = 1;
    const auto table = tracedTable(400);
    const auto data = makeCsvTaskFromTable(table, o, 100000, "s.csv");
    // Every window start: the train part is rebuilt from the windows and has mean 0, std 1.
    const int64_t windows = 280 - 11 + 1;
    QCOMPARE(data.train.size(), windows);
    auto part = torch::cat({data.train.x.select(1, 0), data.train.x[windows - 1].narrow(0, 1, 9),
                            data.train.y[windows - 1].narrow(0, 9, 1)},
                           0);  // (280, C)
    QCOMPARE(part.size(0), int64_t{280});
    QVERIFY(test::checkClose(part.mean(0), torch::zeros({2}), 1e-5, "train mean"));
    QVERIFY(test::checkClose((part - part.mean(0)).pow(2).mean(0).sqrt(), torch::ones({2}), 1e-5,
                             "train std"));
    // Changing only test-period values leaves train and validation tensors unchanged.
    const auto changed = makeCsvTaskFromTable(tracedTable(400, 340, 100.0), o, 100000, "s.csv");
    QVERIFY(torch::equal(changed.train.x, data.train.x));
    QVERIFY(torch::equal(changed.train.y, data.train.y));
    QVERIFY(torch::equal(changed.validation.x, data.validation.x));
    QVERIFY(!torch::equal(changed.test.x, data.test.x));
    // Changing a train value does change them (the check above can fail).
    const auto train_changed = makeCsvTaskFromTable(tracedTable(400, 100, 2.0), o, 100000, "s.csv");
    QVERIFY(!torch::equal(train_changed.validation.x, data.validation.x));
  }

  void csvTrainSizeCapsTheWindows() {
    auto o = seriesOptions("csv");
    o.length = 10;
    o.horizon = 1;
    const auto table = tracedTable(400);
    const auto layout = makeCsvLayout(table, o, 5, "s.csv");
    QCOMPARE(layout.train_starts.size(), size_t{5});
    QCOMPARE(layout.train_starts.front(), int64_t{0});
    QCOMPARE(layout.train_starts.back(), int64_t{280 - 11});  // the latest window
    const auto data = makeCsvTaskFromTable(table, o, 5, "s.csv");
    QCOMPARE(data.train.size(), int64_t{5});
    QCOMPARE(data.validation.size(), o.validation_size);
    // Validation and test inputs may reach back: T = 60 fits a 60-row validation part.
    o.length = 60;
    QCOMPARE(makeCsvTaskFromTable(table, o, 5, "s.csv").test.size(), int64_t{60});
    // Too long a window for the train part.
    o.length = 280;
    const auto msg =
        errorOf<std::invalid_argument>([&] { makeCsvTaskFromTable(table, o, 5, "s.csv"); });
    QVERIFY2(contains(msg, "length + horizon = 281") && contains(msg, "train part"), msg.c_str());
  }

  // The period comes from the time column's calendar step, not from the autocorrelation (which
  // finds the wave's 5 in these 72 rows): fractional years, dates and date-times.
  void csvPeriodFromTheTimeColumn() {
    auto o = seriesOptions("csv");
    auto build = [&](const std::string& text) {
      return makeCsvTaskFromTable(parseCsv(text, "s.csv"), o, 64, "s.csv");
    };
    const auto plain = build(wave72("v", nullptr));
    QCOMPARE(plain.season.period, int64_t{5});
    QVERIFY2(contains(seasonalNote(plain),
                      "seasonal naive: P = 5 detected from the autocorrelation (no time column)"),
             seasonalNote(plain).c_str());
    const auto years = build(wave72("time,v", [](int k) {
      return std::to_string(std::round((1974 + k / 12.0) * 1e4) / 1e4);  // 1974.083300, …
    }));
    QCOMPARE(years.season.period, int64_t{12});
    QCOMPARE(seasonalNote(years),
             std::string("seasonal naive: P = 12 from the time column 'time' (monthly steps)"));
    QCOMPARE(years.season.rule, std::string("from the time column 'time' (monthly steps)"));
    const auto* seasonal = findReference(years.references, "seasonal_naive");
    QVERIFY(seasonal && contains(seasonal->label, "(P = 12)"));
    const auto dates = build(wave72("date,v", [](int k) { return monthDate(k) + "-01"; }));
    QCOMPARE(dates.season.period, int64_t{12});
    QCOMPARE(dates.season.note(),
             std::string("P = 12 from the time column 'date' (monthly steps)"));
    const auto hours = build(wave72("date,v", [](int k) {
      return "2016-07-0" + std::to_string(1 + k / 24) + " " + twoDigits(k % 24) + ":00:00";
    }));
    QCOMPARE(hours.season.period, int64_t{24});
    QCOMPARE(hours.season.note(), std::string("P = 24 from the time column 'date' (hourly steps)"));
    const auto quarters = build(wave72("time,v", [](int k) {
      return std::to_string(1960 + k / 4) + "-Q" + std::to_string(k % 4 + 1);
    }));
    QCOMPARE(quarters.season.period, int64_t{4});
    const auto annual = build(wave72("year,v", [](int k) { return std::to_string(1871 + k); }));
    QCOMPARE(annual.season.period, int64_t{1});
    QVERIFY2(contains(annual.season.note(), "P = 1 from the time column 'year' (yearly steps"),
             annual.season.note().c_str());
  }

  // A time column that does not parse or steps unevenly is reported, and P is detected instead;
  // --period overrides the calendar; fewer than two seasons in the train part give P = 1.
  void csvPeriodFallbacksAndOverride() {
    auto o = seriesOptions("csv");
    auto build = [&](const std::string& text) {
      return makeCsvTaskFromTable(parseCsv(text, "s.csv"), o, 64, "s.csv");
    };
    const auto uneven = build(wave72("date,v", [](int k) { return monthDate(k == 40 ? 41 : k); }));
    QCOMPARE(uneven.season.period, int64_t{5});
    QVERIFY2(contains(seasonalNote(uneven),
                      "P = 5 detected from the autocorrelation (the time column 'date' has "
                      "uneven steps: 1 month between most rows"),
             seasonalNote(uneven).c_str());
    const auto bad = build(
        wave72("date,v", [](int k) { return k == 3 ? std::string("1974-13") : monthDate(k); }));
    QCOMPARE(bad.season.period, int64_t{5});
    QVERIFY2(contains(seasonalNote(bad),
                      "detected from the autocorrelation (the time column "
                      "'date' does not parse: '1974-13' (data row 4)"),
             seasonalNote(bad).c_str());
    o.seasonal_period = 7;
    const auto given = build(wave72("date,v", [](int k) { return monthDate(k); }));
    QCOMPARE(given.season.period, int64_t{7});
    QCOMPARE(seasonalNote(given), std::string("seasonal naive: P = 7 given by --period"));
    QVERIFY(contains(findReference(given.references, "seasonal_naive")->label, "(P = 7)"));
    o.seasonal_period = 0;
    o.length = 8;
    std::string short_hours = "date,v\n";  // 30 hourly rows: 21 train rows, under two days
    for (int k = 0; k < 30; ++k)
      short_hours += "2016-07-0" + std::to_string(1 + k / 24) + " " + twoDigits(k % 24) +
                     ":00:00," + std::to_string(std::sin(k * 0.3)) + "\n";
    const auto few = build(short_hours);
    QCOMPARE(few.season.period, int64_t{1});
    QVERIFY2(contains(few.season.note(),
                      "hourly steps, but the 21 train rows hold fewer than "
                      "two seasons of 24"),
             few.season.note().c_str());
  }

  void csvTaskReadsTheFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("series.csv").toStdString();
    {
      std::ofstream out(path);
      out << csvText(300);
    }
    auto o = seriesOptions("csv");
    o.length = 8;
    o.csv_path = path;
    const auto data = makeTask(o, 32, 0);
    QCOMPARE(data.train.size(), int64_t{32});
    QVERIFY2(contains(data.summary, "series.csv") && contains(data.summary, "'date'"),
             data.summary.c_str());
    o.csv_path.clear();
    QVERIFY(contains(errorOf<std::invalid_argument>([&] { makeTask(o, 8, 0); }), "csv_path"));
    o.csv_path = dir.filePath("missing.csv").toStdString();
    QVERIFY(contains(errorOf<std::runtime_error>([&] { makeTask(o, 8, 0); }), "missing.csv"));
  }
};

RSALAB_TEST_MAIN(TestSeriesTasks)
#include "test_series_tasks.moc"
