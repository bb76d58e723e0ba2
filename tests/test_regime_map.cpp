// SPDX-License-Identifier: GPL-3.0-or-later
// The regime map's aggregation and winner rule (core library only: no LibTorch): means and sample
// sds per (model, axis value, N), a winner only where its mean beats the runner-up by more than
// the two sds (a tie where mean ± sd overlap, or with a single seed), the shared colour range.
#include <QtTest>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "engine/core/io/inspection_io.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/preset_record.h"
#include "engine/core/verdicts/preset_runner.h"
#include "engine/core/verdicts/presets.h"
#include "engine/core/verdicts/regime_map.h"
#include "support/test_registry.h"

using namespace rsalab;

class TestRegimeMap : public QObject {
  Q_OBJECT
 private slots:
  void aggregatesMeanAndSampleSd() {
    std::vector<RegimePoint> p = {{"rnn", 0.5, 64, 0, 1.0, 0},
                                  {"rnn", 0.5, 64, 1, 2.0, 1},
                                  {"rnn", 0.5, 64, 2, 3.0, 2},
                                  {"rnn", 0.5, 64, 3, NAN, 3}};  // diverged: counted out
    const RegimeMap map = buildRegimeMap(p);
    const RegimeCell* c = map.cell("rnn", 0.5, 64);
    QVERIFY(c);
    QCOMPARE(c->seeds, int64_t{3});
    QCOMPARE(c->mean, 2.0);
    QCOMPARE(c->sd, 1.0);  // sqrt(((-1)² + 0 + 1²) / 2)
    QCOMPARE(c->runs.size(), size_t{4});
    QVERIFY(!map.cell("rnn", 0.25, 64));
    QVERIFY(map.cell("rnn", 0.5 + 1e-12, 64));  // parsed axis values match within tolerance
  }

  // The winner needs the 95 % Student-t interval of the paired difference (same seed, same data)
  // above 0: checked against the interval computed here by hand.
  void winnerNeedsAPairedIntervalAbove0() {
    auto cell = [](const char* model, std::vector<double> v) {
      RegimeCell c;
      c.model = model;
      c.size = 16;
      c.seeds = static_cast<int64_t>(v.size());
      c.mean = 0;
      for (size_t s = 0; s < v.size(); ++s) {
        c.by_seed.push_back({s, v[s]});
        c.mean += v[s] / static_cast<double>(v.size());
      }
      return c;
    };
    RegimeCell a = cell("rnn", {1.0, 1.1, 0.9});
    RegimeCell b = cell("rsa", {1.5, 1.6, 1.45});  // differences 0.5, 0.5, 0.55
    RegimeWinner w = regimeWinner({&b, &a});
    QCOMPARE(w.verdict, RegimeVerdict::Winner);
    QCOMPARE(w.best, std::string("rnn"));
    QCOMPARE(w.runner_up, std::string("rsa"));
    QCOMPARE(w.difference.pairs, int64_t{3});
    const double mean = (0.5 + 0.5 + 0.55) / 3;
    const double sd = std::sqrt((2 * std::pow(0.5 - mean, 2) + std::pow(0.55 - mean, 2)) / 2);
    const double half = 4.302652729911275 * sd / std::sqrt(3.0);  // t(0.975, 2 df)
    QVERIFY(std::abs(w.difference.mean - mean) < 1e-12);
    QVERIFY(std::abs(w.difference.lo - (mean - half)) < 1e-9);
    QVERIFY(std::abs(w.difference.hi - (mean + half)) < 1e-9);
    // The same means with noisy seeds (differences 0.5, −0.15, 0.4): the interval covers 0.
    b = cell("rsa", {1.5, 0.95, 1.3});
    w = regimeWinner({&a, &b});
    QCOMPARE(w.verdict, RegimeVerdict::Tie);
    QVERIFY(w.judged && w.difference.lo < 0 && w.difference.hi > 0);
    QCOMPARE(w.best, std::string("rnn"));
    QVERIFY(regimeIntervalText(w.difference).find("over 3 seeds") != std::string::npos);
    // Seeds that do not pair (rnn ran seeds 0-2, rsa seed 5 only): no interval, never a winner.
    RegimeCell lone = cell("rsa", {9.0});
    lone.by_seed = {{5, 9.0}};
    w = regimeWinner({&a, &lone});
    QCOMPARE(w.verdict, RegimeVerdict::Tie);
    QVERIFY(!w.judged);
    QCOMPARE(regimeWinner({&a}).verdict, RegimeVerdict::Pending);
  }

