// SPDX-License-Identifier: GPL-3.0-or-later
// The long-horizon protocol's arithmetic (engine/core/forecast/long_horizon.h) against the numbers
// the papers' code gives and against literal loops; the published rows and their sources; the
// verdict rule over seeds; and docs/PAPER_TABLE.md's block against the JSON of the run that
// measured it.
#include <QtTest>
#include <cmath>
#include <random>
#include <vector>

#include "engine/core/forecast/long_horizon.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/marked_block.h"
#include "engine/core/verdicts/paper_table.h"
#include "support/test_registry.h"

using namespace rsalab;
using namespace rsalab::forecast;

class TestLongHorizon : public QObject {
  Q_OBJECT

 private slots:
  // 12 / 4 / 4 months of 720 rows; validation and test inputs start L rows before their border;
  // each part's last window ends on its last row.
  void windowsAtTheBorders() {
    QCOMPARE(kEttHourSplit.train_end, int64_t{8640});
    QCOMPARE(kEttHourSplit.validation_end, int64_t{11520});
    QCOMPARE(kEttHourSplit.test_end, int64_t{14400});
    for (int64_t H : {24, 48, 96, 168, 336}) {
      const int64_t L = 96;
      const auto w = longHorizonWindows(kEttHourSplit, 17420, L, H);
      QCOMPARE(static_cast<int64_t>(w.train.size()), 8640 - L - H + 1);
      QCOMPARE(static_cast<int64_t>(w.validation.size()), 2880 - H + 1);
      QCOMPARE(static_cast<int64_t>(w.test.size()), 2880 - H + 1);
      QCOMPARE(w.train.front(), int64_t{0});
      QCOMPARE(w.train.back() + L + H - 1, int64_t{8639});  // the last train target row
      QCOMPARE(w.validation.front(), 8640 - L);             // inputs reach back L rows
      QCOMPARE(w.validation.front() + L, int64_t{8640});    // its first target: the border
      QCOMPARE(w.validation.back() + L + H - 1, int64_t{11519});
      QCOMPARE(w.test.front(), 11520 - L);
      QCOMPARE(w.test.front() + L, int64_t{11520});
      QCOMPARE(w.test.back() + L + H - 1, int64_t{14399});  // rows from 14400 on: unused
      for (size_t k = 1; k < w.test.size(); ++k) QCOMPARE(w.test[k] - w.test[k - 1], int64_t{1});
    }
    // The test part at H = 96: 2785 windows, the count the LTSF-Linear loader gives.
    QCOMPARE(longHorizonWindows(kEttHourSplit, 17420, 96, 96).test.size(), size_t{2785});
    // A train fraction keeps the most recent windows.
    const auto all = longHorizonWindows(kEttHourSplit, 17420, 96, 24);
    const auto cut = longHorizonWindows(kEttHourSplit, 17420, 96, 24, 0.05);
    QCOMPARE(static_cast<int64_t>(cut.train.size()),
             static_cast<int64_t>(std::ceil(0.05 * static_cast<double>(all.train.size()))));
    QCOMPARE(cut.train.back(), all.train.back());
    QCOMPARE(cut.test, all.test);
    QVERIFY_EXCEPTION_THROWN(longHorizonWindows(kEttHourSplit, 14399, 96, 24),
                             std::invalid_argument);
    QVERIFY_EXCEPTION_THROWN(longHorizonWindows(kEttHourSplit, 17420, 96, 2881),
                             std::invalid_argument);
    QVERIFY_EXCEPTION_THROWN(longHorizonWindows(kEttHourSplit, 17420, 96, 24, 0.0),
                             std::invalid_argument);
  }

  // Mean and population standard deviation of the train part only: rows after 8640 do not move
  // them.
  void scalingIsTheTrainPartsPopulationStd() {
    const int64_t rows = 14400, C = 2;
    std::vector<double> v(static_cast<size_t>(rows * C));
    for (int64_t r = 0; r < rows; ++r) {
      v[static_cast<size_t>(r * C)] = r < 8640 ? static_cast<double>(r % 10) : 1e6;
      v[static_cast<size_t>(r * C + 1)] = 3.0;  // constant: σ = 1
    }
    const auto s = fitTrainScaling(v, C, 8640);
    QCOMPARE(s.mean[0], 4.5);
    QVERIFY(std::fabs(s.stddev[0] - std::sqrt(8.25)) < 1e-12);  // ddof 0 (sample: 2.8724…)
    QCOMPARE(s.mean[1], 3.0);
    QCOMPARE(s.stddev[1], 1.0);
  }

  // MSE, MAE and the per-column MSE against a literal loop over (n, h, c); targets and
  // persistence against the formula's rows.
  void metricAgainstLiteralLoop() {
    const int64_t N = 5, H = 3, C = 2;
    std::mt19937 rng(7);
    std::normal_distribution<float> g;
    std::vector<float> f(N * H * C), t(N * H * C);
    for (auto& x : f) x = g(rng);
    for (auto& x : t) x = g(rng);
    double se = 0, ae = 0, se_c1 = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t c = 0; c < C; ++c) {
          const double e = double(f[(n * H + h) * C + c]) - double(t[(n * H + h) * C + c]);
          se += e * e;
          ae += std::fabs(e);
          if (c == 1) se_c1 += e * e;
        }
    const auto s = scoreLongHorizon(f, t, H, C, 1);
    QVERIFY(std::fabs(s.mse - se / (N * H * C)) < 1e-12);
    QVERIFY(std::fabs(s.mae - ae / (N * H * C)) < 1e-12);
    QVERIFY(std::fabs(s.column_mse[1] - se_c1 / (N * H)) < 1e-12);
    QCOMPARE(s.window_mse.size(), size_t(N));
    double mean = 0;
    for (double w : s.window_mse) mean += w / N;
    QVERIFY(std::fabs(mean - s.mse) < 1e-12);

