// The regime map's aggregation and winner rule (core library only: no LibTorch): means and sample
// sds per (model, axis value, N), a winner only where its mean beats the runner-up by more than
// the two sds (a tie where mean ± sd overlap, or with a single seed), the shared colour range.
#include <QtTest>
#include <cmath>

#include "engine/core/regime_map.h"

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
};

QTEST_GUILESS_MAIN(TestRegimeMap)
#include "test_regime_map.moc"
