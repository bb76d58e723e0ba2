// SPDX-License-Identifier: GPL-3.0-or-later
// How sure a skill is: the Diebold–Mariano test of equal accuracy with the Harvey–Leybourne–
// Newbold small-sample correction, which gives the word, and beside it a paired block bootstrap
// interval of skill = 1 − MSE_model / MSE_anchor over the test targets. Plain C++ (rsalab_core).
//
// The unit is one target (one forecast origin): its error is the mean of e² over the target's
// steps and columns, so a forecaster's test MSE is the mean of its per-target errors.
//
// The word follows one rule: the Diebold–Mariano test below at 5 % (two-sided). A model "beats"
// the reference when DM rejects equal accuracy (p < 0.05) with the model's errors smaller (skill
// > 0), "loses" when it rejects with them larger, and otherwise "ties". A test part of fewer than
// N_min = 2h + 10 targets (h the horizon; 12 at h = 1) gets no word: "too few test targets to
// decide". 2h + 10 is this lab's rule, not a published one: HLN's correction needs n > 2h − 1 to
// be positive, and the 10 beyond it keep the t reference from resting on a handful of
// degrees of freedom. Its calibration is tested (tests/test_skill_interval.cpp): for two equally
// good forecasters with AR(1) errors it says "beats" in at most 10 % of draws at n = 36 and 300.
//
// Diebold & Mariano (1995): d_t = e_model,t − e_anchor,t, d̄ its mean, and its long-run variance
// V = γ₀ + 2 Σ_{k=1}^{L} (1 − k/(L+1)) γ_k, the autocovariances γ_k of d weighted by Bartlett's
// window (Newey & West 1987) up to L = max(h − 1, ⌊4 (n/100)^(2/9)⌋) lags (h the horizon; the
// second term is Newey & West's 1994 rule, 3 lags at n = 36, 5 at n = 300; γ₀ alone when V is not
// positive); DM = d̄ / √(V / n). Harvey, Leybourne & Newbold (1997) scale it by
// √((n + 1 − 2h + h(h − 1)/n) / n) and read it against Student's t with n − 1 degrees of freedom;
// the p-value is two-sided (GSL's t distribution). Without GSL there is no p-value and the word
// is "ties" (no evidence read), never a made-up one. Why the window reaches past h − 1 at h = 1:
// the textbook γ₀ alone (the paired t test) ignores the autocorrelation a misfit leaves in one-step
// errors, and said "beats" for equally good forecasters with AR(1) errors in 5.8 % (coefficient
// 0.5) and 17.9 % (0.8) of 2,000 draws at n = 36; with the window 4.2 % and 8.2 %.
//
// Beside it, shown and not deciding: a paired circular block bootstrap interval (Künsch 1989;
// circular, Politis & Romano 1992) of the skill. The n targets are read as blocks of b
// consecutive targets, b = max(h, round(n^(1/3))) (at most n): the n^(1/3) rate of Hall,
// Horowitz & Jing (1995) for a block bootstrap's variance, and never shorter than a horizon's
// overlapping targets. (It was max(horizon, season): 2–3 blocks on a monthly test part, and one
// block of every target, an interval of zero width, when the season was at least n.) A resample
// joins ⌈n / b⌉ blocks with starts drawn uniformly from 0 .. n − 1, a block running past the last
// target wrapping round to the first, and keeps its first n targets. Both forecasters are scored
// on the SAME resampled targets (paired), and the statistic is the skill of the resample. 2,000
// resamples from a fixed seed; the interval is the 2.5 % and 97.5 % percentiles (type 7). Its
// coverage on short series is below its 95 % (measured in the test), which is why it does not
// give the word.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/forecast/metrics.h"

namespace rsalab {

// TooFew: the test part holds fewer than skillMinTargets(h) targets, and no word is said.
enum class SkillVerdict { Beats, Ties, Loses, TooFew };
// beats | ties | loses | too few test targets to decide
const char* skillVerdictName(SkillVerdict verdict);
std::optional<SkillVerdict> parseSkillVerdict(const std::string& name);

constexpr double kSkillLevel = 0.05;  // the DM test's two-sided level
// N_min of the rule: 2h + 10 targets (h < 1 read as 1).
// L, the number of autocovariance lags of DM's variance for n targets (see above).
int64_t dieboldMarianoLags(int64_t horizon, int64_t targets);
int64_t skillMinTargets(int64_t horizon);

struct SkillInterval {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  double skill = kNaN;             // 1 − MSE_model / MSE_anchor on all targets
  double low = kNaN, high = kNaN;  // the 95 % bootstrap interval of the skill
  double dm_statistic = kNaN;      // HLN-corrected; < 0: the model's errors are smaller
  double dm_p = kNaN;              // two-sided
  int64_t targets = 0, block = 0, resamples = 0;
  int64_t horizon = 1;  // the h of DM's lags and of N_min
  bool valid() const { return targets > 1 && low == low && high == high; }
  // TooFew below skillMinTargets(horizon) targets (and for an empty or invalid interval);
  // otherwise beats (DM p < 0.05, skill > 0) | loses (DM p < 0.05, skill < 0) | ties.
  SkillVerdict verdict() const;
  // "+0.123 [−0.050, +0.301], DM p = 0.21: ties" (n/a when the skill is not finite); the word is
  // verdict()'s, or `word` when given (a row read back from JSON).
  std::string text(int digits = 3, const std::string& word = "") const;
};

constexpr int kSkillResamples = 2000;

// The paired interval of the model's skill against a reference, from per-target errors of equal
// length, with DM beside it. Invalid (NaN) when the lengths differ, there are fewer than 2
// targets, or a value is not finite. `block` < 1 is taken as 1; deterministic for a `seed`.
SkillInterval pairedSkillInterval(const std::vector<double>& model_errors,
                                  const std::vector<double>& anchor_errors, int64_t block,
                                  int64_t horizon, int resamples = kSkillResamples,
                                  uint64_t seed = 0x5eed5eedULL);

// The bootstrap's block length for n targets: max(horizon, round(n^(1/3))), within 1 .. n.
int64_t skillBlockLength(int64_t horizon, int64_t targets);

// The headline's interval: against the best reference of `references` (bestAnchor, chosen on
// validation), whose ReferenceScore::test_errors must hold its per-target errors.
SkillInterval skillIntervalVersusBest(const std::vector<double>& model_errors,
                                      const std::vector<ReferenceScore>& references,
                                      int64_t horizon);

// MASE's denominator per column: the in-sample seasonal-naive mean absolute error of rows
// [0, train_end) of an (L, C) row-major series, mean |z_t − z_{t−P}| over t = P .. train_end − 1
// (P = 1 without a season, or when the train part is shorter than P + 1 rows). A column whose
// denominator is 0 (constant) gets 1.
std::vector<double> maseScales(const std::vector<double>& values, int64_t columns,
                               int64_t train_end, int64_t period);

}  // namespace rsalab
