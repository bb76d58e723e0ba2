// SPDX-License-Identifier: GPL-3.0-or-later
// Measures the "linear attention is an RNN" claim (engine/core/verdicts/generation_claim.h) live:
//  1. a causal linear-attention Transformer in float64, its parallel forward against its
//     recurrent step, position by position, on the same input;
//  2. generation time per token against the position T, for the linear-attention Transformer by
//     its (S, z) step and for the softmax Transformer by its KV-cache step, same width, heads and
//     layers, B = 1: one pass of steps to `max_position` each, timing every step; the point at T
//     is the median over the `window` steps just before T, at T = 32, 64, … up to max_position.
#pragma once

#include <atomic>
#include <functional>

#include "engine/core/config/model_options.h"
#include "engine/core/verdicts/generation_claim.h"

namespace rsalab {

struct GenerationProbeOptions {
  ModelOptions model;           // d_model, heads, layers (the model name is set per method)
  int64_t max_position = 4096;  // the largest T (at least 32)
  int64_t window = 16;          // steps timed per point
  int64_t check_length = 128;   // T of the parallel == recurrent check (B = 4)
  uint64_t seed = 0;
};

// The positions measured: 32, 64, … doubling, then max_position if it is not a power of two.
std::vector<int64_t> generationPositions(int64_t max_position);

// Runs both parts on the calling thread. `progress` (optional) gets each point as it is
// measured, with the name of the curve's attention kind (attentionKindName: "linear" or
// "softmax"), the form the GUI's signal carries. `stop` (optional) ends the timing early; the
// points measured so far are kept.
LinearAttentionRnnProbe probeLinearAttentionRnn(
    const GenerationProbeOptions& options,
    const std::function<void(const std::string& kind, const GenerationPoint& point)>& progress = {},
    const std::atomic<bool>* stop = nullptr);

}  // namespace rsalab
