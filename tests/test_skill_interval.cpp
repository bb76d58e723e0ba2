// SPDX-License-Identifier: GPL-3.0-or-later
// The skill's word and interval (engine/core/forecast/skill_interval.h) on constructed errors: the
// rule's calibration on equally good forecasters, no word below N_min, the Diebold–Mariano
// statistic against a literal computation of its formula, MASE's denominator against a literal
// loop, and errors.json in a session bundle (old bundles open; a short test part reopens without a
// word).
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/skill_interval.h"
#include "engine/core/forecast/t_distribution.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/marked_block.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/verdicts/real_series_report.h"
#include "support/test_registry.h"

using namespace rsalab;

namespace {

// n squared errors of a forecaster whose errors are AR(1) with coefficient `phi` and scale `sd`.
std::vector<double> squaredErrors(size_t n, double sd, std::mt19937_64& rng, double phi = 0.5) {
  std::normal_distribution<double> noise(0.0, sd);
  std::vector<double> out;
  double e = 0;
  for (size_t t = 0; t < n; ++t) {
    e = phi * e + noise(rng);
    out.push_back(e * e);
  }
  return out;
}

}  // namespace

class TestSkillInterval : public QObject {
  Q_OBJECT
 private slots:
  // A model with half the reference's error scale on 36 targets (a bundled series' test part): DM
  // rejects equal accuracy, the word is "beats", and the bootstrap interval beside it lies above 0.
  void clearlyBetterModelBeats() {
    std::mt19937_64 rng(7);
    const auto anchor = squaredErrors(36, 1.0, rng);
    auto model = squaredErrors(36, 0.5, rng);
    const auto ci = pairedSkillInterval(model, anchor, skillBlockLength(1, 36), 1);
    QVERIFY(ci.valid());
    QCOMPARE(ci.block, int64_t{3});  // round(36^(1/3))
    QCOMPARE(ci.resamples, kSkillResamples);
    QVERIFY2(ci.low > 0, qPrintable(QString::fromStdString(ci.text())));
    QVERIFY(ci.low <= ci.skill && ci.skill <= ci.high);
    QVERIFY(ci.dm_p < kSkillLevel);
    QCOMPARE(ci.verdict(), SkillVerdict::Beats);
    // Swapped, the reference is the better one: the model loses.
    const auto swapped = pairedSkillInterval(anchor, model, 3, 1);
    QVERIFY(swapped.high < 0);
    QCOMPARE(swapped.verdict(), SkillVerdict::Loses);
  }

  // The word follows DM at 5 %, not the interval: a p just above 0.05 ties, just below beats,
  // whatever the interval says.
  void theWordFollowsDieboldMariano() {
    SkillInterval ci;
    ci.skill = 0.2;
    ci.low = 0.05;
    ci.high = 0.3;  // the interval above 0
    ci.targets = 36;
    ci.dm_p = 0.051;
    QCOMPARE(ci.verdict(), SkillVerdict::Ties);
    ci.dm_p = 0.049;
    QCOMPARE(ci.verdict(), SkillVerdict::Beats);
    ci.low = -0.1;  // the interval covering 0
    QCOMPARE(ci.verdict(), SkillVerdict::Beats);
    ci.skill = -0.2;
    QCOMPARE(ci.verdict(), SkillVerdict::Loses);
    ci.dm_p = NAN;  // no p-value (a build without GSL): no evidence read
    QCOMPARE(ci.verdict(), SkillVerdict::Ties);
    QCOMPARE(ci.text(2, "ties"), std::string("-0.20 [-0.10, +0.30], DM p = nan: ties"));
  }

