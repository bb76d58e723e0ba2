// SPDX-License-Identifier: GPL-3.0-or-later
// The family's claims (engine/core/verdicts/family_claims.h) on rows built by hand, each with
// every outcome: "selective decay follows the recurrent share" holds (horizons grow with a on
// every seed), does not hold (flat) and is inconclusive (seeds disagree); "where the recurrence
// enters attention matters" holds (RSA lower than every rival in the high-share, small-N cells),
// does not hold (a rival lower) and is inconclusive; and the family's sample-efficiency verdicts
// give two per model against the Transformer: lower on average over N, and a steeper exponent
// of the excess loss fitted per seed.
// Core library only: no LibTorch.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/core/registry/family_table.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/family_claims.h"
#include "engine/core/verdicts/presets.h"
#include "support/test_registry.h"

using namespace rsalab;

namespace {

SweepRow modelRow(const std::string& model, uint64_t seed, int64_t size, double a) {
  SweepRow r;
  r.model = model;
  r.seed = seed;
  r.size = size;
  r.axis_value = a;
  r.steps = 100;
  r.bayes_floor = 0;
  return r;
}

// Runs of `models` × shares {0, 0.5, 1} × `seeds`, each with one head of decay 1 − 1/H, the
// horizon H = horizon(model, a, seed).
std::vector<SweepRow> decayRows(
    const std::vector<std::string>& models, int seeds,
    const std::function<double(const std::string&, double, int)>& horizon) {
  std::vector<SweepRow> out;
  for (const auto& m : models)
    for (int s = 0; s < seeds; ++s)
      for (double a : {0.0, 0.5, 1.0}) {
        SweepRow r = modelRow(m, static_cast<uint64_t>(s), 1024, a);
        r.regular_decays = {1.0 - 1.0 / horizon(m, a, s)};
        r.test_loss = 0.1;
        out.push_back(r);
      }
  return out;
}

// Rows on a 3 × 3 grid (a ∈ {0, 0.5, 1}, N ∈ {16, 64, 256}) × 5 seeds: each model's excess loss is
// loss(model, a, N) plus a seed jitter shared by the models (paired seeds cancel it).
std::vector<SweepRow> gridRows(
    const std::vector<std::string>& models,
    const std::function<double(const std::string&, double, int64_t, int)>& loss) {
  std::vector<SweepRow> out;
  int64_t run = 0;
  for (const auto& m : models)
    for (double a : {0.0, 0.5, 1.0})
      for (int64_t n : {16, 64, 256})
        for (int s = 0; s < 5; ++s) {
          SweepRow r = modelRow(m, static_cast<uint64_t>(s), n, a);
          r.run = run++;
          r.test_loss = loss(m, a, n, s) + 0.01 * s;
          out.push_back(r);
        }
  return out;
}

const std::vector<std::string> kDecaying = {"mamba2", "gla", "fox"};
const std::vector<std::string> kPlaced = {"rsa", "alibi", "fox", "retnet"};

}  // namespace

class TestFamilyClaims : public QObject {
  Q_OBJECT
 private slots:
  void horizonIsOneOverOneMinusTheMeanDecay() {
    QCOMPARE(runMemoryHorizon({0.5, 0.9}), 1.0 / (1.0 - 0.7));
    QVERIFY(std::isnan(runMemoryHorizon({})));
    QVERIFY(std::isinf(runMemoryHorizon({1.0})));
  }

