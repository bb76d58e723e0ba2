// SPDX-License-Identifier: GPL-3.0-or-later
// "Linear attention is an RNN" (the linear-attention note): its causal parallel form equals its
// recurrent (S, z) step, and generating one token costs the same at every position, while softmax
// attention with a KV cache pays for every position it has seen. The measured data (plain values,
// filled by probeLinearAttentionRnn in engine/training/generation_probe.h) and its verdicts.
// Plain C++ (core library): the CLI, the GUI's "Linear attention = RNN" tab and the tests read it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/core/verdicts/claims.h"

namespace rsalab {

// One generation method at one position T: the median time of a step (one new token through the
// whole model, B = 1) over the `tokens` positions just before T, its quartiles, and the floats the
// method keeps as state after T positions (KV cache rows or (S, z), every layer).
struct GenerationPoint {
  int64_t position = 0;
  double ms_per_token = 0, ms_q1 = 0, ms_q3 = 0;
  int64_t tokens = 0;
  int64_t state_floats = 0;
};

struct GenerationCurve {
  std::string method;  // "linear (S, z) step", "softmax KV-cache step"
  std::vector<GenerationPoint> points;
};

struct LinearAttentionRnnProbe {
  // Parallel (masked) forward against the recurrent step on the same float64 input.
  double max_error = std::numeric_limits<double>::quiet_NaN();
  int64_t values = 0;  // outputs compared
  GenerationCurve linear, softmax;
  std::string model;  // "d128 h8 L4, B = 1"
};

// The growth of a method's time per token over the measured range: a least-squares line
// ms = a + b·T through the points, read at the largest T over the smallest, (a + b·T_max) /
// (a + b·T_min). 1 is flat; a cost linear in T with no overhead gives T_max / T_min. NaN with
// fewer than two points.
double generationGrowth(const GenerationCurve& curve);

// Thresholds of the verdicts below, fixed before any measurement: "flat" is a growth of at most
// 1.5 over the measured range, "grows" one of at least 2 (with T from 32 to 4096 by default).
constexpr double kFlatGrowth = 1.5;
constexpr double kGrowingGrowth = 2.0;
constexpr double kParallelRecurrentTolerance = 1e-9;  // float64

// Two verdicts: (1) parallel == recurrent to kParallelRecurrentTolerance; (2) linear's time per
// token is flat in T while softmax's grows, with the state sizes as the reason (decided with at
// least three positions on both curves).
std::vector<ClaimVerdict> linearAttentionRnnVerdicts(const LinearAttentionRnnProbe& probe);

}  // namespace rsalab