  // Below N_min = 2h + 10 targets no word is said, however large the difference; at N_min it is.
  void tooFewTargetsGetNoWord() {
    QCOMPARE(skillMinTargets(1), int64_t{12});
    QCOMPARE(skillMinTargets(3), int64_t{16});
    QCOMPARE(skillMinTargets(0), int64_t{12});
    for (const int64_t h : {1, 3}) {
      const int64_t n_min = skillMinTargets(h);
      std::vector<double> model, anchor;
      for (int64_t t = 0; t < n_min; ++t) {
        model.push_back(0.1 + 0.01 * static_cast<double>(t % 3));
        anchor.push_back(5.0 + 0.3 * static_cast<double>(t % 4));
      }
      const auto decided = pairedSkillInterval(model, anchor, 1, h);
      QCOMPARE(decided.verdict(), SkillVerdict::Beats);
      model.pop_back();
      anchor.pop_back();
      const auto too_few = pairedSkillInterval(model, anchor, 1, h);
      QVERIFY(too_few.valid());
      QVERIFY(too_few.dm_p < kSkillLevel);  // DM would reject: still no word
      QCOMPARE(too_few.verdict(), SkillVerdict::TooFew);
      QVERIFY(too_few.text().find("too few test targets to decide") != std::string::npos);
    }
    QCOMPARE(SkillInterval{}.verdict(), SkillVerdict::TooFew);
    QCOMPARE(std::string(skillVerdictName(SkillVerdict::TooFew)),
             std::string("too few test targets to decide"));
    QCOMPARE(parseSkillVerdict("too few test targets to decide"), SkillVerdict::TooFew);
    QCOMPARE(parseSkillVerdict("ties"), SkillVerdict::Ties);
  }

  // The rule's calibration: two forecasters of the same quality (independent AR(1) errors of the
  // same scale, coefficient 0.5, and 0.8 for errors a misfit leaves strongly correlated), 400
  // draws from fixed seeds at n = 36 (a monthly series' test part) and n = 300. DM at 5 % may
  // say "beats" (or "loses") in at most 10 % of the draws (nominal 2.5 %, one side of a two-sided
  // 5 % test). The bootstrap interval beside it, which does not give the word, has its coverage
  // of the true skill 0 printed.
  void equalForecastersRarelyBeat() {
    constexpr int kDraws = 400;
    for (const double phi : {0.5, 0.8})
      for (const size_t n : {size_t{36}, size_t{300}}) {
        int beats = 0, loses = 0, covered = 0;
        for (uint64_t draw = 1; draw <= kDraws; ++draw) {
          std::mt19937_64 rng(1000 * n + draw);
          const auto anchor = squaredErrors(n, 1.0, rng, phi);
          const auto model = squaredErrors(n, 1.0, rng, phi);
          const auto ci =
              pairedSkillInterval(model, anchor, skillBlockLength(1, static_cast<int64_t>(n)), 1);
          QVERIFY(ci.valid());
          beats += ci.verdict() == SkillVerdict::Beats;
          loses += ci.verdict() == SkillVerdict::Loses;
          covered += ci.low < 0 && ci.high > 0;
        }
        qInfo(
            "equal forecasters, AR(1) %.1f, n = %zu, %d draws: DM at 5 %% says beats in %d (%.1f "
            "%%), loses in %d (%.1f %%); the bootstrap interval (block %lld) covers 0 in %d (%.1f "
            "%%)",
            phi, n, kDraws, beats, 100.0 * beats / kDraws, loses, 100.0 * loses / kDraws,
            static_cast<long long>(skillBlockLength(1, static_cast<int64_t>(n))), covered,
            100.0 * covered / kDraws);
        QVERIFY2(beats <= kDraws / 10,
                 qPrintable(QString("n = %1: %2 false beats").arg(n).arg(beats)));
        QVERIFY2(loses <= kDraws / 10,
                 qPrintable(QString("n = %1: %2 false loses").arg(n).arg(loses)));
      }
  }

  // The test can fail: a model 30 % better on 300 targets is called "beats" far more often than
  // the 10 % the equal pair is allowed (the rule has power, so a bound of 10 % means something).
  void aBetterForecasterIsFound() {
    int beats = 0;
    for (uint64_t draw = 1; draw <= 100; ++draw) {
      std::mt19937_64 rng(77 + draw);
      const auto anchor = squaredErrors(300, 1.0, rng);
      const auto model = squaredErrors(300, std::sqrt(0.7), rng);
      beats += pairedSkillInterval(model, anchor, 7, 1).verdict() == SkillVerdict::Beats;
    }
    qInfo("a model with 0.7 of the error variance, n = 300, 100 draws: beats in %d", beats);
    QVERIFY(beats >= 50);
  }

  // One block spanning every target: each resample is the series itself.
  void oneBlockGivesAPointInterval() {
    const std::vector<double> m{1, 2, 3, 4}, a{2, 2, 4, 4};
    const auto ci = pairedSkillInterval(m, a, 4, 1);
    QCOMPARE(ci.skill, 1 - 10.0 / 12.0);
    QCOMPARE(ci.low, ci.skill);
    QCOMPARE(ci.high, ci.skill);
    const auto again = pairedSkillInterval(m, a, 2, 1);
    QCOMPARE(pairedSkillInterval(m, a, 2, 1).low, again.low);  // deterministic
  }

