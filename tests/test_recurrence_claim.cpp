// SPDX-License-Identifier: GPL-3.0-or-later
// Decays as memory horizons (engine/core/registry/memory_horizon.h) against their closed forms,
// and the outcomes of "RetNet and RSA recover the same recurrence"
// (engine/core/verdicts/recurrence_claim.h) on rows built by hand: it holds, does not hold
// (a model misses λ; a teacher with no recurrence) and is inconclusive (seeds too spread), and
// it reads a run's record from its run folder. Core library only: no LibTorch.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/registry/memory_horizon.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/recurrence_claim.h"
#include "support/test_registry.h"

using namespace rsalab;

namespace {

GroundTruth teacher(double lambda) {
  GroundTruth t;
  t.components.push_back({RemKind::Regular, lambda, 0.0});
  t.description = "teacher λ=" + std::to_string(lambda);
  return t;
}

// RSA: one regular REM head with λ and one cos head (γ = 0.5: never the nearest to λ here).
InspectionRecord rsaRecord(double lambda) {
  InspectionRecord r;
  r.model = "rsa";
  r.layers.resize(1);
  HeadInspection regular, cyclical;
  regular.has_rem = true;
  regular.lambda = lambda;
  cyclical.has_rem = true;
  cyclical.rem_kind = RemKind::Cos;
  cyclical.gamma = 0.79;  // a cyclical γ near λ must not count as a recovered λ
  r.layers[0].heads = {regular, cyclical};
  return r;
}

// RetNet: heads with learned γ, the first at `gamma`, the others at the paper's start values.
InspectionRecord retnetRecord(double gamma) {
  InspectionRecord r;
  r.model = "retnet";
  r.layers.resize(1);
  r.layers[0].heads.resize(3);
  r.layers[0].heads[0].decay = {static_cast<float>(gamma)};
  r.layers[0].heads[1].decay = {static_cast<float>(1 - std::pow(2.0, -6))};
  r.layers[0].heads[2].decay = {static_cast<float>(1 - std::pow(2.0, -7))};
  return r;
}

SweepRow row(const std::string& model, uint64_t seed, const InspectionRecord& record,
             const GroundTruth& truth) {
  SweepRow r;
  r.model = model;
  r.seed = seed;
  r.size = 256;
  r.steps = 100;
  r.has_inspection = true;
  r.inspection = record;
  r.truth = truth;
  return r;
}

std::vector<SweepRow> rows(const std::vector<double>& rsa, const std::vector<double>& retnet,
                           const GroundTruth& truth) {
  std::vector<SweepRow> out;
  for (size_t s = 0; s < rsa.size(); ++s) out.push_back(row("rsa", s, rsaRecord(rsa[s]), truth));
  for (size_t s = 0; s < retnet.size(); ++s)
    out.push_back(row("retnet", s, retnetRecord(retnet[s]), truth));
  return out;
}

}  // namespace

class TestRecurrenceClaim : public QObject {
  Q_OBJECT

 private slots:
  void horizonsAreTheClosedForms() {
    QCOMPARE(memoryHorizon(0.75), 4.0);
    QCOMPARE(halfLife(0.5), 1.0);
    QVERIFY(std::fabs(halfLife(0.8) - std::log(0.5) / std::log(0.8)) < 1e-12);
    QCOMPARE(memoryHorizon(-0.75), 4.0);  // an alternating λ decays as |λ|
    QVERIFY(std::isinf(memoryHorizon(1.0)) && std::isinf(halfLife(1.0)));
    QCOMPARE(halfLife(0.0), 0.0);
    // RetNet's default γ_h = 1 − 2^(−5−h): horizons 32, 64, 128, 256.
    for (int h = 0; h < 4; ++h)
      QVERIFY(std::fabs(memoryHorizon(1 - std::pow(2.0, -5 - h)) - std::pow(2.0, 5 + h)) < 1e-9);
  }

  void headDecaysReadEverySource() {
    InspectionRecord r = rsaRecord(-0.6);
    HeadInspection token;
    token.decay = {0.1f, 0.5f, 0.9f, 0.3f};
    r.layers.push_back({});
    r.layers[1].heads = {HeadInspection{}, token};  // a head without a decay is left out
    const auto decays = headDecays(r);
    QCOMPARE(decays.size(), size_t{3});
    QVERIFY(decays[0].source == DecaySource::RsaRegular);
    QCOMPARE(decays[0].values.front(), 0.6);
    QVERIFY(decays[1].source == DecaySource::RsaCyclical);
    QVERIFY(decays[2].source == DecaySource::PerToken);
    QCOMPARE(decays[2].layer, int64_t{1});
    QCOMPARE(decays[2].head, int64_t{1});
    QVERIFY(std::fabs(decays[2].median() - 0.4) < 1e-6);  // (0.3 + 0.5) / 2
    QVERIFY(std::fabs(decays[2].quantile(0) - 0.1) < 1e-6);
    QVERIFY(std::fabs(decays[2].quantile(1) - 0.9) < 1e-6);
    GroundTruth truth = teacher(0.8);
    truth.components.push_back({RemKind::Cos, 0.9, 1.0});
    truth.components.push_back({RemKind::Sin, 0.9, 1.0});
    const auto lines = trueDecays(truth);
    QCOMPARE(lines.size(), size_t{2});  // λ once, γ once for its cos and sin
    QCOMPARE(lines[1].value, 0.9);
  }

