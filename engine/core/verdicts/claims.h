// SPDX-License-Identifier: GPL-3.0-or-later
// Claims from the seed papers checked on measured data: each preset's verdict ("holds: RSA's excess
// loss is below the Transformer's at 4 of 5 N, 3 seeds" or "does not hold here"), computed from
// what its run or sweep produced, never written in advance. Plain C++ (core library).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/presets.h"
#include "engine/core/verdicts/regime_map.h"

namespace rsalab {

// A claim checked on measured data: holds or not, and the counts that say so.
struct ClaimVerdict {
  std::string claim;     // one sentence
  bool decided = false;  // enough data to judge (otherwise `detail` says what is missing)
  bool holds = false;
  // Not decided although there are data: the evidence does not separate the two sides (a test's
  // p-value, an interval covering 0). Printed "inconclusive", not "undecided".
  bool inconclusive = false;
  std::string detail;  // "rnn wins 3 of 4 cells with a ≥ 0.75 and N ≤ 256 (1 tie)"
  // The number that decided it, short ("3 of 4 cells won outright", "6 of 6 seeds, p = 0.031"):
  // the claims-by-process table's cell (engine/core/verdicts/claims_by_process.h). Empty for the
  // rules that table does not show.
  std::string deciding;
  // Numbers a rule over seeds reads back from each run's verdicts (fixedPointVerdict's); kept in
  // the run's verdicts.json.
  std::map<std::string, double> measures;
};

// The RSA paper's Figure 1, three claims on the map (each where its models are on it):
//  1. a recurrent model (rnn, lstm or gru) wins where the signal is recurrent and data scarce:
//     the cells with the top third of axis values ((n + 1) / 3 of them: 0.75 and 1 of five
//     shares) and the lower half of sizes (the smallest n / 2);
//  2. the Transformer wins where the signal is not recurrent and data plentiful: the bottom
//     third of axis values and the upper half of sizes;
//  3. RSA does well across the plane: it wins outright in at least 3/4 of all cells.
// "Wins" is the winner rule's Winner verdict (a 95 % paired interval above 0). Ties are ties: a
// claim holds when the outright wins reach its share (more than half of the region for 1 and 2),
// does not hold when the wins plus every tie its model is in would not reach it, and is
// inconclusive in between.
std::vector<ClaimVerdict> figure1Verdicts(const RegimeMap& map);
// Figure 1 on one of its corners alone (a sweep of the claim's region only, e.g. a tuned corner):
// the corner's claim (1 for the recurrent corner, 2 for the Transformer's) over every cell of the
// map, and RSA's 3/4 claim over the corner's cells (figure1_claims.cpp).
std::vector<ClaimVerdict> figure1CornerVerdicts(const RegimeMap& map, bool recurrent_corner);
// Sample efficiency as two claims, kept apart because they can disagree (a model lower at small
// N, where the mean log-loss is decided, can be higher at the largest N).
// 1. "`better` has lower loss on average over N than `than`", over independent seeds: each seed
// gives one summary, the mean over the N where both ran of log(test loss of `better` / of `than`)
// (the (N, seed) pairs of a seed share its test set and initialisation, and a smaller N's data is
// part of a larger N's, so they are not independent). An exact two-sided sign test over the
// seeds' summaries (exact ties left out): holds when `better` is lower on most seeds with
// p < kClaimAlpha, does not hold when `than` is, inconclusive otherwise. The fewest seeds that can
// decide at 0.05 is kSignTestMinSeeds, all agreeing (p = 2/64).
ClaimVerdict sampleEfficiencyVerdict(const std::vector<SweepRow>& rows, const std::string& better,
                                     const std::string& than);
// 2. "`better` has a steeper exponent than `than`": b of loss ≈ a·N^(−b) fitted per seed
// (fitPowerLawPerSeed) on the excess loss (test − Bayes floor) where every run knows its floor,
// on the test loss otherwise (near the floor the test loss flattens, so its b mostly measures the
// floor); the seeds' b paired and compared by the same exact sign test (holds when `better`'s is
// larger on most seeds with p < kClaimAlpha, does not hold when `than`'s is, inconclusive
// otherwise). Undecided with fewer than kPowerLawMinSizes sizes (it says so).
ClaimVerdict exponentVerdict(const std::vector<SweepRow>& rows, const std::string& better,
                             const std::string& than);
constexpr int kSignTestMinSeeds = 6;
constexpr double kClaimAlpha = 0.05;
// P(|wins − n/2| ≥ |k − n/2|) for k wins of n fair coin flips: the exact two-sided sign test.
double signTestPValue(int wins, int n);

// "StarSaber's output sits near the fixed point of its own last layer's map". The StarSaber paper
// derives its layers from the bidirectional RNN's equation h = tanh(A(h) + V x), calls iterating
// it to convergence "hardly possible" without constraints, and takes one relaxed step per layer
// with that layer's own weights, h^{l+1} = h^l + α_l·tanh(A^l(h^l) + V^l x). Each layer thus has
// its own map, and residuals of different layers compare different equations; this rule takes
// one map, the last layer's F(h) = tanh(A^L(h) + V^L x), iterates it from the stack's output h^L
// (LayerInspection::fixed_point_*: kFixedPointIterations at most, to a relative step ≤
// kFixedPointTolerance) and measures ‖h^L − h*‖ / ‖h*‖, against the untrained control (the same
// initialisation, its own last layer's map, the same samples).
// Per run (fixedPointVerdict, over the validation samples given):
//  - does not hold ("no fixed point to approach"): F converged on at most half of the samples;
//  - undecided: no record with the fixed point, no control, or fewer than half the samples with
//    both maps converged;
//  - otherwise inconclusive: one seed cannot decide. `measures` keeps converged_share,
//    control_converged_share and log_ratio (the mean over the paired samples of
//    log(trained / control distance)) for the rule over seeds.
// Over seeds (fixedPointSeedsVerdict, on each seed's measures): does not hold when half the seeds
// or more have no fixed point to approach, or when the 95 % t interval of the seeds' log_ratio
// lies above 0; holds when it lies below 0 and every seed has a fixed point; inconclusive
// otherwise; undecided with fewer than 2 seeds' ratios.
ClaimVerdict fixedPointVerdict(const std::vector<const InspectionRecord*>& trained,
                               const std::vector<const InspectionRecord*>& control);
ClaimVerdict fixedPointVerdict(const InspectionRecord& trained, const InspectionRecord* control);
ClaimVerdict fixedPointSeedsVerdict(const std::vector<std::map<std::string, double>>& seeds);
// How many validation samples a run preset's record rules are judged on (the CLI's train --preset).
constexpr int64_t kClaimSamples = 8;

// "A linear RNN is a sum of REMs": the recurrence and its REM decomposition agree to `tolerance`
// (max |difference| `max_error` over `values` numbers, computed by the caller in double).
ClaimVerdict linearRnnVerdict(double max_error, int64_t values, double tolerance = 1e-9);
// The same on LinearRnnDemo::random(seed) (engine/core/verdicts/linear_rnn_demo.h), computed now.
ClaimVerdict linearRnnDemoVerdict(unsigned seed = 1);

// ---- The claim rules: one row per ClaimRule (engine/core/verdicts/presets.h), read by every
// preset.

struct LinearAttentionRnnProbe;  // engine/core/verdicts/generation_claim.h
struct PaperRun;                 // engine/core/verdicts/paper_table.h

// What a claim is judged on; each rule reads its part and returns no verdict without it.
struct ClaimEvidence {
  // A trained run: its last inspection record (validation sample), its task's truth and length,
  // and the control: the same run's untrained model (its step-0 record of the same sample).
  const InspectionRecord* record = nullptr;
  const InspectionRecord* control = nullptr;
  // More validation samples of the same run and its control (the fixed-point rule averages over
  // them); empty: `record` and `control` alone.
  std::vector<const InspectionRecord*> records, controls;
  const GroundTruth* truth = nullptr;
  int64_t length = 0;
  const std::vector<SweepRow>* rows = nullptr;        // a sweep's rows
  const LinearAttentionRnnProbe* probe = nullptr;     // the generation probe's measurement
  const std::vector<PaperRun>* paper_runs = nullptr;  // the paper table's runs
};

// What a rule reads (ClaimEvidence's part), matching its preset's PresetAction.
enum class ClaimInput { RunRecord, SweepRows, Computed, Probe, PaperRuns };

struct ClaimRuleInfo {
  ClaimRule rule;
  const char* name;  // recover | fixed-point | linear-rnn | linear-attention | rsa>transformer | …
  ClaimInput input;
  // The outcome tests, in words: when the claim holds, does not hold, and is inconclusive.
  const char* holds;
  const char* fails;
  const char* inconclusive;
  std::vector<ClaimVerdict> (*judge)(const ClaimEvidence& evidence);
};
const std::vector<ClaimRuleInfo>& claimRules();
const ClaimRuleInfo& claimRuleInfo(ClaimRule rule);
const char* claimRuleName(ClaimRule rule);
std::optional<ClaimRule> parseClaimRule(const std::string& name);
// The verdicts of `rule` on `evidence` (its row's judge); empty when the evidence lacks its part.
std::vector<ClaimVerdict> judgeClaim(ClaimRule rule, const ClaimEvidence& evidence);

// A single-run rule's verdict over its seeds, from each run's ClaimVerdict::measures (the
// fixed-point rule's); none for the other rules.
std::optional<ClaimVerdict> overSeedsVerdict(
    ClaimRule rule, const std::vector<std::map<std::string, double>>& seeds);

// "holds: …", "does not hold here: …", "undecided: …" — one line per verdict. With a ground
// (claimGround: where it was measured), "holds on RSA's home ground (rem): …", "does not hold on
// the power process: …".
std::string verdictLine(const ClaimVerdict& verdict, const std::string& ground = "");
// "holds", "does not hold", "inconclusive" or "undecided" (the outcome alone, no "here").
const char* verdictOutcome(const ClaimVerdict& verdict);
// Where a claim on `task` was measured: "on RSA's home ground (rem)" when the task reads a
// teacher process (readsTeacherProcess) and it is rem, "on the power process" for another, ""
// for a task without one.
std::string claimGround(const std::string& task, TeacherProcess process);

}  // namespace rsalab
