// SPDX-License-Identifier: GPL-3.0-or-later
// "RetNet and RSA recover the same recurrence", judged over seeds on a sweep's rows.
//
// RSA puts a data-independent regular REM P_ij = λ^(i−j) beside its softmax; RetNet multiplies
// Q K^T by the decay mask D_nm = γ^(n−m). On a teacher whose kernel has a known regular λ, both
// should learn λ if they learn the recurrence the data were generated with. Per trained run (its
// last inspection record, validation sample 0), the model's recovered decay is the learned decay
// of its heads (memory_horizon.h: RSA's |λ|, RetNet's γ_h; a per-token decay by its median)
// nearest to the true λ. Over the seeds of each model: the mean m, and the 95 % t interval
// m ± t·s/√n of the seeds' spread. With tolerance τ = kRecoveryTolerance (ground_truth.h):
//  - a model recovers λ when |m − λ| ≤ half-width + τ and the half-width is at most
//    kSameRecurrenceWidth (the seeds agree);
//  - it misses λ when |m − λ| > half-width + τ (λ lies outside its seeds' spread);
//  - otherwise its seeds disagree too much to say.
// The claim holds when every model recovers λ, does not hold when one misses it, and is
// inconclusive otherwise. A task with no regular λ (no recurrence to recover) does not hold.
// Undecided: a model with fewer than 2 seeds that trained and were inspected.
#pragma once

#include <string>
#include <vector>

#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/claims.h"

namespace rsalab {

// The widest 95 % half-width over seeds at which a model's recovery still counts as agreement.
constexpr double kSameRecurrenceWidth = 0.05;

// One model's recovered decays over the seeds.
struct RecoveredDecay {
  std::string model;
  std::vector<double> values;  // one per seed
  double mean = 0, half_width = 0;
};

// The recovered decay: of `decays` (a run's regular decays), the one nearest to `lambda`; NaN
// when there is none. The record's form reads regularDecays(record).
double recoveredDecay(const std::vector<double>& decays, double lambda);
double recoveredDecay(const InspectionRecord& record, double lambda);

// The verdict over `rows`: trained runs of `models` with their regular_decays, or else their
// inspection records (in the row, or in its run folder's inspection.json).
ClaimVerdict sameRecurrenceVerdict(const std::vector<SweepRow>& rows,
                                   const std::vector<std::string>& models = {"rsa", "retnet"});

}  // namespace rsalab
