// SPDX-License-Identifier: GPL-3.0-or-later
// StarSaber MLM corruption (seed: starsaber-fixed-point-attention.txt, "Pretraining"): every
// token is replaced with probability p by a token drawn uniformly from the whole vocabulary —
// no [MASK] symbol — and the model predicts the clean token at every position. The trainer
// calls this anew for every training batch (dynamic masking) with the run's own generator; the
// task corrupts validation and test once, with a fixed stream per split.
#pragma once

#include <cstdint>

#include "engine/torch_api.h"

namespace rsalab {

struct MlmCorruption {
  torch::Tensor tokens;    // int64, same shape as the input
  torch::Tensor replaced;  // bool: positions that were redrawn (a redraw may pick the same token)
};

// tokens: int64 ids in [0, vocab), any shape, on any device (drawn on the CPU, returned on the
// tokens' device). Throws std::invalid_argument for p outside [0, 1], vocab < 1 or non-int64.
MlmCorruption corruptForMlmWithMask(const torch::Tensor& tokens, double p, int64_t vocab,
                                    torch::Generator gen);
torch::Tensor corruptForMlm(const torch::Tensor& tokens, double p, int64_t vocab,
                            torch::Generator gen);

}  // namespace rsalab