    std::vector<double> z(40 * C);
    for (size_t k = 0; k < z.size(); ++k) z[k] = static_cast<double>(k);
    const std::vector<int64_t> starts = {0, 7};
    const int64_t L = 4;
    const auto y = longHorizonTargets(z, C, starts, L, H);
    const auto p = persistenceForecasts(z, C, starts, L, H);
    for (size_t n = 0; n < starts.size(); ++n)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t c = 0; c < C; ++c) {
          const size_t i = (n * H + h) * C + c;
          QCOMPARE(double(y[i]), z[(starts[n] + L + h) * C + c]);
          QCOMPARE(double(p[i]), z[(starts[n] + L - 1) * C + c]);
        }
    QVERIFY_EXCEPTION_THROWN(scoreLongHorizon(f, std::vector<float>(3), H, C, 0),
                             std::invalid_argument);
  }

  // One row per published number, each with a listed source; the figures.
  void publishedRowsCarryTheirSources() {
    auto find = [](const char* model, const char* series, const char* features,
                   int64_t h) -> double {
      for (const auto& p : publishedResults())
        if (std::string(p.model) == model && std::string(p.series) == series &&
            std::string(p.features) == features && p.horizon == h)
          return p.mse;
      return NAN;
    };
    QCOMPARE(find("RSA-Informer", "etth1", "M", 24), 0.414);
    QCOMPARE(find("Informer", "etth1", "M", 336), 1.416);
    QCOMPARE(find("RSA-Informer", "etth2", "M", 24), 1.264);
    QCOMPARE(find("DLinear", "etth1", "M", 96), 0.374);
    QCOMPARE(find("ARIMA", "etth1", "S", 96), 0.058);
    for (const auto& p : publishedResults()) {
      bool listed = false;
      for (const auto& [name, text] : publishedSources())
        listed = listed || name == std::string(p.source);
      QVERIFY2(listed, p.model);
    }
  }

  // RSA against the Transformer per horizon, paired over seeds: 3 agreeing seeds cannot decide,
  // 6 can, either way.
  void verdictOverSeeds() {
    auto runs = [](int seeds, double rsa, double transformer) {
      std::vector<PaperRun> out;
      for (int s = 0; s < seeds; ++s)
        for (const auto& [m, v] : {std::pair<std::string, double>{"rsa", rsa + 0.001 * s},
                                   {"transformer", transformer + 0.001 * s}}) {
          PaperRun r;
          r.model = m;
          r.features = "M";
          r.horizon = 24;
          r.train_windows = 8521;
          r.seed = static_cast<uint64_t>(s);
          r.mse = v;
          out.push_back(r);
        }
      return out;
    };
    QCOMPARE(verdictWord(horizonVerdict(runs(3, 0.4, 0.5), "rsa", "transformer", 24)),
             std::string("inconclusive"));
    QCOMPARE(verdictWord(horizonVerdict(runs(6, 0.4, 0.5), "rsa", "transformer", 24)),
             std::string("holds"));
    QCOMPARE(verdictWord(horizonVerdict(runs(6, 0.5, 0.4), "rsa", "transformer", 24)),
             std::string("does not hold"));
    QCOMPARE(verdictWord(horizonVerdict(runs(6, 0.4, 0.5), "rsa", "transformer", 48)),
             std::string("undecided"));  // no run at that horizon
  }

  // Docs from data: docs/PAPER_TABLE.md's block is what the renderer makes of
  // docs/data/paper_table.json; one changed digit and it no longer matches.
  void docsBlockMatchesItsData() {
    const std::string root = RSALAB_SOURCE_ROOT;
    const std::string json = readTextFile(root + "/docs/data/paper_table.json", 16 << 20);
    const std::string doc = readTextFile(root + "/docs/PAPER_TABLE.md", 16 << 20);
    const std::string block =
        markedBlockIn(doc, kPaperTableBlockBegin, kPaperTableBlockEnd, "docs/PAPER_TABLE.md");
    QCOMPARE(QString::fromStdString(block), QString::fromStdString(paperTableBlock(json)));
    std::string edited = json;
    const auto at = edited.find("\"mean\": 0.");
    QVERIFY(at != std::string::npos);
    edited[at + 10] = edited[at + 10] == '9' ? '8' : '9';
    QVERIFY(paperTableBlock(edited) != block);
  }
  // The six-seed run (H = 24 with the sample-efficiency curve), the ETTh2 run and the tuned run
  // (H = 24 beside the shared defaults) are committed as their JSON and the renderer's Markdown:
  // each pair must agree.
  void committedTablesMatchTheirData() {
    const std::string root = RSALAB_SOURCE_ROOT;
    for (const char* name : {"paper_table_seeds6", "paper_table_etth2", "paper_table_tuned"}) {
      const std::string base = root + "/docs/data/" + name;
      const std::string json = readTextFile(base + ".json", 16 << 20);
      const std::string md = readTextFile(base + ".md", 16 << 20);
      QCOMPARE(QString::fromStdString(md), QString::fromStdString(paperTableMarkdown(json)));
    }
    QVERIFY(
        !paperEfficiencyRows(readTextFile(root + "/docs/data/paper_table_seeds6.json", 16 << 20))
             .empty());
  }
};

RSALAB_REGISTER_TEST(TestLongHorizon, QTEST_GUILESS_MAIN)
#include "test_long_horizon.moc"
