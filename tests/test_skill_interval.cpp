// SPDX-License-Identifier: GPL-3.0-or-later
// The skill's interval and its words (engine/core/forecast/skill_interval.h) on constructed errors,
// the Diebold–Mariano statistic against the paired t statistic it equals at horizon 1, MASE's
// denominator against a literal loop, and errors.json in a session bundle (old bundles open).
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/forecast/skill_interval.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/marked_block.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/verdicts/real_series_report.h"
#include "support/test_registry.h"

using namespace rsalab;

namespace {

// n squared errors of a forecaster whose errors are AR(1) with coefficient 0.5 and scale `sd`.
std::vector<double> squaredErrors(size_t n, double sd, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, sd);
  std::vector<double> out;
  double e = 0;
  for (size_t t = 0; t < n; ++t) {
    e = 0.5 * e + noise(rng);
    out.push_back(e * e);
  }
  return out;
}

}  // namespace

class TestSkillInterval : public QObject {
  Q_OBJECT
 private slots:
  // A model with half the reference's error scale on 36 targets (a bundled series' test part): the
  // whole interval lies above 0, DM rejects equal accuracy, and the word is "beats".
  void clearlyBetterModelExcludesZero() {
    std::mt19937_64 rng(7);
    const auto anchor = squaredErrors(36, 1.0, rng);
    auto model = squaredErrors(36, 0.5, rng);
    const auto ci = pairedSkillInterval(model, anchor, skillBlockLength(1, 12), 1);
    QVERIFY(ci.valid());
    QCOMPARE(ci.block, int64_t{12});
    QCOMPARE(ci.resamples, kSkillResamples);
    QVERIFY2(ci.low > 0, qPrintable(QString::fromStdString(ci.text())));
    QVERIFY(ci.low <= ci.skill && ci.skill <= ci.high);
    QVERIFY(ci.dm_p < 0.05);
    QCOMPARE(ci.verdict(), SkillVerdict::Beats);
    // Swapped, the reference is the better one: the model loses.
    const auto swapped = pairedSkillInterval(anchor, model, 12, 1);
    QVERIFY(swapped.high < 0);
    QCOMPARE(swapped.verdict(), SkillVerdict::Loses);
  }

  // Two forecasters of the same quality, 50 draws each: how often the 95 % interval covers 0,
  // and the word is then "ties" even where the point skill is above 0 (what a mean over seeds
  // called a win). On 300 targets it covers about as often as it says (≥ 80 % asked); on 36
  // targets in blocks of 12 (a monthly series' test part) the percentile interval of these
  // heavy-tailed squared errors is too narrow — 78 % in a 300-draw simulation — which the docs
  // say: there a "beats" is weaker evidence than its 95 % suggests.
  void equalModelsCoverZero() {
    auto coverage = [](size_t n, int64_t block, int* positive_ties) {
      int covered = 0;
      for (uint64_t seed = 1; seed <= 50; ++seed) {
        std::mt19937_64 rng(seed);
        const auto anchor = squaredErrors(n, 1.0, rng);
        const auto model = squaredErrors(n, 1.0, rng);
        const auto ci = pairedSkillInterval(model, anchor, block, 1);
        const bool covers = ci.valid() && ci.low < 0 && ci.high > 0;
        if (ci.valid() && (ci.verdict() == SkillVerdict::Ties) != covers) return -1;
        covered += covers;
        *positive_ties += covers && ci.skill > 0;
      }
      return covered;
    };
    int positive_ties = 0;
    const int long_series = coverage(300, 12, &positive_ties);
    const int short_series = coverage(36, 12, &positive_ties);
    qInfo(
        "equal forecasters, 50 draws: the interval covers 0 in %d (300 targets) and %d "
        "(36 targets, blocks of 12)",
        long_series, short_series);
    QVERIFY(long_series >= 40);
    QVERIFY(short_series >= 30);
    QVERIFY(positive_ties > 0);  // a point skill above 0, and still "ties"
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
    QCOMPARE(SkillInterval{}.verdict(), SkillVerdict::Ties);
    // The headline without the best reference's per-target errors (an old bundle): none.
    std::vector<ReferenceScore> refs{{"persistence", "persistence", 1.0, 1.0}};
    QVERIFY(!skillIntervalVersusBest({1, 2, 3}, refs, 1, 1).valid());
    refs[0].test_errors = {2, 2, 4};
    QVERIFY(skillIntervalVersusBest({1, 2, 3}, refs, 1, 1).valid());
  }

  // At horizon 1 the HLN-corrected DM statistic is the paired t statistic of the differences,
  // d̄ / (s / √n) with s the n − 1 standard deviation; at t = 2.262157 with 9 degrees of freedom
  // the two-sided p is 0.05 (a t table).
  void dieboldMarianoIsThePairedTAtHorizonOne() {
    const std::vector<double> base{0.3, -0.2, 0.5, -0.4, 0.1, 0.0, -0.3, 0.2, 0.4, -0.6};
    double mean = 0, ss = 0;
    for (double x : base) mean += x;
    mean /= 10;
    for (double x : base) ss += (x - mean) * (x - mean);
    const double s = std::sqrt(ss / 9);
    const double shift = 2.262157 * s / std::sqrt(10.0) - mean;
    std::vector<double> model, anchor;
    for (double x : base) {
      anchor.push_back(5.0);
      model.push_back(5.0 + x + shift);  // d = x + shift, mean d̄ = t · s / √n
    }
    const auto ci = pairedSkillInterval(model, anchor, 1, 1);
    QVERIFY(std::fabs(ci.dm_statistic - 2.262157) < 1e-9);
    QVERIFY2(std::fabs(ci.dm_p - 0.05) < 1e-5, qPrintable(QString::number(ci.dm_p, 'g', 8)));
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
