// SPDX-License-Identifier: GPL-3.0-or-later
// The recurrence-in-attention family's claims (docs/FAMILY.md), judged over seeds on a sweep's
// rows with the verdict machinery of claims.h and regime_map.h. Plain C++ (core library).
//
// 1. "Selective decay follows the recurrent share" (selectiveDecayVerdict): on the mix task swept
//    along Figure 1's share axis a, the models whose decay depends on the token (Mamba-2's a_t,
//    GLA's α_t, FoX's f_t) should remember further back as more of the target is recurrent. A
//    run's memory horizon is 1 / (1 − ā), ā the mean over its heads of each head's median decay
//    (SweepRow::regular_decays, validation sample 0). Per model and seed, the least-squares slope
//    of log horizon on a (over the shares that seed ran: the log of the factor by which the
//    horizon grows from a = 0 to a = 1); over the seeds, its mean with a 95 % t interval
//    (meanWithInterval). A model's horizon grows when that interval lies above 0; it is flat (or
//    falls) when the interval lies below log kHorizonGrowth (not even a 25 % growth over the
//    axis). The claim holds when every model's grows, does not hold when one's is flat, and is
//    inconclusive otherwise. Undecided: a model with fewer than 2 seeds on 2+ shares.
// 2. "Where the recurrence enters attention matters" (placementVerdict): on Figure 1's grid, RSA
//    (its REM added after the softmax) against ALiBi and FoX (a decay inside the softmax) and
//    RetNet (no softmax). The deciding cells are the figure1 rule's high-share, small-N region
//    (figure1Region: the top third of shares, the smaller half of the sizes). In a cell RSA is
//    ahead when its paired 95 % interval (rival − RSA, over seeds) lies above 0 against every
//    rival there, behind when some rival's lies below RSA's (the interval below 0). Holds when
//    RSA is ahead in most deciding cells, does not hold when it is behind in most, inconclusive
//    otherwise. Undecided: a deciding cell without 2 paired seeds for each rival.
// 3. "Sample efficiency across the family" (familySampleEfficiencyVerdicts): every model of the
//    sweep against `than` (the Transformer), two named claims kept apart: "lower loss on average
//    over N" (sampleEfficiencyVerdict: an exact sign test over seeds on the mean log-loss
//    difference across N) and "a steeper exponent" (exponentVerdict: b of the excess loss ≈
//    a·N^(−b) fitted per seed, the seeds' b compared by an exact sign test), in that order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/regime_map.h"

namespace rsalab {

// The least growth of the memory horizon over the whole share axis that is not "flat": 25 %.
constexpr double kHorizonGrowth = 1.25;

// A rectangle of a regime map: axis values in [a_lo, a_hi], sizes in [n_lo, n_hi].
struct MapRegion {
  double a_lo = 0, a_hi = 0;
  int64_t n_lo = 0, n_hi = 0;
  bool contains(double axis_value, int64_t size) const;
  std::string text() const;  // "a in [0.75, 1], N in [16, 64]"
};
// The figure1 rule's regions: the top (high_axis) or bottom third of the axis values ((n + 1) / 3
// of them) and the smaller (small_n) or larger half of the sizes (n / 2 of them, at least one).
// Needs 2+ axis values and sizes.
MapRegion figure1Region(const RegimeMap& map, bool high_axis, bool small_n);

// A run's memory horizon 1 / (1 − ā) from its decays (NaN without any; +inf when ā ≥ 1).
double runMemoryHorizon(const std::vector<double>& decays);

ClaimVerdict selectiveDecayVerdict(const std::vector<SweepRow>& rows,
                                   const std::vector<std::string>& models = {"mamba2", "gla",
                                                                             "fox"});
ClaimVerdict placementVerdict(const RegimeMap& map, const std::string& model = "rsa",
                              const std::vector<std::string>& rivals = {"alibi", "fox", "retnet"});
// The placement claim for every choice of models on the map: each model whose card is `model`'s
// (the original and its named variants, "rsa[rem_heads=regular]") against one model per rival
// card (each variant of it in turn), subject by subject; one placementVerdict when the map has
// no variant (and one saying the model is missing when it has none of `model`'s card).
std::vector<ClaimVerdict> placementVerdicts(const RegimeMap& map, const std::string& model = "rsa",
                                            const std::vector<std::string>& rivals = {
                                                "alibi", "fox", "retnet"});
// Two verdicts per model of `rows` other than `than` (lower on average, steeper exponent), in
// first-seen order (one undecided verdict when `than` has no runs).
std::vector<ClaimVerdict> familySampleEfficiencyVerdicts(const std::vector<SweepRow>& rows,
                                                         const std::string& than = "transformer");

}  // namespace rsalab
