// SPDX-License-Identifier: GPL-3.0-or-later
// The blocked softmax attention kernel (with RSA's REMs mixed into its blocks): the one file
// compiled with -fopenmp (see engine/CMakeLists.txt).
#pragma once

#include "engine/kernels/blocked_attention_plan.h"
#include "engine/torch_api.h"

namespace rsalab {

// softmax(q kᵀ·scale + causal mask)·v without materialising the (B, H, T, T) weights: the heads
// are split over the threads and query rows taken in blocks whose scores fit in L2; causal blocks
// skip the keys after their last row; the backward recomputes the weights block by block from
// each row's max and softmax sum kept by the forward (FlashAttention's recomputation). The
// products go straight to the BLAS's gemm, the softmax and its backward are one fused pass per
// row (engine/kernels/softmax_rows.h, a polynomial exp). Same values as
// softmax(q kᵀ·scale + mask)·v up to rounding. q, k, v (B, H, T, Dh) -> (B, H, T, Dh).
// block_values: scores per block (heads × rows × keys); the default was chosen with
// rsalab-bench's "attention block size" lever (docs/PERFORMANCE.md). CPU tensors, float or double.
//
// RSA: with `rems`, heads h < R (of every batch element) use ((1 − g_h)·softmax(...) + g_h·P_h)·v
// instead, mixed into each block's weights before they meet v, so no (R, T, T) REM and no extra
// product with v exist. P_h is Toeplitz, given by its flipped diagonals (RemBuilder::diagonals):
// P_h[i, j] = diagonals[h, T − 1 − i + j]; the backward sums the weights' gradient per diagonal.
struct RemMixing {
  torch::Tensor diagonals;  // (R, 2T − 1)
  torch::Tensor gates;      // (R): g_h = σ(µ_h)
};
constexpr int64_t kAttentionBlockValues = 32 * 1024;
torch::Tensor blockedSoftmaxAttention(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, double scale, bool causal,
                                      const RemMixing& rems = {},
                                      int64_t block_values = kAttentionBlockValues);

// ALiBi and FoX: softmax(q kᵀ·scale + b + causal mask)·v on the same blocks, with an additive bias
// b inside the softmax, never materialised either: per head a distance bias b_ij = −m_h·(i − j)
// (ALiBi's slopes m, (H), no gradient), or per batch element and head a position bias
// b_ij = c_i − c_j (FoX's cumulative log forget gates c, (B, H, T), differentiable: dc_i is row i's
// sum of dS, which is 0, minus column i's). One of the two; q, k, v (B, H, T, Dh) -> (B, H, T, Dh);
// CPU, float or double.
struct ScoreBias {
  torch::Tensor slopes;     // (H): b_ij = −m_h·(i − j)
  torch::Tensor positions;  // (B, H, T): b_ij = c_i − c_j
};
torch::Tensor blockedBiasedAttention(const torch::Tensor& q, const torch::Tensor& k,
                                     const torch::Tensor& v, double scale, bool causal,
                                     const ScoreBias& bias,
                                     int64_t block_values = kAttentionBlockValues);

// StarSaber's attention: W = softmax(q kᵀ·scale + causal mask) with the values split at each
// row's diagonal, out_i = Σ_{j<i} W_ij v_past_j + Σ_{j≥i} W_ij v_future_j, on the same blocks
// (a block's keys before its rows read v_past, after them v_future, the square between splits).
// q, k, v_past, v_future (B, H, T, Dh) -> (B, H, T, Dh); CPU, float or double.
torch::Tensor blockedSplitValueAttention(const torch::Tensor& q, const torch::Tensor& k,
                                         const torch::Tensor& v_past, const torch::Tensor& v_future,
                                         double scale, bool causal,
                                         int64_t block_values = kAttentionBlockValues);

}  // namespace rsalab
