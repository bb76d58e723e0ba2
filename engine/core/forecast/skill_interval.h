// SPDX-License-Identifier: GPL-3.0-or-later
// How sure a skill is: a paired moving-block bootstrap interval of skill = 1 − MSE_model /
// MSE_anchor over the test targets, and the Diebold–Mariano test of equal accuracy with the
// Harvey–Leybourne–Newbold small-sample correction beside it. Plain C++ (rsalab_core).
//
// The unit is one target (one forecast origin): its error is the mean of e² over the target's
// steps and columns, so a forecaster's test MSE is the mean of its per-target errors.
//
// The bootstrap (Künsch 1989; circular, Politis & Romano 1992): the n targets are read as blocks
// of b consecutive targets, b = max(horizon, season) (at most n), so that the dependence within a
// block — an H-step forecast's overlapping targets, a season's pattern — is kept. A resample
// joins ⌈n / b⌉ blocks with starts drawn uniformly from 0 .. n − 1, a block running past the last
// target wrapping round to the first (so every target is drawn equally often: without the wrap
// the first and last targets of a 23-target test part in blocks of 12 were drawn far less often,
// and the interval was not centred on the skill), and keeps its first n targets. Both
// forecasters are scored on the SAME resampled targets (paired), and the statistic is the skill
// of the resample. 2,000 resamples from a fixed seed; the interval is the 2.5 % and 97.5 %
// percentiles (type 7).
//
// Diebold & Mariano (1995): d_t = e_model,t − e_anchor,t, d̄ its mean, V = γ₀ + 2 Σ_{k=1}^{h−1} γ_k
// (the autocovariances of d up to lag h − 1, h the horizon; γ₀ alone when that sum is not
// positive), DM = d̄ / √(V / n). Harvey, Leybourne & Newbold (1997) scale it by
// √((n + 1 − 2h + h(h − 1)/n) / n) and read it against Student's t with n − 1 degrees of freedom;
// the p-value is two-sided (GSL's t distribution).
//
// The words: a model "beats" the reference when the whole interval lies above 0, "loses" when it
// lies below, and otherwise "ties".
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/forecast/metrics.h"

namespace rsalab {

enum class SkillVerdict { Beats, Ties, Loses };
const char* skillVerdictName(SkillVerdict verdict);  // beats | ties | loses
std::optional<SkillVerdict> parseSkillVerdict(const std::string& name);

struct SkillInterval {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  double skill = kNaN;             // 1 − MSE_model / MSE_anchor on all targets
  double low = kNaN, high = kNaN;  // the 95 % bootstrap interval of the skill
  double dm_statistic = kNaN;      // HLN-corrected; < 0: the model's errors are smaller
  double dm_p = kNaN;              // two-sided
  int64_t targets = 0, block = 0, resamples = 0;
  bool valid() const { return targets > 1 && low == low && high == high; }
  // beats (low > 0) | loses (high < 0) | ties; Ties when not valid.
  SkillVerdict verdict() const;
  // "+0.123 [−0.050, +0.301], DM p = 0.21: ties" (n/a when not valid).
  std::string text(int digits = 3) const;
};

constexpr int kSkillResamples = 2000;

// The paired interval of the model's skill against a reference, from per-target errors of equal
// length. Invalid (NaN) when the lengths differ, there are fewer than 2 targets, or a value is not
// finite. `block` < 1 is taken as 1; deterministic for a `seed`.
SkillInterval pairedSkillInterval(const std::vector<double>& model_errors,
                                  const std::vector<double>& anchor_errors, int64_t block,
                                  int64_t horizon, int resamples = kSkillResamples,
                                  uint64_t seed = 0x5eed5eedULL);

// The block length of the rule: max(horizon, season), at least 1.
int64_t skillBlockLength(int64_t horizon, int64_t season);

// The headline's interval: against the best reference of `references` (bestAnchor, chosen on
// validation), whose ReferenceScore::test_errors must hold its per-target errors.
SkillInterval skillIntervalVersusBest(const std::vector<double>& model_errors,
                                      const std::vector<ReferenceScore>& references,
                                      int64_t horizon, int64_t season);

// MASE's denominator per column: the in-sample seasonal-naive mean absolute error of rows
// [0, train_end) of an (L, C) row-major series, mean |z_t − z_{t−P}| over t = P .. train_end − 1
// (P = 1 without a season, or when the train part is shorter than P + 1 rows). A column whose
// denominator is 0 (constant) gets 1.
std::vector<double> maseScales(const std::vector<double>& values, int64_t columns,
                               int64_t train_end, int64_t period);

}  // namespace rsalab