  void selectiveDecayHasEveryOutcome() {
    // Every model's horizon doubles from a = 0 to a = 1 on every seed (with a seed's own level).
    auto v = selectiveDecayVerdict(decayRows(kDecaying, 5, [](const std::string&, double a, int s) {
      return (4.0 + s) * std::pow(2.0, a) * (1 + 0.01 * (s % 2) * a);
    }));
    QVERIFY2(v.decided && v.holds, v.detail.c_str());
    QVERIFY2(v.detail.find("gla: horizon") != std::string::npos, v.detail.c_str());
    // GLA's is flat: the same horizon at every share (tiny seed noise).
    v = selectiveDecayVerdict(decayRows(kDecaying, 5, [](const std::string& m, double a, int s) {
      return m == "gla" ? 8.0 * (1 + 0.001 * s * a) : 4.0 * std::pow(2.0, a);
    }));
    QVERIFY2(v.decided && !v.holds, v.detail.c_str());
    QVERIFY2(v.detail.find("gla: horizon 8 steps at a = 0") != std::string::npos, v.detail.c_str());
    // FoX's grows on some seeds and falls on others: inconclusive.
    v = selectiveDecayVerdict(decayRows(kDecaying, 5, [](const std::string& m, double a, int s) {
      if (m != "fox") return 4.0 * std::pow(2.0, a);
      return 4.0 * std::pow(s % 2 ? 4.0 : 0.5, a);
    }));
    QVERIFY2(!v.decided && v.inconclusive, v.detail.c_str());
    // One seed: no spread, undecided.
    v = selectiveDecayVerdict(
        decayRows(kDecaying, 1, [](const std::string&, double a, int) { return 1 + a; }));
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());
  }

  void placementHasEveryOutcome() {
    // The deciding cells on a 3 × 3 grid: a = 1 (the top third) and N = 16 (the smaller half).
    auto rows = gridRows(
        kPlaced, [](const std::string& m, double, int64_t, int) { return m == "rsa" ? 0.1 : 0.2; });
    auto map = buildRegimeMap(regimePoints(rows));
    const MapRegion region = figure1Region(map, true, true);
    QCOMPARE(region.text(), std::string("a in [1, 1], N in [16, 16]"));
    auto v = placementVerdict(map);
    QVERIFY2(v.decided && v.holds, v.detail.c_str());
    // FoX lower than RSA in the deciding cell (and RSA lower everywhere else: not counted).
    rows = gridRows(kPlaced, [](const std::string& m, double a, int64_t n, int) {
      if (m == "fox" && a == 1 && n == 16) return 0.05;
      return m == "rsa" ? 0.1 : 0.2;
    });
    v = placementVerdict(buildRegimeMap(regimePoints(rows)));
    QVERIFY2(v.decided && !v.holds, v.detail.c_str());
    QVERIFY2(v.detail.find("fox lower in 1") != std::string::npos, v.detail.c_str());
    // RetNet tied with RSA there (its paired difference alternates in sign over the seeds).
    rows = gridRows(kPlaced, [](const std::string& m, double, int64_t, int s) {
      if (m == "retnet") return 0.1 + (s % 2 ? 0.05 : -0.05);
      return m == "rsa" ? 0.1 : 0.2;
    });
    v = placementVerdict(buildRegimeMap(regimePoints(rows)));
    QVERIFY2(!v.decided && v.inconclusive, v.detail.c_str());
    // No RSA on the map: undecided.
    rows = gridRows({"alibi", "fox"}, [](const std::string&, double, int64_t, int) { return 0.1; });
    v = placementVerdict(buildRegimeMap(regimePoints(rows)));
    QVERIFY2(!v.decided && !v.inconclusive, v.detail.c_str());
  }

  // Two claims kept apart, on excess = c·N^(−b) above a floor of 0.2 (seeds scale it by 1 + s/100,
  // which leaves each seed's b as it is): rsa is lower on average over N (the small N decide) but
  // has the flatter exponent and is higher at N = 4096; gla is higher and flatter; mamba2 is
  // steeper. The exponents are the excess's, per seed.
  void familySampleEfficiencyJudgesEveryModelAgainstTheTransformer() {
    std::vector<SweepRow> rows;
    const auto shape = [](const std::string& m) -> std::pair<double, double> {
      if (m == "rsa") return {0.5, 0.3};
      if (m == "gla") return {2.0, 0.2};
      if (m == "mamba2") return {3.0, 0.6};
      return {2.0, 0.5};  // the transformer
    };
    for (const char* m : {"transformer", "rsa", "gla", "mamba2"})
      for (uint64_t s = 0; s < 6; ++s)
        for (int64_t n : {16, 64, 256, 1024, 4096}) {
          SweepRow r = modelRow(m, s, n, std::nan(""));
          const auto [c, b] = shape(m);
          r.bayes_floor = 0.2;
          r.test_loss = 0.2 + c * std::pow(static_cast<double>(n), -b) * (1 + 0.01 * s);
          rows.push_back(r);
        }
    const auto verdicts = familySampleEfficiencyVerdicts(rows);
    QCOMPARE(verdicts.size(), size_t{6});
    for (const auto& v : verdicts) qInfo("%s", verdictLine(v).c_str());
    // rsa: lower on average, not steeper.
    QVERIFY(verdicts[0].claim.find("rsa has lower loss on average over N") == 0);
    QVERIFY2(verdicts[0].decided && verdicts[0].holds, verdicts[0].detail.c_str());
    QVERIFY(verdicts[1].claim.find("rsa has a steeper exponent") == 0);
    QVERIFY(verdicts[1].claim.find("excess loss (test − Bayes floor)") != std::string::npos);
    QVERIFY2(verdicts[1].decided && !verdicts[1].holds, verdicts[1].detail.c_str());
    QVERIFY2(verdicts[1].detail.find("rsa b = 0.3 [0.3, 0.3] over 6 seeds") != std::string::npos,
             verdicts[1].detail.c_str());
    // gla: neither.
    QVERIFY2(verdicts[2].decided && !verdicts[2].holds, verdicts[2].detail.c_str());
    QVERIFY2(verdicts[3].decided && !verdicts[3].holds, verdicts[3].detail.c_str());
    // mamba2: steeper.
    QVERIFY2(verdicts[5].decided && verdicts[5].holds, verdicts[5].detail.c_str());
    // Without a floor the exponent is the test loss's, and the claim says so.
    for (auto& r : rows) r.bayes_floor = std::nan("");
    const auto raw = exponentVerdict(rows, "rsa", "transformer");
    QVERIFY(raw.claim.find("test loss (the task has no Bayes floor)") != std::string::npos);
    // Two sizes: no exponent, and it says why.
    std::vector<SweepRow> two;
    for (const auto& r : rows)
      if (r.size <= 64) two.push_back(r);
    const auto refused = exponentVerdict(two, "rsa", "transformer");
    QVERIFY2(!refused.decided && !refused.inconclusive, refused.detail.c_str());
    QVERIFY(refused.detail.find("needs 3 training-set sizes or more; this sweep has 2") !=
            std::string::npos);
    const auto none = familySampleEfficiencyVerdicts({});
    QCOMPARE(none.size(), size_t{1});
    QVERIFY(!none[0].decided && !none[0].inconclusive);
  }

  // The three presets exist with their rules and run what their claims name.
  void thePresetsNameTheirModels() {
    QCOMPARE(presetOrThrow("selective-decay").rule, ClaimRule::SelectiveDecay);
    QCOMPARE(presetOrThrow("recurrence-placement").rule, ClaimRule::Placement);
    QCOMPARE(presetOrThrow("family-sample-efficiency").rule, ClaimRule::FamilySampleEfficiency);
    for (const char* m : {"rsa", "alibi", "fox", "retnet"}) {
      const auto& models = presetOrThrow("recurrence-placement").models;
      QVERIFY2(std::find(models.begin(), models.end(), m) != models.end(), m);
    }
    QCOMPARE(presetOrThrow("family-sample-efficiency").models.size(), size_t{8});
    QCOMPARE(parseClaimRule("placement").value(), ClaimRule::Placement);
  }

  // The family's table (docs/FAMILY.md) names exactly the family presets' models, each a registry
  // row, and its Markdown keeps one row per model with 4 cells (a '|' inside a cell escaped).
  void theFamilyTableCoversTheFamily() {
    const auto& family = presetOrThrow("family-sample-efficiency").models;
    QCOMPARE(familyForms().size(), family.size());
    for (const auto& m : family) QVERIFY2(findModel(m) && findModel(m)->form.parallel, m.c_str());
    const std::string block = familyFormsBlock();
    size_t rows = 0;
    for (size_t at = block.find("\n| `"); at != std::string::npos;
         at = block.find("\n| `", at + 1)) {
      const size_t end = block.find('\n', at + 1);
      const std::string line = block.substr(at + 1, end - at - 1);
      int separators = 0;
      for (size_t k = 0; k < line.size(); ++k)
        separators += line[k] == '|' && (k == 0 || line[k - 1] != '\\');
      QCOMPARE(separators, 5);
      ++rows;
    }
    QCOMPARE(rows, family.size());
    const std::string doc = "x\n" + familyFormsBlock() + "y\n";
    QVERIFY(familyFormsBlockCurrent(doc, "doc"));
    QVERIFY(
        !familyFormsBlockCurrent("x\n<!-- family forms: begin (rsalab-cli models --docs "
                                 "docs/FAMILY.md writes this) -->\n<!-- family forms: end "
                                 "-->\n",
                                 "doc"));
  }
};

RSALAB_REGISTER_TEST(TestFamilyClaims, QTEST_GUILESS_MAIN)
#include "test_family_claims.moc"