  void winnersPerCellAndSharedRange() {
    std::vector<RegimePoint> p;
    int64_t run = 0;
    for (uint64_t s = 0; s < 3; ++s) {
      const double jitter = 0.01 * static_cast<double>(s);
      p.push_back({"rnn", 1.0, 16, s, 0.10 + jitter, run++});
      p.push_back({"transformer", 1.0, 16, s, 0.50 + jitter, run++});
      // Close and inconsistent at a = 0 (differences 0.01, −0.03, 0.03): a tie.
      p.push_back({"rnn", 0.0, 16, s, 0.80 + jitter, run++});
      p.push_back(
          {"transformer", 0.0, 16, s, 0.81 + std::vector<double>{0, -0.03, 0.04}[s], run++});
    }
    const RegimeMap map = buildRegimeMap(p);
    QCOMPARE(map.axis_values, (std::vector<double>{0.0, 1.0}));
    QCOMPARE(map.winners.size(), size_t{2});
    QCOMPARE(map.winner(1.0, 16)->verdict, RegimeVerdict::Winner);
    QCOMPARE(map.winner(1.0, 16)->best, std::string("rnn"));
    QCOMPARE(map.winner(0.0, 16)->verdict, RegimeVerdict::Tie);
    const auto [lo, hi] = map.meanRange();
    QVERIFY(std::abs(lo - 0.11) < 1e-12);
    QVERIFY(std::abs(hi - (0.81 + 0.78 + 0.85) / 3) < 1e-12);
    QCOMPARE(std::string(regimeVerdictName(RegimeVerdict::Tie)), std::string("tie"));
  }

