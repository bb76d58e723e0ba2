// The regime map's aggregation and winner rule (core library only: no LibTorch): means and sample
// sds per (model, axis value, N), a winner only where its mean beats the runner-up by more than
// the two sds (a tie where mean ± sd overlap, or with a single seed), the shared colour range.
#include <QtTest>
#include <cmath>
#include <functional>

#include "engine/core/claims.h"
#include "engine/core/presets.h"
#include "engine/core/regime_map.h"
#include "engine/sweep/sweep_plan.h"
#include "engine/training/sweep_io.h"

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

  void winnerNeedsMarginAboveSpread() {
    RegimeCell a{"rnn", 0, 16, 3, 1.0, 0.1, {}};
    RegimeCell b{"rsa", 0, 16, 3, 1.5, 0.2, {}};
    RegimeWinner w = regimeWinner({&b, &a});
    QCOMPARE(w.verdict, RegimeVerdict::Winner);
    QCOMPARE(w.best, std::string("rnn"));
    QCOMPARE(w.runner_up, std::string("rsa"));
    QCOMPARE(w.margin, 0.5);
    QVERIFY(std::abs(w.spread - 0.3) < 1e-12);
    b.mean = 1.25;  // 1.0 + 0.1 = 1.1 overlaps 1.25 − 0.2 = 1.05: a tie
    QCOMPARE(regimeWinner({&a, &b}).verdict, RegimeVerdict::Tie);
    QCOMPARE(regimeWinner({&a, &b}).best, std::string("rnn"));
    b.mean = 1.5;
    a.seeds = 1;  // one seed: no spread to judge by
    a.sd = 0;
    QCOMPARE(regimeWinner({&a, &b}).verdict, RegimeVerdict::Tie);
    QCOMPARE(regimeWinner({&a}).verdict, RegimeVerdict::Pending);
  }

  void winnersPerCellAndSharedRange() {
    std::vector<RegimePoint> p;
    int64_t run = 0;
    for (uint64_t s = 0; s < 3; ++s) {
      const double jitter = 0.01 * static_cast<double>(s);
      p.push_back({"rnn", 1.0, 16, s, 0.10 + jitter, run++});
      p.push_back({"transformer", 1.0, 16, s, 0.50 + jitter, run++});
      p.push_back({"rnn", 0.0, 16, s, 0.80 + jitter, run++});
      p.push_back({"transformer", 0.0, 16, s, 0.81 + jitter, run++});
    }
    const RegimeMap map = buildRegimeMap(p);
    QCOMPARE(map.axis_values, (std::vector<double>{0.0, 1.0}));
    QCOMPARE(map.winners.size(), size_t{2});
    QCOMPARE(map.winner(1.0, 16)->verdict, RegimeVerdict::Winner);
    QCOMPARE(map.winner(1.0, 16)->best, std::string("rnn"));
    QCOMPARE(map.winner(0.0, 16)->verdict, RegimeVerdict::Tie);
    const auto [lo, hi] = map.meanRange();
    QVERIFY(std::abs(lo - 0.11) < 1e-12);
    QVERIFY(std::abs(hi - 0.82) < 1e-12);
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

  // The sample-efficiency claim is a paired sign test over (N, seed): each outcome from made-up
  // rows, and the case the old rule (mean lower at most N) passed on noise.
  void sampleEfficiencyVerdictHasEveryOutcome() {
    QCOMPARE(signTestPValue(0, 0), 1.0);
    QVERIFY(std::abs(signTestPValue(14, 15) - 2 * 16.0 / 32768) < 1e-12);  // (1 + 15) / 2^15 · 2
    QCOMPARE(signTestPValue(3, 6), 1.0);
    auto rows = [](const std::function<double(int64_t, uint64_t)>& rsa_minus_transformer) {
      std::vector<SweepRow> out;
      for (int64_t n : {16, 64, 256, 1024, 4096})
        for (uint64_t seed = 0; seed < 3; ++seed) {
          SweepRow t, r;
          t.model = "transformer";
          r.model = "rsa";
          t.size = r.size = n;
          t.seed = r.seed = seed;
          t.steps = r.steps = 10;
          t.test_loss = 1.0;
          r.test_loss = 1.0 + rsa_minus_transformer(n, seed);
          out.push_back(t);
          out.push_back(r);
        }
      return out;
    };
    auto v =
        sampleEfficiencyVerdict(rows([](int64_t, uint64_t) { return -0.1; }), "rsa", "transformer");
    QVERIFY(v.decided && v.holds && !v.inconclusive);
    QVERIFY(QString::fromStdString(verdictLine(v)).startsWith("holds: "));
    v = sampleEfficiencyVerdict(rows([](int64_t, uint64_t) { return 0.1; }), "rsa", "transformer");
    QVERIFY(v.decided && !v.holds);
    QVERIFY(QString::fromStdString(verdictLine(v)).startsWith("does not hold here: "));
    // RSA's mean lower at 3 of 5 N (the old rule: holds), but higher on 9 of the 15 pairs: a
    // sign test cannot tell (6 of 15, p = 0.61), inconclusive.
    v = sampleEfficiencyVerdict(rows([](int64_t n, uint64_t seed) {
                                  if (n >= 1024) return 0.05;
                                  return seed < 2 ? -1.0 : 0.05;
                                }),
                                "rsa", "transformer");
    QVERIFY2(!v.decided && v.inconclusive, v.detail.c_str());
    QVERIFY(QString::fromStdString(verdictLine(v)).startsWith("inconclusive: "));
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

  void presetsStateClaimsAndPlanTheirSweeps() {
    for (const Preset& p : presets()) {
      QVERIFY2(!p.claim.empty() && !p.verdict.empty(), p.name.c_str());
      if (!p.isSweep()) continue;
      const SweepPlan plan =
          makeSweepPlan(p.sweepOptions());  // validates every (model, axis value)
      QVERIFY(plan.cellCount() > 0);
      QVERIFY(sweepPresetVerdicts(p.verdict, {}).size() > 0);  // a rule the claims know
    }
    const Preset& f = presetOrThrow("figure1");
    QCOMPARE(f.models, (std::vector<std::string>{"rnn", "transformer", "rsa"}));
    QCOMPARE(f.axis.values.size(), size_t{5});
    QCOMPARE(f.sweep_sizes.size() * f.axis.values.size() * f.models.size() *
                 static_cast<size_t>(f.sweep_seeds),
             size_t{225});
    QVERIFY(linearRnnDemoVerdict().holds);
    QVERIFY(!linearRnnVerdict(1e-3, 10).holds);
  }
};

QTEST_GUILESS_MAIN(TestRegimeMap)
#include "test_regime_map.moc"