  void invalidInputGivesNoInterval() {
    QVERIFY(!pairedSkillInterval({1, 2}, {1}, 1, 1).valid());
    QVERIFY(!pairedSkillInterval({1}, {1}, 1, 1).valid());
    QVERIFY(!pairedSkillInterval({1, NAN}, {1, 2}, 1, 1).valid());
    QVERIFY(!pairedSkillInterval({1, 2}, {0, 0}, 1, 1).valid());
    QCOMPARE(SkillInterval{}.verdict(), SkillVerdict::TooFew);
    // The headline without the best reference's per-target errors (an old bundle): none.
    std::vector<ReferenceScore> refs{{"persistence", "persistence", 1.0, 1.0}};
    QVERIFY(!skillIntervalVersusBest({1, 2, 3}, refs, 1).valid());
    refs[0].test_errors = {2, 2, 4};
    QVERIFY(skillIntervalVersusBest({1, 2, 3}, refs, 1).valid());
  }

  // The HLN-corrected DM statistic against a literal float64 computation of the header's
  // formula (Bartlett-weighted autocovariances up to L lags, HLN's factor), at horizons 1 and 3;
  // and its two-sided p from the t distribution with n − 1 degrees of freedom, which at
  // t = 2.262157 with 9 degrees of freedom is 0.05 (a t table).
  void dieboldMarianoIsTheHeadersFormula() {
    QCOMPARE(dieboldMarianoLags(1, 36), int64_t{3});
    QCOMPARE(dieboldMarianoLags(1, 300), int64_t{5});
    QCOMPARE(dieboldMarianoLags(12, 36), int64_t{11});
    QCOMPARE(dieboldMarianoLags(1, 2), int64_t{1});
    std::mt19937_64 rng(11);
    const auto anchor = squaredErrors(40, 1.0, rng);
    const auto model = squaredErrors(40, 0.9, rng);
    for (const int64_t h : {1, 3}) {
      const double n = 40;
      std::vector<double> d;
      double mean = 0;
      for (size_t t = 0; t < 40; ++t) d.push_back(model[t] - anchor[t]), mean += d.back() / n;
      const int64_t lags = 3;  // ⌊4 (0.4)^(2/9)⌋ = 3, at least h − 1 at both horizons
      QCOMPARE(dieboldMarianoLags(h, 40), lags);
      double v = 0;
      for (int64_t k = -lags; k <= lags; ++k) {
        double g = 0;
        const int64_t a = k < 0 ? -k : k;
        for (int64_t t = a; t < 40; ++t)
          g += (d[static_cast<size_t>(t)] - mean) * (d[static_cast<size_t>(t - a)] - mean);
        v += (1.0 - static_cast<double>(a) / static_cast<double>(lags + 1)) * g / n;
      }
      const double hd = static_cast<double>(h);
      const double expected =
          mean / std::sqrt(v / n) * std::sqrt((n + 1 - 2 * hd + hd * (hd - 1) / n) / n);
      const auto ci = pairedSkillInterval(model, anchor, 1, h);
      QVERIFY2(std::fabs(ci.dm_statistic - expected) < 1e-12,
               qPrintable(QString("%1 vs %2").arg(ci.dm_statistic).arg(expected)));
      QVERIFY(std::fabs(ci.dm_p - 2 * forecast::tUpperTail(std::fabs(expected), n - 1)) < 1e-12);
    }
    QVERIFY(std::fabs(2 * forecast::tUpperTail(2.262157, 9) - 0.05) < 1e-6);
  }

  // MASE's denominator: mean |z_t − z_{t−P}| over the train part, per column, by a literal loop.
  void maseScaleIsTheInSampleSeasonalNaiveMae() {
    // two columns, rows 0..7, train part rows 0..5, P = 2
    const std::vector<double> v{1, 10, 2, 10, 4, 13, 3, 10, 5, 16, 9, 10, 100, 100, 100, 100};
    const auto s = maseScales(v, 2, 6, 2);
    QCOMPARE(s.size(), size_t{2});
    QCOMPARE(s[0], (3.0 + 1.0 + 1.0 + 6.0) / 4.0);  // |4−1| |3−2| |5−4| |9−3|
    QCOMPARE(s[1], (3.0 + 0.0 + 3.0 + 0.0) / 4.0);
    // A constant column gets 1; a train part shorter than P + 1 rows falls back to P = 1.
    const auto c = maseScales({2, 2, 2, 2}, 1, 4, 1);
    QCOMPARE(c[0], 1.0);
    const auto short_train = maseScales({1, 3, 6, 10}, 1, 3, 12);
    QCOMPARE(short_train[0], (2.0 + 3.0) / 2.0);
  }