  void sweepPlanWithATaskAxis() {
    SweepOptions o;
    o.base = defaultSweepConfig();
    o.base.task.name = "mix";
    o.models = {"rnn", "rsa"};
    o.sizes = {16, 64};
    o.seeds = 2;
    o.axis = parseSweepAxis("mix.share=0,0.5,1");
    QCOMPARE(o.axis.name, std::string("mix_share"));
    const SweepPlan plan = makeSweepPlan(o);
    QCOMPARE(plan.cellCount(), int64_t{2 * 3 * 2 * 2});
    // seeds × sizes × axis × models, models fastest
    QCOMPARE(plan.cells[1].model, std::string("rsa"));
    QCOMPARE(plan.cells[2].axis_value, 0.5);
    QCOMPARE(plan.cells[6].size, int64_t{64});
    QCOMPARE(cellConfig(plan, plan.cells[5]).task.mix_share, 1.0);
    const SweepPlan back = sweepPlanFromJson(sweepPlanJson(plan));
    QCOMPARE(back.hash, plan.hash);
    QCOMPARE(back.axis.values, plan.axis.values);
    QCOMPARE(back.cells[5].axis_value, 1.0);
    SweepOptions plain = o;  // without the axis the plan (and its hash) is the old one
    plain.axis = {};
    QVERIFY(makeSweepPlan(plain).hash != plan.hash);
    QVERIFY(sweepPlanJson(makeSweepPlan(plain)).find("axis_value") == std::string::npos);
    for (const char* bad :
         {"mix.share", "mix.share=", "mix.share=0,x", "mix.share=1,1", "colour=1"}) {
      bool threw = false;
      try {
        parseSweepAxis(bad);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      QVERIFY2(threw, bad);
    }
  }

  void rowsFitsAndFilesCarryTheAxis() {
    SweepResult r;
    r.axis = {"mix_share", {0, 1}};
    int64_t run = 0;
    for (double a : {0.0, 1.0}) {
      for (int64_t n : {16, 64, 256}) {
        SweepRow row;
        row.run = run++;
        row.model = "rnn";
        row.size = n;
        row.axis_value = a;
        row.steps = 10;
        row.bayes_floor = 0.01;
        // excess = 2·N^(−0.5) at a = 0 and N^(−1) at a = 1
        row.test_loss = 0.01 + (a == 0 ? 2 * std::pow(n, -0.5) : std::pow(n, -1.0));
        r.rows.push_back(row);
      }
    }
    fitSweep(r, {"rnn"});
    QCOMPARE(r.excess_fits.size(), size_t{2});
    QCOMPARE(r.excess_fits[0].axis_value, 0.0);
    QVERIFY(std::abs(r.excess_fits[0].b - 0.5) < 1e-6);
    QVERIFY(std::abs(r.excess_fits[1].b - 1.0) < 1e-6);
    const std::string csv = sweepCsv(r);
    QVERIFY(csv.rfind("model,size,seed,mix_share,test_loss", 0) == 0);
    const SweepResult back = sweepResultFromJson(sweepJson(r));
    QCOMPARE(back.axis.name, std::string("mix_share"));
    QCOMPARE(back.rows[3].axis_value, 1.0);
    QCOMPARE(back.excess_fits[1].axis_value, 1.0);
    const auto points = regimePoints(back.rows);
    QCOMPARE(points.size(), size_t{6});
    QVERIFY(std::abs(points[0].excess - 2 * std::pow(16, -0.5)) < 1e-6);
  }

  // The seed is the unit of a power law's interval. Three seeds whose exponents differ (0.3, 0.5,
  // 0.8: seed-level spread), each an exact power law over 6 sizes: pooled over the 18 (N, seed)
  // points the fit counts 16 degrees of freedom and gives a narrow interval (pseudo-replication);
  // per seed the t interval over the 3 seeds' b (2 degrees of freedom) is b̄ ± 4.303·sd/√3, by
  // hand, several times wider.
  void perSeedIntervalIsNotThePooledOne() {
    SweepResult r;
    const double b_of_seed[] = {0.3, 0.5, 0.8};
    std::vector<double> n, loss;
    for (uint64_t seed = 0; seed < 3; ++seed)
      for (int64_t size : {16, 32, 64, 128, 256, 512}) {
        SweepRow row;
        row.run = static_cast<int64_t>(r.rows.size());
        row.model = "rnn";
        row.size = size;
        row.seed = seed;
        row.steps = 10;
        row.bayes_floor = 0.05;
        // The seeds' lines cross at N0 = √(16·512), the middle of the sizes on a log axis.
        row.test_loss = 0.05 + 3.0 * std::pow(static_cast<double>(size) / std::sqrt(16.0 * 512),
                                              -b_of_seed[seed]);
        r.rows.push_back(row);
        n.push_back(static_cast<double>(size));
        loss.push_back(row.excess());
      }
    fitSweep(r, {"rnn"});
    QCOMPARE(r.excess_fits.size(), size_t{1});
    const PowerLawFit& per_seed = r.excess_fits[0];
    const PowerLawFit pooled = fitPowerLaw(n, loss);
    const double mean = (0.3 + 0.5 + 0.8) / 3;
    const double sd = std::sqrt(
        ((0.3 - mean) * (0.3 - mean) + (0.5 - mean) * (0.5 - mean) + (0.8 - mean) * (0.8 - mean)) /
        2);
    const double half = 4.303 * sd / std::sqrt(3.0);
    qInfo("pooled b = %.4f [%.4f, %.4f]; per seed b = %.4f [%.4f, %.4f]", pooled.b, pooled.b_low,
          pooled.b_high, per_seed.b, per_seed.b_low, per_seed.b_high);
    QCOMPARE(per_seed.seeds(), int64_t{3});
    QVERIFY(std::abs(per_seed.b - mean) < 1e-9);
    QVERIFY(std::abs(per_seed.b_low - (mean - half)) < 1e-9);
    QVERIFY(std::abs(per_seed.b_high - (mean + half)) < 1e-9);
    for (size_t k = 0; k < 3; ++k) {
      QCOMPARE(per_seed.seed_ids[k], uint64_t(k));
      QVERIFY(std::abs(per_seed.seed_b[k] - b_of_seed[k]) < 1e-9);
    }
    // The same mean slope, but the pooled interval is several times narrower.
    QVERIFY(std::abs(pooled.b - mean) < 1e-9);
    QVERIFY((per_seed.b_high - per_seed.b_low) > 3 * (pooled.b_high - pooled.b_low));
    // The raw loss is fitted per seed too, and both read back with their seeds.
    QCOMPARE(r.fits.size(), size_t{1});
    QCOMPARE(r.fits[0].seeds(), int64_t{3});
    const SweepResult back = sweepResultFromJson(sweepJson(r));
    QCOMPARE(back.excess_fits[0].seed_ids, per_seed.seed_ids);
    QVERIFY(std::abs(back.excess_fits[0].seed_b[2] - 0.8) < 1e-9);
    // One seed: a b but no interval (NaN, written as null and read back).
    const PowerLawFit one = fitPowerLawPerSeed({{16, 0, 1.0}, {64, 0, 0.5}, {256, 0, 0.25}});
    QCOMPARE(one.seeds(), int64_t{1});
    QVERIFY(std::abs(one.b - 0.5) < 1e-12 && std::isnan(one.b_low) && std::isnan(one.b_high));
    // A seed with 2 sizes is left out; fewer than 3 sizes in the sweep: no fit, and a note.
    const PowerLawFit short_seed = fitPowerLawPerSeed(
        {{16, 0, 1.0}, {64, 0, 0.5}, {16, 1, 1.0}, {64, 1, 0.5}, {256, 1, 0.25}});
    QCOMPARE(short_seed.seeds(), int64_t{1});
    QCOMPARE(short_seed.seed_ids[0], uint64_t{1});
    SweepResult two;
    for (const auto& row : r.rows)
      if (row.size <= 32) two.rows.push_back(row);
    fitSweep(two, {"rnn"});
    QVERIFY(two.fits.empty() && two.excess_fits.empty());
    QCOMPARE(two.notes.size(), size_t{1});
    QVERIFY2(
        two.notes[0].find("needs 3 training-set sizes or more; rnn has 2") != std::string::npos,
        two.notes[0].c_str());
  }

  // A preset's docs block is rendered from its record alone: the regime table with its winner
  // marked, RSA's ratio to each cell's best other model at the smallest N, the preset's verdicts;
  // the record reads back to the same block, a changed loss changes it, and a record of an unknown
  // preset is refused with its name.
  void presetRecordRendersItsDocsBlock() {
    PresetRecord record;
    record.preset = "figure1";
    record.measured = "2026-11-27 on 2 cores";
    record.command = "rsalab-cli sweep --preset figure1 --out runs/figure1";
    record.sweep.axis = {"mix_share", {0, 1}};
    record.sweep.wall_seconds = 195;
    int64_t run = 0;
    for (double a : {0.0, 1.0})
      for (int64_t n : {16, 64})
        for (uint64_t seed = 0; seed < 3; ++seed)
          for (const char* model : {"rnn", "rsa"}) {
            SweepRow row;
            row.run = run++;
            row.model = model;
            row.size = n;
            row.seed = seed;
            row.axis_value = a;
            row.steps = 10;
            row.bayes_floor = 0;
            // rsa 4.9x the rnn's excess at a = 1, N = 16, and 0.01 below it elsewhere (+ seed
            // jitter)
            const double rnn = a == 1 && n == 16 ? 0.04 : 0.21;
            row.test_loss = (std::string(model) == "rsa" ? 0.2 : rnn) + 0.001 * seed;
            record.sweep.rows.push_back(row);
          }
    const std::string block = presetRecordBlock(record);
    QVERIFY2(block.find("in 3 min 15 s") != std::string::npos, block.c_str());
    QVERIFY2(block.find("| 16 | 0.211 | **0.041** | **0.201** | 0.201 |") != std::string::npos,
             block.c_str());
    QVERIFY2(block.find("| 16 | 0.95× (rnn) | 4.9× (rnn) |") != std::string::npos, block.c_str());
    QVERIFY2(block.find("rnn wins outright in 1, rsa wins outright in 3; 0 are ties") !=
                 std::string::npos,
             block.c_str());
    // The record's task (the default seasonal series, process rem) is RSA's home ground.
    bool grounded = false;
    for (const char* outcome : {"holds", "inconclusive", "undecided", "does not hold"})
      grounded = grounded || block.find("\n- " + std::string(outcome) +
                                        " on RSA's home ground (rem): ") != std::string::npos;
    QVERIFY2(grounded, block.c_str());
    const PresetRecord back = presetRecordFromJson(presetRecordJson(record), "record");
    QCOMPARE(presetRecordBlock(back), block);
    const std::string docs = "intro\n" + block + "outro\n";
    QCOMPARE(presetBlockIn(docs, back, "docs"), block);
    PresetRecord changed = back;
    changed.sweep.rows[1].test_loss += 0.1;
    QVERIFY(presetRecordBlock(changed) != block);
    QCOMPARE(replacePresetBlock(docs, changed, "docs"),
             "intro\n" + presetRecordBlock(changed) + "outro\n");
    auto json = nlohmann::json::parse(presetRecordJson(record));
    json["preset"] = "no-such-preset";
    bool refused = false;
    try {
      presetRecordFromJson(json.dump(), "bad record");
    } catch (const std::runtime_error& e) {
      refused = std::string(e.what()).find("bad record: ") == 0;
    }
    QVERIFY(refused);
  }

  // A single-run preset's record: its runs' verdicts by seed, counted per outcome; the runs' files
  // read back, and a run record of a sweep preset (or a sweep record of a run preset) is refused.
  void presetRecordOfRunsCountsOutcomes() {
    PresetRecord record;
    record.preset = "fixed-point";
    record.measured = "2026-11-27 on 2 cores";
    record.command = "rsalab-cli train --preset fixed-point --seed S";
    for (uint64_t seed = 0; seed < 3; ++seed) {
      PresetRunVerdicts run{"fixed-point", seed, 600, 15.5, {}, {}};
      run.lines.push_back(seed == 1 ? "inconclusive: the claim — a | b" : "holds: the claim — c");
      record.runs.push_back(presetRunVerdictsFromJson(presetRunVerdictsJson(run), "run"));
    }
    record.runs[0].measures = {{"converged_share", 1.0}, {"log_ratio", -0.5}};
    record.runs[1].measures = {{"converged_share", 1.0}, {"log_ratio", -0.6}};
    record.runs[2].measures = {{"converged_share", 1.0}, {"log_ratio", -0.55}};
    const std::string block = presetRecordBlock(record);
    QVERIFY2(block.find("| 1 | 600 | 15.5 | inconclusive | a \\| b |") != std::string::npos,
             block.c_str());
    // The rule over seeds reads the runs' measures (kept in the record).
    QVERIFY2(block.find("Over the seeds: holds: ") != std::string::npos, block.c_str());
    QVERIFY2(block.find("converged on most samples in 3 of 3 seeds") != std::string::npos,
             block.c_str());
    QVERIFY2(block.find("Claim: the claim\n") != std::string::npos, block.c_str());
    QVERIFY2(
        block.find("holds for 2 of 3 seeds, inconclusive for 1 of 3 seeds.") != std::string::npos,
        block.c_str());
    QCOMPARE(presetRecordBlock(presetRecordFromJson(presetRecordJson(record), "r")), block);
    auto json = nlohmann::json::parse(presetRecordJson(record));
    json["preset"] = "figure1";  // a sweep preset: needs "sweep", not "runs"
    bool refused = false;
    try {
      presetRecordFromJson(json.dump(), "r");
    } catch (const std::runtime_error& e) {
      refused = std::string(e.what()).find("is a sweep") != std::string::npos;
    }
    QVERIFY(refused);
  }

  // The sample-efficiency claim is a sign test over independent seeds, each summarised by its
  // mean log-loss difference across N: each outcome from made-up rows, the case the old rule
  // (a sign test over the 15 (N, seed) pairs) called "holds" with 3 seeds, and the seed as unit.
  void sampleEfficiencyVerdictHasEveryOutcome() {
    QCOMPARE(signTestPValue(0, 0), 1.0);
    QVERIFY(std::abs(signTestPValue(14, 15) - 2 * 16.0 / 32768) < 1e-12);  // (1 + 15) / 2^15 · 2
    QCOMPARE(signTestPValue(3, 6), 1.0);
    QVERIFY(std::abs(signTestPValue(6, 6) - 2.0 / 64) < 1e-15);  // < 0.05: 6 seeds can decide
    QVERIFY(signTestPValue(5, 5) > kClaimAlpha);                 // 5 cannot
    QCOMPARE(presetOrThrow("rsa-sample-efficiency").sweep_seeds, int64_t{kSignTestMinSeeds});
    auto rows = [](uint64_t seeds, const std::function<double(int64_t, uint64_t)>& rsa_factor) {
      std::vector<SweepRow> out;
      for (int64_t n : {16, 64, 256, 1024, 4096})
        for (uint64_t seed = 0; seed < seeds; ++seed) {
          SweepRow t, r;
          t.model = "transformer";
          r.model = "rsa";
          t.size = r.size = n;
          t.seed = r.seed = seed;
          t.steps = r.steps = 10;
          t.test_loss = 1.0;
          r.test_loss = rsa_factor(n, seed);
          out.push_back(t);
          out.push_back(r);
        }
      return out;
    };
    auto v = sampleEfficiencyVerdict(rows(6, [](int64_t, uint64_t) { return 0.9; }), "rsa",
                                     "transformer");
    QVERIFY2(v.decided && v.holds && !v.inconclusive, v.detail.c_str());
    QVERIFY(QString::fromStdString(verdictLine(v)).startsWith("holds: "));
    QVERIFY(QString::fromStdString(v.detail).contains("6 of 6 seeds"));
    v = sampleEfficiencyVerdict(rows(6, [](int64_t, uint64_t) { return 1.1; }), "rsa",
                                "transformer");
    QVERIFY(v.decided && !v.holds);
    QVERIFY(QString::fromStdString(verdictLine(v)).startsWith("does not hold here: "));
    // RSA lower on all 15 (N, seed) pairs of 3 seeds: the old rule's sign test over pairs said
    // "holds" (p = 6e-5); 3 independent seeds cannot (p = 0.25): inconclusive, and it says why.
    v = sampleEfficiencyVerdict(rows(3, [](int64_t, uint64_t) { return 0.9; }), "rsa",
                                "transformer");
    QVERIFY2(!v.decided && v.inconclusive, v.detail.c_str());
    QVERIFY(QString::fromStdString(v.detail).contains("cannot reach p < 0.05"));
    // Lower at most N on every seed but much higher at one N: the seed's mean log difference
    // decides, not the count of N (5 of 6 seeds higher overall: inconclusive, p = 0.22).
    v = sampleEfficiencyVerdict(rows(6,
                                     [](int64_t n, uint64_t seed) {
                                       if (seed == 0) return 0.9;
                                       return n == 4096 ? 3.0 : 0.95;
                                     }),
                                "rsa", "transformer");
    QVERIFY2(!v.decided && v.inconclusive, v.detail.c_str());
    QVERIFY(QString::fromStdString(v.detail).contains("lower on 1 of 6 seeds"));
    v = sampleEfficiencyVerdict({}, "rsa", "transformer");
    QVERIFY(!v.decided && !v.inconclusive);
    QVERIFY(QString::fromStdString(verdictLine(v)).startsWith("undecided: "));
  }

  void figure1VerdictsFollowTheWinners() {
    // rnn best at high share and small N, transformer at low share and large N, rsa close
    // everywhere: all three claims hold; swap rnn's numbers and claim 1 fails.
    auto build = [](bool rnn_good) {
      std::vector<RegimePoint> p;
      int64_t run = 0;
      for (double a : {0.0, 0.5, 1.0}) {
        for (int64_t n : {16, 256}) {
          for (uint64_t s = 0; s < 3; ++s) {
            const double j = 0.001 * static_cast<double>(s);
            const bool rnn_region = a == 1.0 && n == 16;
            const bool tf_region = a == 0.0 && n == 256;
            p.push_back({"rnn", a, n, s, (rnn_region && rnn_good ? 0.1 : 0.9) + j, run++});
            p.push_back({"transformer", a, n, s, (tf_region ? 0.1 : 0.9) + j, run++});
            p.push_back({"rsa", a, n, s, 0.2 + j, run++});
          }
        }
      }
      return buildRegimeMap(p);
    };
    auto v = figure1Verdicts(build(true));
    QCOMPARE(v.size(), size_t{3});
    QVERIFY2(v[0].decided && v[0].holds, v[0].detail.c_str());
    QVERIFY2(v[1].decided && v[1].holds, v[1].detail.c_str());
    // rsa wins 4 of 6 cells and loses 2: below 3/4
    QVERIFY2(v[2].decided && !v[2].holds, v[2].detail.c_str());
    v = figure1Verdicts(build(false));
    QVERIFY2(v[0].decided && !v[0].holds, v[0].detail.c_str());
    QVERIFY(verdictLine(v[0]).rfind("does not hold here: ", 0) == 0);
    // One seed has no spread: every cell is an unjudged tie and no claim is decided.
    std::vector<RegimePoint> one = {
        {"rnn", 1.0, 16, 0, 0.1, 0}, {"transformer", 1.0, 16, 0, 0.9, 1},
        {"rnn", 0.0, 16, 0, 0.9, 2}, {"transformer", 0.0, 16, 0, 0.1, 3},
        {"rnn", 1.0, 64, 0, 0.1, 4}, {"transformer", 1.0, 64, 0, 0.9, 5},
        {"rnn", 0.0, 64, 0, 0.9, 6}, {"transformer", 0.0, 64, 0, 0.1, 7}};
    v = figure1Verdicts(buildRegimeMap(one));
    QVERIFY2(!v[0].decided, v[0].detail.c_str());
    QVERIFY(verdictLine(v[0]).rfind("undecided: ", 0) == 0);
  }

  // Ties are ties: a tie never counts as a win. Each claim's three outcomes from made-up maps.
  void figure1TiesAreNotWins() {
    // rnn ties rsa in its own region (a = 1, N = 16): not a win, but it could be one, so claim 1
    // is inconclusive (it held when ties counted).
    std::vector<RegimePoint> p;
    int64_t run = 0;
    const std::vector<double> rnn_noisy = {0.1, 0.3, 0.15}, rsa_flat = {0.2, 0.201, 0.202};
    for (double a : {0.0, 0.5, 1.0})
      for (int64_t n : {16, 256})
        for (uint64_t s = 0; s < 3; ++s) {
          const bool rnn_region = a == 1.0 && n == 16;
          p.push_back({"rnn", a, n, s, rnn_region ? rnn_noisy[s] : 0.9 + 0.001 * s, run++});
          p.push_back({"transformer", a, n, s, 0.9 + 0.002 * s, run++});
          p.push_back({"rsa", a, n, s, rsa_flat[s], run++});
        }
    auto v = figure1Verdicts(buildRegimeMap(p));
    QVERIFY2(v[0].inconclusive && !v[0].decided, v[0].detail.c_str());
    QVERIFY(verdictLine(v[0]).rfind("inconclusive: ", 0) == 0);
    // Claim 2: the transformer loses its region to rsa outright: does not hold.
    QVERIFY2(v[1].decided && !v[1].holds, v[1].detail.c_str());
    // Claim 3: rsa wins 5 cells outright and ties 1 (5 ≥ 4.5 of 6): holds.
    QVERIFY2(v[2].decided && v[2].holds, v[2].detail.c_str());

    // Claim 3 over 4 cells (rsa vs rnn): 2 outright wins and 2 ties: would hold only by counting
    // the ties, so inconclusive; with a third win it holds; with the ties lost it does not hold.
    auto plane = [](int wins, int ties) {
      std::vector<RegimePoint> q;
      int64_t id = 0, cell = 0;
      for (double a : {0.0, 1.0})
        for (int64_t n : {16, 64}) {
          const bool win = cell < wins, tie = !win && cell < wins + ties;
          ++cell;
          for (uint64_t s = 0; s < 3; ++s) {
            const double noisy[] = {-0.2, 0.25, 0.1};
            q.push_back({"rsa", a, n, s, 0.5 + 0.001 * s, id++});
            q.push_back({"rnn", a, n, s,
                         win   ? 0.8 + 0.001 * s
                         : tie ? 0.5 + noisy[s]
                               : 0.2 + 0.001 * s,
                         id++});
          }
        }
      return figure1Verdicts(buildRegimeMap(q))[2];
    };
    auto rsa = plane(2, 2);
    QVERIFY2(rsa.inconclusive && !rsa.decided, rsa.detail.c_str());
    rsa = plane(3, 0);
    QVERIFY2(rsa.decided && rsa.holds, rsa.detail.c_str());
    rsa = plane(2, 0);
    QVERIFY2(rsa.decided && !rsa.holds, rsa.detail.c_str());
    QVERIFY(rsa.detail.find("beaten in 2") != std::string::npos);
  }

  // The fixed-point claim on made-up records: the distance of the output to its last layer's
  // fixed point, against the control, judged over seeds. A run alone never decides "holds"; where
  // the map does not converge on most samples the claim says "no fixed point to approach".
  void fixedPointVerdictHasEveryOutcome() {
    auto record = [](bool converged, double distance, int64_t iterations = 40) {
      InspectionRecord r;
      r.layers.resize(4);
      r.layers.back().fixed_point_iterations = converged ? iterations : kFixedPointIterations;
      r.layers.back().fixed_point_converged = converged;
      r.layers.back().fixed_point_distance = distance;
      return r;
    };
    const auto near = record(true, 0.1), far = record(true, 0.4), loose = record(false, 0.9);
    // The three fields read back from a record's JSON (older records have none: 0, not recorded).
    const InspectionRecord back = inspectionFromJson(inspectionJson(loose), "record");
    QCOMPARE(back.layers.back().fixed_point_iterations, kFixedPointIterations);
    QVERIFY(!back.layers.back().fixed_point_converged);
    QCOMPARE(back.layers.back().fixed_point_distance, 0.9);
    QCOMPARE(back.layers.front().fixed_point_iterations, int64_t{0});
    // Closer than the control on every sample: one seed is still inconclusive, with its ratio.
    auto v = fixedPointVerdict({&near, &near, &near}, {&far, &far, &far});
    QVERIFY2(v.inconclusive && !v.decided, v.detail.c_str());
    QVERIFY(std::abs(v.measures.at("log_ratio") - std::log(0.25)) < 1e-12);
    QCOMPARE(v.measures.at("converged_share"), 1.0);
    QVERIFY(v.detail.find("converged on 3 of 3 samples") != std::string::npos);
    // The map converges on 1 of 3 samples: no fixed point to approach, does not hold.
    v = fixedPointVerdict({&near, &loose, &loose}, {&far, &far, &far});
    QVERIFY2(v.decided && !v.holds, v.detail.c_str());
    QVERIFY(v.detail.find("no fixed point to approach") != std::string::npos);
    QVERIFY(v.measures.count("log_ratio") == 0);
    // No control, or records without the fixed point (written before it was recorded): undecided.
    v = fixedPointVerdict(near, nullptr);
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());
    v = fixedPointVerdict(InspectionRecord{}, &far);
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());
    QVERIFY(verdictLine(v).rfind("undecided: ", 0) == 0);
    // The control's map rarely converges: too few pairs to compare, undecided.
    v = fixedPointVerdict({&near, &near, &near}, {&loose, &loose, &far});
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());

    // Over seeds: the t interval of the seeds' log ratios decides.
    using Seeds = std::vector<std::map<std::string, double>>;
    const auto seed = [](double log_ratio) {
      return std::map<std::string, double>{{"converged_share", 1.0}, {"log_ratio", log_ratio}};
    };
    v = fixedPointSeedsVerdict(Seeds{seed(-0.5), seed(-0.4), seed(-0.6), seed(-0.45)});
    QVERIFY2(v.decided && v.holds, v.detail.c_str());
    v = fixedPointSeedsVerdict(Seeds{seed(0.5), seed(0.4), seed(0.6)});
    QVERIFY2(v.decided && !v.holds, v.detail.c_str());
    v = fixedPointSeedsVerdict(Seeds{seed(-0.5), seed(0.4), seed(-0.1)});
    QVERIFY2(v.inconclusive && !v.decided, v.detail.c_str());
    v = fixedPointSeedsVerdict(Seeds{seed(-0.5)});  // one seed: no interval
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());
    // Half the seeds or more without a fixed point: does not hold, whatever the others say.
    const std::map<std::string, double> none{{"converged_share", 0.25}};
    v = fixedPointSeedsVerdict(Seeds{none, none, seed(-0.5), seed(-0.6)});
    QVERIFY2(v.decided && !v.holds, v.detail.c_str());
    QVERIFY(v.detail.find("no fixed point to approach") != std::string::npos);
    // One seed of five without one: the rest below 0 cannot make it hold.
    v = fixedPointSeedsVerdict(Seeds{none, seed(-0.5), seed(-0.4), seed(-0.6), seed(-0.45)});
    QVERIFY2(v.inconclusive && !v.decided, v.detail.c_str());
    // Runs recorded before the measures: undecided.
    v = fixedPointSeedsVerdict(Seeds{{}, {}});
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());
    QVERIFY(overSeedsVerdict(ClaimRule::FixedPoint, Seeds{}).has_value());
    QVERIFY(!overSeedsVerdict(ClaimRule::Recover, Seeds{}).has_value());
  }

  // A budget that grows with N: max(base steps, ceil(epochs · N / batch)), in the plan and its
  // hash.
  void sweepBudgetGrowsWithN() {
    SweepOptions o;
    o.base = defaultSweepConfig();  // 300 steps, batch 32
    o.models = {"rnn"};
    o.sizes = {16, 1024, 4096};
    o.seeds = 1;
    const SweepPlan fixed = makeSweepPlan(o);
    o.budget_epochs = 8;
    const SweepPlan grown = makeSweepPlan(o);
    QVERIFY(fixed.hash != grown.hash);
    QCOMPARE(cellConfig(fixed, fixed.cells[2]).trainer.max_steps, int64_t{300});
    QCOMPARE(cellConfig(grown, grown.cells[0]).trainer.max_steps, int64_t{300});
    QCOMPARE(cellConfig(grown, grown.cells[1]).trainer.max_steps, int64_t{300});  // 256 < 300
    QCOMPARE(cellConfig(grown, grown.cells[2]).trainer.max_steps, int64_t{1024});
    QCOMPARE(cellSteps(o.base, 3, 100), int64_t{300});
    QCOMPARE(cellSteps(o.base, 100, 100), int64_t{313});  // ceil(10000 / 32)
    const SweepPlan back = sweepPlanFromJson(sweepPlanJson(grown));
    QCOMPARE(back.budget_epochs, int64_t{8});
    QCOMPARE(back.hash, grown.hash);
    QVERIFY(sweepPlanJson(fixed).find("budget") == std::string::npos);  // old plans keep theirs
    QVERIFY(sweepBudgetText(grown).find("1024 at N = 4096") != std::string::npos);
    o.budget_epochs = -1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeSweepPlan(o));
  }

  void presetsStateClaimsAndPlanTheirSweeps() {
    for (const Preset& p : presets()) {
      QVERIFY2(!p.claim.empty(), p.name.c_str());
      if (!p.isSweep()) continue;
      const SweepPlan plan =
          makeSweepPlan(p.sweepOptions());  // validates every (model, axis value)
      QVERIFY(plan.cellCount() > 0);
      const std::vector<SweepRow> none;
      ClaimEvidence rows;
      rows.rows = &none;
      QVERIFY(judgeClaim(p.rule, rows).size() > 0);  // a rule that reads sweep rows
    }
    const Preset& f = presetOrThrow("figure1");
    QCOMPARE(f.models, (std::vector<std::string>{"rnn", "transformer", "rsa"}));
    QCOMPARE(f.axis.values.size(), size_t{5});
    QCOMPARE(f.sweep_sizes.size() * f.axis.values.size() * f.models.size() *
                 static_cast<size_t>(f.sweep_seeds),
             size_t{375});
    QCOMPARE(f.sweep_epochs, int64_t{8});  // the budget grows with N
    QCOMPARE(presetOrThrow("rsa-sample-efficiency").sweep_epochs, int64_t{8});
    QVERIFY(linearRnnDemoVerdict().holds);
    QVERIFY(!linearRnnVerdict(1e-3, 10).holds);
  }
  // One table each: a preset's action is what its claim rule reads, every rule has a row with its
  // outcome tests and a name that parses back, and the PresetRunner switches on the action.
  void presetActionsMatchTheirClaimRules() {
    const ClaimInput input_of[] = {ClaimInput::RunRecord, ClaimInput::SweepRows,
                                   ClaimInput::Computed, ClaimInput::Probe,
                                   ClaimInput::PaperRuns};  // by PresetAction
    for (const Preset& p : presets()) {
      const ClaimRuleInfo& rule = claimRuleInfo(p.rule);
      QVERIFY2(rule.input == input_of[static_cast<int>(p.action)], p.name.c_str());
      QVERIFY(parseClaimRule(rule.name) == std::optional<ClaimRule>(p.rule));
      QVERIFY(rule.holds && rule.fails && rule.inconclusive && rule.judge);
      // Without evidence only a computed claim is judged.
      QCOMPARE(judgeClaim(p.rule, {}).empty(), p.action != PresetAction::Computed);
    }
    // … same-recurrence (RetNet and RSA), and the family's three (family_claims.h)
    QCOMPARE(claimRules().size(), size_t{11});
    QVERIFY(!parseClaimRule("rsa"));
    struct Calls : PresetRunner {
      std::string seen;
      int train(const Preset&) override { return seen += "train ", 0; }
      int sweep(const Preset&) override { return seen += "sweep ", 0; }
      int probe(const Preset&) override { return seen += "probe ", 0; }
      int computed(const Preset&, const std::vector<ClaimVerdict>& v) override {
        seen += v.size() == 1 && v.front().holds ? "computed(holds) " : "computed(?) ";
        return 0;
      }
      int paperTable(const Preset&) override { return seen += "paper-table ", 0; }
    } calls;
    for (const char* name : {"recover", "linear-rnn", "linear-attention", "figure1", "paper-table"})
      QCOMPARE(calls.run(presetOrThrow(name)), 0);
    QCOMPARE(calls.seen, std::string("train computed(holds) probe sweep paper-table "));
    QCOMPARE(presetTabName(presetOrThrow("linear-rnn").tab), "linear-rnn");
    QCOMPARE(presetActionName(presetOrThrow("figure1").action), "sweep");
  }
};

RSALAB_REGISTER_TEST(TestRegimeMap, QTEST_GUILESS_MAIN)
#include "test_regime_map.moc"