  void holdsWhenBothRecoverLambda() {
    const auto v =
        sameRecurrenceVerdict(rows({0.801, 0.799, 0.8}, {0.797, 0.803, 0.802}, teacher(0.8)));
    QVERIFY2(v.decided && v.holds, verdictLine(v).c_str());
    QVERIFY(v.detail.find("rsa 0.8") != std::string::npos);
  }

  void doesNotHoldWhenRetnetStaysAtItsStart() {
    // RetNet's γ never leaves 1 − 2^−5 ≈ 0.969: its seeds agree with each other, not with λ.
    const auto v =
        sameRecurrenceVerdict(rows({0.801, 0.799, 0.8}, {0.968, 0.969, 0.97}, teacher(0.8)));
    QVERIFY2(v.decided && !v.holds, verdictLine(v).c_str());
    QVERIFY(v.detail.find("retnet") != std::string::npos &&
            v.detail.find("misses λ") != std::string::npos);
  }

  void doesNotHoldWithoutRecurrence() {
    GroundTruth none;
    none.description = "teacher with no recurrence";
    const auto v = sameRecurrenceVerdict(rows({0.8, 0.8}, {0.8, 0.8}, none));
    QVERIFY2(v.decided && !v.holds, verdictLine(v).c_str());
    QVERIFY(v.detail.find("no regular recurrence") != std::string::npos);
  }

  void inconclusiveWhenSeedsSpread() {
    // RetNet's seeds straddle λ but spread far wider than kSameRecurrenceWidth.
    const auto v =
        sameRecurrenceVerdict(rows({0.801, 0.799, 0.8}, {0.6, 0.95, 0.85}, teacher(0.8)));
    QVERIFY2(!v.decided && v.inconclusive, verdictLine(v).c_str());
  }

  void undecidedWithOneSeed() {
    const auto v = sameRecurrenceVerdict(rows({0.8, 0.8}, {0.8}, teacher(0.8)));
    QVERIFY(!v.decided && !v.inconclusive);
    QVERIFY(v.detail.find("retnet has 1") != std::string::npos);
  }

  void judgesSweepJsonRowsByTheirRegularDecays() {
    // sweep.json keeps each run's regular decays, not its record: the verdict survives the file.
    SweepResult result;
    result.rows = rows({0.801, 0.799, 0.8}, {0.797, 0.803, 0.802}, teacher(0.8));
    for (auto& r : result.rows) {
      r.regular_decays = regularDecays(r.inspection);
      r.has_inspection = false;
      r.inspection = InspectionRecord{};
    }
    QCOMPARE(result.rows[0].regular_decays, std::vector<double>{0.801});  // the cos head left out
    QCOMPARE(result.rows[3].regular_decays.size(), size_t{3});
    const SweepResult back = sweepResultFromJson(sweepJson(result));
    QCOMPARE(back.rows[3].regular_decays, result.rows[3].regular_decays);
    const auto v = sameRecurrenceVerdict(back.rows);
    QVERIFY2(v.decided && v.holds, verdictLine(v).c_str());
  }

  void readsRecordsFromRunFolders() {
    QTemporaryDir dir;
    auto list = rows({0.8, 0.801}, {0.799, 0.8}, teacher(0.8));
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string folder = dir.path().toStdString() + "/" + std::to_string(i);
      QVERIFY(writeInspection(list[i].inspection, folder) > 0);
      list[i].files = folder;
      list[i].inspection = InspectionRecord{};
    }
    ClaimEvidence evidence;
    evidence.rows = &list;
    const auto v = judgeClaim(ClaimRule::SameRecurrence, evidence);
    QCOMPARE(v.size(), size_t{1});
    QVERIFY2(v[0].decided && v[0].holds, verdictLine(v[0]).c_str());
  }
};

RSALAB_REGISTER_TEST(TestRecurrenceClaim, QTEST_GUILESS_MAIN)
#include "test_recurrence_claim.moc"
