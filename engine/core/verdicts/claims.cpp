// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/claims.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/verdicts/family_claims.h"
#include "engine/core/verdicts/generation_claim.h"
#include "engine/core/verdicts/linear_rnn_demo.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/core/verdicts/recurrence_claim.h"

namespace rsalab {

double signTestPValue(int wins, int n) {
  if (n <= 0) return 1.0;
  const int k = std::min(wins, n - wins);
  double tail = 0, term = std::pow(0.5, n);  // C(n, 0) / 2^n
  for (int i = 0; i <= k; ++i) {
    tail += term;
    term *= static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return std::min(1.0, 2 * tail);
}

ClaimVerdict sampleEfficiencyVerdict(const std::vector<SweepRow>& rows, const std::string& better,
                                     const std::string& than) {
  ClaimVerdict v;
  v.claim = better + " has lower loss on average over N than " + than +
            ": over independent seeds, its test loss across the N axis is lower than " + than +
            "'s (each seed's mean log-loss difference, which the smallest N can dominate; an "
            "exact sign test over the seeds).";
  // seed → N → model → test loss
  std::map<uint64_t, std::map<int64_t, std::map<std::string, double>>> by_seed;
  for (const auto& r : rows) {
    if (r.reference || !r.ok() || (r.model != better && r.model != than)) continue;
    if (std::isfinite(r.test_loss) && r.test_loss > 0)
      by_seed[r.seed][r.size][r.model] = r.test_loss;
  }
  // One summary per seed: the mean over the N where both ran of log(loss_better / loss_than).
  // Within a seed the N share the test set and the initialisation, and a smaller N's training
  // data is part of a larger N's: the seed, not the (N, seed) pair, is the independent unit.
  std::vector<double> summaries;
  int wins = 0, losses = 0, ties = 0;
  for (const auto& [seed, sizes] : by_seed) {
    double sum = 0;
    int count = 0;
    for (const auto& [size, models] : sizes) {
      if (models.size() < 2) continue;
      sum += std::log(models.at(better) / models.at(than));
      ++count;
    }
    if (count == 0) continue;
    const double d = sum / count;
    summaries.push_back(d);
    if (d < 0) ++wins;
    if (d > 0) ++losses;
    if (d == 0) ++ties;
  }
  const std::string per_seed = joined(summaries, ", ", [](double d) { return formatNumber(d); });
  const int n = wins + losses;
  const double p = signTestPValue(wins, n);
  std::vector<double> sorted = summaries;
  std::sort(sorted.begin(), sorted.end());
  const PairedDifference mean = meanWithInterval(sorted);
  v.decided = n > 0 && p < kClaimAlpha;
  v.holds = v.decided && wins > losses;
  v.inconclusive = n > 0 && !v.decided;
  v.deciding = "lower on " + std::to_string(wins) + " of " + std::to_string(n) +
               " seeds, p = " + formatNumber(p, 2);
  v.detail = better + " lower on " + std::to_string(wins) + " of " + std::to_string(n) + " seeds" +
             (ties ? " (" + std::to_string(ties) + " exact ties left out)" : "") +
             ", sign test p = " + formatNumber(p, 2) +
             (summaries.empty()
                  ? std::string()
                  : "; mean log-loss difference per seed " + per_seed + ", mean " +
                        formatNumber(mean.mean) + " (" + regimeIntervalText(mean, "seeds") + ")");
  if (n > 0 && n < kSignTestMinSeeds)
    v.detail += "; " + std::to_string(n) + " seeds cannot reach p < " +
                formatNumber(kClaimAlpha, 2) + " (the sign test needs " +
                std::to_string(kSignTestMinSeeds) + " agreeing)";
  if (n == 0) v.detail = v.deciding = "no seed with both " + better + " and " + than + " at some N";
  return v;
}

ClaimVerdict exponentVerdict(const std::vector<SweepRow>& rows, const std::string& better,
                             const std::string& than) {
  // The excess over the Bayes floor where every usable run of both models knows it.
  bool excess = true;
  std::set<int64_t> sizes;
  std::map<std::string, std::vector<PowerLawPoint>> raw, over;
  for (const auto& r : rows) {
    if (r.reference || !r.ok() || (r.model != better && r.model != than)) continue;
    excess = excess && std::isfinite(r.bayes_floor);
    sizes.insert(r.size);
    raw[r.model].push_back({static_cast<double>(r.size), r.seed, r.test_loss});
    over[r.model].push_back({static_cast<double>(r.size), r.seed, r.excess()});
  }
  const std::string quantity =
      excess ? "excess loss (test − Bayes floor)" : "test loss (the task has no Bayes floor)";
  ClaimVerdict v;
  v.claim = better + " has a steeper exponent than " + than + ": its " + quantity +
            " ≈ a·N^−b falls faster with N (b fitted per seed, the seeds' b compared pairwise by "
            "an exact sign test).";
  if (raw.count(better) == 0 || raw.count(than) == 0) {
    v.detail = "no usable runs of both " + better + " and " + than;
    return v;
  }
  if (static_cast<int64_t>(sizes.size()) < kPowerLawMinSizes) {
    v.detail = "no exponent: a power law needs " + std::to_string(kPowerLawMinSizes) +
               " training-set sizes or more; this sweep has " + std::to_string(sizes.size());
    return v;
  }
  const auto& points = excess ? over : raw;
  const PowerLawFit mine = fitPowerLawPerSeed(points.at(better));
  const PowerLawFit theirs = fitPowerLawPerSeed(points.at(than));
  std::map<uint64_t, double> their_b;
  for (size_t k = 0; k < theirs.seed_ids.size(); ++k)
    their_b[theirs.seed_ids[k]] = theirs.seed_b[k];
  std::vector<double> d;
  int steeper = 0, flatter = 0, ties = 0;
  for (size_t k = 0; k < mine.seed_ids.size(); ++k) {
    const auto other = their_b.find(mine.seed_ids[k]);
    if (other == their_b.end()) continue;
    d.push_back(mine.seed_b[k] - other->second);
    steeper += d.back() > 0;
    flatter += d.back() < 0;
    ties += d.back() == 0;
  }
  const auto bText = [](const PowerLawFit& f) {
    return "b = " + formatNumber(f.b, 3) +
           (f.seeds() >= 2
                ? " [" + formatNumber(f.b_low, 3) + ", " + formatNumber(f.b_high, 3) + "]"
                : std::string()) +
           " over " + std::to_string(f.seeds()) + " seeds";
  };
  const int n = steeper + flatter;
  const double p = signTestPValue(steeper, n);
  const PairedDifference mean = meanWithInterval(d);
  v.decided = n > 0 && p < kClaimAlpha;
  v.holds = v.decided && steeper > flatter;
  v.inconclusive = n > 0 && !v.decided;
  v.deciding = "steeper on " + std::to_string(steeper) + " of " + std::to_string(n) +
               " seeds, p = " + formatNumber(p, 2);
  v.detail = better + " steeper on " + std::to_string(steeper) + " of " + std::to_string(n) +
             " seeds" + (ties ? " (" + std::to_string(ties) + " exact ties left out)" : "") +
             ", sign test p = " + formatNumber(p, 2) + "; " + better + " " + bText(mine) + ", " +
             than + " " + bText(theirs) + " (mean over seeds, 95 % t interval); difference " +
             formatNumber(mean.mean, 3) + " (" + regimeIntervalText(mean, "seeds") + ")";
  if (n > 0 && n < kSignTestMinSeeds)
    v.detail +=
        "; " + std::to_string(n) + " seeds cannot reach p < " + formatNumber(kClaimAlpha, 2);
  if (n == 0)
    v.detail = v.deciding = "no seed with an exponent (" + std::to_string(kPowerLawMinSizes) +
                            "+ sizes with a positive " + quantity + ") for both " + better +
                            " and " + than;
  return v;
}

namespace {

// The last layer's one-map fixed point of a record (LayerInspection::fixed_point_*); none when it
// was not recorded.
const LayerInspection* lastLayerFixedPoint(const InspectionRecord* record) {
  if (!record || record->layers.empty()) return nullptr;
  const LayerInspection& last = record->layers.back();
  if (last.fixed_point_iterations <= 0 || !std::isfinite(last.fixed_point_distance)) return nullptr;
  return &last;
}

std::string fixedPointClaim() {
  return "StarSaber's output sits nearer the fixed point of its last layer's own map than the "
         "untrained model's: ‖h^L − h*‖ / ‖h*‖, h* = F(h*) for F(h) = tanh(A^L(h) + V^L x) with "
         "the last layer's weights, found by iterating F from h^L (at most " +
         std::to_string(kFixedPointIterations) + " iterations, to a relative step ≤ " +
         formatNumber(kFixedPointTolerance) +
         "), against the untrained model with the same initialisation; the seed is the unit.";
}

std::string shareText(int64_t k, int64_t n) {
  return std::to_string(k) + " of " + std::to_string(n) + " samples";
}

}  // namespace

ClaimVerdict fixedPointVerdict(const std::vector<const InspectionRecord*>& trained,
                               const std::vector<const InspectionRecord*>& control) {
  ClaimVerdict v;
  v.claim = fixedPointClaim();
  int64_t n = 0, converged = 0, controls = 0, control_converged = 0;
  std::vector<double> log_ratio, distances, control_distances;
  for (size_t k = 0; k < trained.size(); ++k) {
    const LayerInspection* t = lastLayerFixedPoint(trained[k]);
    if (!t) continue;
    ++n;
    converged += t->fixed_point_converged;
    if (t->fixed_point_converged) distances.push_back(std::log(t->fixed_point_distance));
    const LayerInspection* c = k < control.size() ? lastLayerFixedPoint(control[k]) : nullptr;
    if (!c) continue;
    ++controls;
    control_converged += c->fixed_point_converged;
    if (c->fixed_point_converged) control_distances.push_back(std::log(c->fixed_point_distance));
    if (t->fixed_point_converged && c->fixed_point_converged && t->fixed_point_distance > 0 &&
        c->fixed_point_distance > 0)
      log_ratio.push_back(std::log(t->fixed_point_distance / c->fixed_point_distance));
  }
  if (n == 0) {
    v.detail =
        "needs StarSaber records with the last layer's fixed point (recorded since "
        "2026-11-29)";
    return v;
  }
  const auto geometricMean = [](const std::vector<double>& logs) {
    double sum = 0;
    for (double x : logs) sum += x;
    return std::exp(sum / static_cast<double>(logs.size()));
  };
  v.measures["converged_share"] = static_cast<double>(converged) / static_cast<double>(n);
  v.detail = "the last layer's map converged on " + shareText(converged, n);
  if (!distances.empty())
    v.detail += ", distance " + formatNumber(geometricMean(distances)) + " (geometric mean)";
  if (2 * converged <= n) {
    v.decided = true;
    v.detail += ": no fixed point to approach";
    return v;
  }
  if (controls == 0) {
    v.detail += "; no untrained control with the fixed point recorded";
    return v;
  }
  v.measures["control_converged_share"] =
      static_cast<double>(control_converged) / static_cast<double>(controls);
  v.detail += "; untrained control converged on " + shareText(control_converged, controls);
  if (!control_distances.empty())
    v.detail += ", distance " + formatNumber(geometricMean(control_distances));
  if (2 * static_cast<int64_t>(log_ratio.size()) <= n) {
    v.detail += "; both converged on " + shareText(static_cast<int64_t>(log_ratio.size()), n) +
                ": too few to compare";
    return v;
  }
  double mean = 0;
  for (double x : log_ratio) mean += x;
  mean /= static_cast<double>(log_ratio.size());
  v.measures["log_ratio"] = mean;
  v.detail += "; trained / control " + formatNumber(std::exp(mean)) + " (geometric mean over " +
              shareText(static_cast<int64_t>(log_ratio.size()), n) +
              " where both converged); one seed: the claim is judged over seeds";
  v.inconclusive = true;
  return v;
}

ClaimVerdict fixedPointVerdict(const InspectionRecord& trained, const InspectionRecord* control) {
  return fixedPointVerdict({&trained}, control ? std::vector<const InspectionRecord*>{control}
                                               : std::vector<const InspectionRecord*>{});
}

ClaimVerdict fixedPointSeedsVerdict(const std::vector<std::map<std::string, double>>& seeds) {
  ClaimVerdict v;
  v.claim = fixedPointClaim();
  int64_t measured = 0, no_fixed_point = 0;
  std::vector<double> log_ratio;
  for (const auto& m : seeds) {
    const auto share = m.find("converged_share");
    if (share == m.end()) continue;
    ++measured;
    if (2 * share->second <= 1) ++no_fixed_point;
    const auto r = m.find("log_ratio");
    if (r != m.end() && std::isfinite(r->second)) log_ratio.push_back(r->second);
  }
  const auto seedsText = [](int64_t k, int64_t n) {
    return std::to_string(k) + " of " + std::to_string(n) + " seeds";
  };
  if (measured == 0) {
    v.detail = "no seed with the one-map measures (runs recorded before 2026-11-29)";
    return v;
  }
  v.detail = "the last layer's map converged on most samples in " +
             seedsText(measured - no_fixed_point, measured);
  if (2 * no_fixed_point >= measured) {
    v.decided = true;
    v.detail += ": no fixed point to approach";
    return v;
  }
  const PairedDifference d = meanWithInterval(log_ratio);
  v.detail += "; log(trained / control distance) per seed " +
              joined(log_ratio, ", ", [](double x) { return formatNumber(x); }) + ", mean " +
              formatNumber(d.mean) + " (" + regimeIntervalText(d, "seeds") + "), ratio " +
              formatNumber(std::exp(d.mean));
  if (!d.judged()) return v;
  if (d.above0()) {
    v.decided = true;
    v.detail += ": the trained output is farther from its map's fixed point than the control's";
  } else if (d.below0() && no_fixed_point == 0) {
    v.decided = v.holds = true;
  } else {
    v.inconclusive = true;
    if (no_fixed_point > 0)
      v.detail += "; " + seedsText(no_fixed_point, measured) + " without a fixed point";
  }
  return v;
}

std::optional<ClaimVerdict> overSeedsVerdict(
    ClaimRule rule, const std::vector<std::map<std::string, double>>& seeds) {
  if (rule == ClaimRule::FixedPoint) return fixedPointSeedsVerdict(seeds);
  return std::nullopt;
}

ClaimVerdict linearRnnVerdict(double max_error, int64_t values, double tolerance) {
  ClaimVerdict v;
  v.claim = "A linear RNN is a sum of REMs: h = Z + Σ REM terms equals the recurrence.";
  v.decided = values > 0 && std::isfinite(max_error);
  v.holds = v.decided && max_error <= tolerance;
  v.detail = "max |recurrence − REM sum| = " + formatNumber(max_error) + " over " +
             std::to_string(values) + " values (tolerance " + formatNumber(tolerance) + ")";
  return v;
}

ClaimVerdict linearRnnDemoVerdict(unsigned seed) {
  const LinearRnnDemo demo = LinearRnnDemo::random(seed);
  return linearRnnVerdict(demo.maxError(), int64_t{demo.T} * LinearRnnDemo::kN);
}

namespace {

ClaimVerdict recoverVerdict(const InspectionRecord& record, const GroundTruth& truth,
                            int64_t length) {
  ClaimVerdict v;
  v.claim = "An RSA head recovers the recurrence that generated its data (every REM within " +
            formatNumber(kRecoveryTolerance) + ").";
  const auto matches = matchRems(record, truth, length);
  double worst = 0;
  int matched = 0;
  for (const auto& m : matches) {
    if (!m.match.matched) continue;
    ++matched;
    worst = std::max(worst, m.match.maxDelta());
  }
  v.decided = !matches.empty();
  v.holds = remsRecovered(matches);
  v.detail = std::to_string(matched) + " of " + std::to_string(matches.size()) +
             " REM head(s) matched; largest parameter difference " + formatNumber(worst);
  return v;
}

std::vector<ClaimVerdict> judgeRecover(const ClaimEvidence& e) {
  if (!e.record || !e.truth) return {};
  return {recoverVerdict(*e.record, *e.truth, e.length)};
}

std::vector<ClaimVerdict> judgeFixedPoint(const ClaimEvidence& e) {
  if (!e.records.empty()) return {fixedPointVerdict(e.records, e.controls)};
  if (!e.record) return {};
  return {fixedPointVerdict(*e.record, e.control)};
}

std::vector<ClaimVerdict> judgeLinearRnn(const ClaimEvidence&) { return {linearRnnDemoVerdict()}; }

std::vector<ClaimVerdict> judgeLinearAttention(const ClaimEvidence& e) {
  if (!e.probe) return {};
  return linearAttentionRnnVerdicts(*e.probe);
}

std::vector<ClaimVerdict> judgeSampleEfficiency(const ClaimEvidence& e) {
  if (!e.rows) return {};
  return {sampleEfficiencyVerdict(*e.rows, "rsa", "transformer"),
          exponentVerdict(*e.rows, "rsa", "transformer")};
}

// RSA against the Transformer at every horizon the multivariate full-data runs have.
std::vector<ClaimVerdict> judgePaperTable(const ClaimEvidence& e) {
  if (!e.paper_runs) return {};
  std::vector<int64_t> horizons;
  for (const auto& r : *e.paper_runs)
    if (r.features == "M" && r.train_fraction == 1.0 &&
        std::find(horizons.begin(), horizons.end(), r.horizon) == horizons.end())
      horizons.push_back(r.horizon);
  std::sort(horizons.begin(), horizons.end());
  std::vector<ClaimVerdict> out;
  for (int64_t h : horizons) out.push_back(horizonVerdict(*e.paper_runs, "rsa", "transformer", h));
  if (out.empty()) out.push_back(horizonVerdict(*e.paper_runs, "rsa", "transformer", 0));
  return out;
}

std::vector<ClaimVerdict> judgeSameRecurrence(const ClaimEvidence& e) {
  if (!e.rows) return {};
  return {sameRecurrenceVerdict(*e.rows)};
}

std::vector<ClaimVerdict> judgeFigure1(const ClaimEvidence& e) {
  if (!e.rows) return {};
  return figure1Verdicts(buildRegimeMap(regimePoints(*e.rows)));
}

std::vector<ClaimVerdict> judgeSelectiveDecay(const ClaimEvidence& e) {
  if (!e.rows) return {};
  return {selectiveDecayVerdict(*e.rows)};
}

std::vector<ClaimVerdict> judgePlacement(const ClaimEvidence& e) {
  if (!e.rows) return {};
  return placementVerdicts(buildRegimeMap(regimePoints(*e.rows)));
}

std::vector<ClaimVerdict> judgeFamilySampleEfficiency(const ClaimEvidence& e) {
  if (!e.rows) return {};
  return familySampleEfficiencyVerdicts(*e.rows);
}

}  // namespace

const std::vector<ClaimRuleInfo>& claimRules() {
  static const std::vector<ClaimRuleInfo> table = {
      {ClaimRule::Recover, "recover", ClaimInput::RunRecord,
       "every REM head matches a true component within kRecoveryTolerance",
       "a REM head matches no true component within the tolerance", "never (no spread to weigh)",
       judgeRecover},
      {ClaimRule::FixedPoint, "fixed-point", ClaimInput::RunRecord,
       "over seeds: the 95 % interval of log(trained / control distance to the last layer's "
       "fixed point) lies below 0, and every seed's map converges on most samples",
       "the map does not converge on most samples in half the seeds or more (no fixed point to "
       "approach), or that interval lies above 0",
       "the interval covers 0 (a single run is always inconclusive: the seed is the unit)",
       judgeFixedPoint},
      {ClaimRule::LinearRnn, "linear-rnn", ClaimInput::Computed,
       "the recurrence and its REM sum agree to 1e-9", "they differ by more than 1e-9",
       "never (computed exactly)", judgeLinearRnn},
      {ClaimRule::LinearAttention, "linear-attention", ClaimInput::Probe,
       "see linearAttentionRnnVerdicts (engine/core/verdicts/generation_claim.h)",
       "see linearAttentionRnnVerdicts", "see linearAttentionRnnVerdicts", judgeLinearAttention},
      {ClaimRule::SampleEfficiency, "rsa>transformer", ClaimInput::SweepRows,
       "two claims kept apart, each by an exact sign test over seeds at p < kClaimAlpha: lower "
       "loss on average over N (rsa's mean log test loss over N lower on most seeds), and a "
       "steeper exponent (rsa's b of the excess loss, fitted per seed, larger on most seeds)",
       "the transformer lower (steeper) on most seeds, p < kClaimAlpha",
       "seeds, but p >= kClaimAlpha (fewer than 6 seeds cannot decide)", judgeSampleEfficiency},
      {ClaimRule::Figure1, "figure1", ClaimInput::SweepRows,
       "a claim's model wins its share of its region outright",
       "its wins plus every tie it is in would not reach the share", "the ties decide it",
       judgeFigure1},
      {ClaimRule::PaperTable, "paper-table", ClaimInput::PaperRuns,
       "per horizon: rsa's test MSE below the transformer's on most seeds, sign test over seeds "
       "p < kClaimAlpha",
       "per horizon: the transformer's lower on most seeds, p < kClaimAlpha",
       "seeds, but p >= kClaimAlpha (fewer than 6 seeds cannot decide)", judgePaperTable},
      {ClaimRule::SameRecurrence, "same-recurrence", ClaimInput::SweepRows,
       "each model's mean recovered decay is within its seeds' 95 % half-width + "
       "kRecoveryTolerance of the true λ, with half-widths <= kSameRecurrenceWidth",
       "a model's mean is further from λ than its half-width + kRecoveryTolerance, or the task "
       "has no regular λ",
       "no model misses λ, but a model's seeds spread wider than kSameRecurrenceWidth",
       judgeSameRecurrence},
      {ClaimRule::SelectiveDecay, "selective-decay", ClaimInput::SweepRows,
       "every model's memory horizon grows with the share a: the 95 % interval over seeds of its "
       "log-horizon slope lies above 0",
       "a model's horizon is flat or falls: that interval lies below log kHorizonGrowth",
       "no model is flat, but some model's interval covers 0", judgeSelectiveDecay},
      {ClaimRule::Placement, "placement", ClaimInput::SweepRows,
       "in most high-share, small-N cells rsa's paired interval lies below every rival's "
       "(alibi, fox, retnet)",
       "in most of them some rival's paired interval lies below rsa's",
       "neither reaches most cells", judgePlacement},
      {ClaimRule::FamilySampleEfficiency, "family-sample-efficiency", ClaimInput::SweepRows,
       "per model, two claims kept apart, each by an exact sign test over seeds at p < "
       "kClaimAlpha: lower loss on average over N than the transformer, and a steeper exponent "
       "of the excess loss (fitted per seed)",
       "per model and claim: the transformer lower (steeper) on most seeds, p < kClaimAlpha",
       "seeds, but p >= kClaimAlpha", judgeFamilySampleEfficiency},
  };
  return table;
}

const ClaimRuleInfo& claimRuleInfo(ClaimRule rule) {
  for (const auto& r : claimRules())
    if (r.rule == rule) return r;
  throw std::logic_error("a ClaimRule without a row in claimRules()");
}

const char* claimRuleName(ClaimRule rule) { return claimRuleInfo(rule).name; }

std::optional<ClaimRule> parseClaimRule(const std::string& name) {
  for (const auto& r : claimRules())
    if (name == r.name) return r.rule;
  return std::nullopt;
}

std::vector<ClaimVerdict> judgeClaim(ClaimRule rule, const ClaimEvidence& evidence) {
  return claimRuleInfo(rule).judge(evidence);
}

}  // namespace rsalab