  // errors.json: the references and every run's per-target errors come back; a bundle without
  // the file (written before it existed) still opens, without them.
  void bundleKeepsPerTargetErrors() {
    QTemporaryDir dir;
    SessionBundle b;
    b.config = defaultRunConfig();
    b.models = {"gru"};
    SessionRun run;
    run.id = 3;
    run.model = "gru";
    run.state = RunState::Finished;
    run.test_errors = {0.5, 0.25, NAN};
    b.runs.push_back(run);
    ReferenceScore r("persistence", "persistence", 0.4, 0.6);
    r.test_mase = 1.25;
    r.test_errors = {0.7, 0.5, 0.6};
    b.references = {r};
    b.horizon = 2;
    b.season = 12;
    const auto path = saveSession(b, (dir.path() + "/s").toStdString());
    const auto back = loadSession(path);
    QCOMPARE(back.horizon, int64_t{2});
    QCOMPARE(back.season, int64_t{12});
    QCOMPARE(back.references.size(), size_t{1});
    QCOMPARE(back.references[0].name, std::string("persistence"));
    QCOMPARE(back.references[0].test_mase, 1.25);
    QCOMPARE(back.references[0].test_errors, r.test_errors);
    QCOMPARE(back.runs.size(), size_t{1});
    QCOMPARE(back.runs[0].test_errors.size(), size_t{3});
    QCOMPARE(back.runs[0].test_errors[1], 0.25);
    QVERIFY(std::isnan(back.runs[0].test_errors[2]));
    std::filesystem::remove(std::filesystem::path(path) / "errors.json");
    const auto old = loadSession(path);
    QVERIFY(old.references.empty());
    QVERIFY(old.runs[0].test_errors.empty());
  }

  // A bundle's runs get their word from errors.json when it opens: a run tested on fewer than
  // N_min targets reopens as "too few test targets to decide", not as "ties".
  void bundleWithAShortTestPartHasNoWord() {
    QTemporaryDir dir;
    SessionBundle b;
    b.config = defaultRunConfig();
    b.models = {"gru"};
    SessionRun run;
    run.id = 1;
    run.model = "gru";
    run.state = RunState::Finished;
    run.test_errors = {0.1, 0.2, 0.1, 0.2, 0.1};
    b.runs.push_back(run);
    ReferenceScore r("persistence", "persistence", 0.4, 0.6);
    r.test_errors = {5, 6, 5, 6, 5};
    b.references = {r};
    b.horizon = 1;
    const auto back = loadSession(saveSession(b, (dir.path() + "/s").toStdString()));
    const auto ci =
        skillIntervalVersusBest(back.runs[0].test_errors, back.references, back.horizon);
    QVERIFY(ci.skill > 0.9);
    QCOMPARE(ci.verdict(), SkillVerdict::TooFew);
  }

  // Docs from data: the report's block in docs/REAL_SERIES.md is what the renderer makes of
  // docs/data/real_series_report.json (the run's own JSON); an edited number fails here.
  void docsReportBlockMatchesItsData() {
    const std::string root = RSALAB_SOURCE_ROOT;
    const std::string json = readTextFile(root + "/docs/data/real_series_report.json", 16 << 20);
    const std::string doc = readTextFile(root + "/docs/REAL_SERIES.md", 16 << 20);
    const std::string block =
        markedBlockIn(doc, kReportBlockBegin, kReportBlockEnd, "docs/REAL_SERIES.md");
    QCOMPARE(QString::fromStdString(block), QString::fromStdString(realSeriesReportBlock(json)));
    // The check can fail: one changed digit in the data, and the block no longer matches.
    std::string edited = json;
    const auto at = edited.find("\"test\": 0.");
    QVERIFY(at != std::string::npos);
    edited[at + 10] = edited[at + 10] == '9' ? '8' : '9';
    QVERIFY(realSeriesReportBlock(edited) != block);
  }
};

RSALAB_REGISTER_TEST(TestSkillInterval, QTEST_GUILESS_MAIN)
#include "test_skill_interval.moc"
