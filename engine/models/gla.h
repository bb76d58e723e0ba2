// SPDX-License-Identifier: GPL-3.0-or-later
// Gated linear attention: Yang et al., "Gated Linear Attention Transformers with Hardware-Efficient
// Training", arXiv 2312.06635, section 4 (the GLA layer) and section 4.2 (its chunkwise form). It
// takes the place of the attention inside the Transformer block of transformer.h (pre-LN, the same
// FFN); the model adds no positional encoding (its card's NoPositionalEncoding): the
// data-dependent decay carries position.
//
// Per head h, with q_t, k_t, v_t the head's Dh channels of the shared projection and k scaled by
// 1/√Dh, a decay per key channel from a low-rank gate (rank 16, τ = 16, Eq. in §4.1):
//   α_t = σ(x_t W_α1 W_α2 + b_α)^(1/τ) ∈ (0, 1)^Dh,   log α_t = log σ(·) / τ
//   recurrent:  S_t = diag(α_t) S_{t−1} + k_tᵀ v_t  (Dh × Dh),   o_t = q_t S_t
//   matrix:     o_i = Σ_{j ≤ i} W_ij v_j,   W_ij = Σ_c q_ic k_jc exp(Σ_{l=j+1..i} log α_lc)
// Then, as the paper's layer: W_O(swish(x W_r + b_r) ⊙ GroupNorm_H(o)), one GroupNorm group per
// head over its Dh channels at each position (as RetNet's).
//
// Training uses the chunkwise form in log space (glaChunked): blocks of C positions; with
// b_i = Σ_{l ≤ i in the block} log α_l (cumulative inside the block, ≤ 0, non-increasing),
//   inside a block:  o_i += Σ_{j ≤ i} (Σ_c q_ic k_jc exp(b_ic − b_jc)) v_j      (exponents ≤ 0)
//   from before it:  o_i += (q_i ⊙ exp(b_i)) S_in                                (exponents ≤ 0)
//   state out:       S_out = diag(exp(b_last)) S_in + Σ_j (k_j ⊙ exp(b_last − b_j))ᵀ v_j
// Every exp has a non-positive argument, so nothing overflows whatever α is (α → 0 underflows to
// exact zeros); the intra-block decay is materialised as (C, C, Dh) per block. The states are
// carried block to block by that recurrence (not by differences of a global cumulative sum, which
// would lose precision in float32 once Σ log α is large). A last partial block is padded with
// q = k = v = 0 and log α = 0 and its rows dropped.
//
// Key padding: a padded position is made transparent: its key is zero (W_ij = 0 for padded j) and
// its decay is 1 (log α = 0), so the real tokens of a padded batch see the same state as their
// sequence without the pads. Shapes: B batch, T length, D width, H heads, Dh = D/H, N = ⌈T/C⌉.
#pragma once

#include "engine/models/attention.h"

namespace rsalab {

constexpr int64_t kGlaGateRank = 16;    // the paper's low rank of W_α1 W_α2
constexpr double kGlaTemperature = 16;  // τ: α = σ(·)^(1/τ), the paper's normaliser
constexpr int64_t kGlaChunk = 16;       // C, block length of the chunkwise training form

// o (B, H, T, Dh) of the chunkwise form: q, k (already scaled), v (B, H, T, Dh), log α
// (B, H, T, Dh), every entry ≤ 0. Exact (up to rounding) for any T and chunk ≥ 1.
torch::Tensor glaChunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& log_alpha, int64_t chunk = kGlaChunk);

// The implicit attention W (B, H, T, T): W_ij = Σ_c q_ic k_jc exp(Σ_{l=j+1..i} log α_lc) for
// j ≤ i, else 0; o = W v. Materialises (B, H, T, T, Dh): for inspection, not training.
torch::Tensor glaAttentionMatrix(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& log_alpha);

// One recurrent step: q, k, v, log α (B, H, 1, Dh); S (B, H, Dh, Dh) updated in place (created
// when empty), float32 or wider whatever the activations. Returns o_t (B, H, 1, Dh).
torch::Tensor glaStep(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                      const torch::Tensor& log_alpha, torch::Tensor& S);

class GatedLinearAttentionImpl : public SelfAttentionImpl {
 public:
  GatedLinearAttentionImpl(int64_t d_model, int64_t heads);  // causal only

  // W_O(swish(x W_r) ⊙ GroupNorm(o)), o of the chunkwise form; the observer gets W (B, H, T, T)
  // and the per-token decay exp(mean_c log α_tc) (B, H, T).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  // The recurrent form: state.S carries S_t; O(1) a token.
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("gla"); }

  // q, k (scaled by 1/√Dh), v and log α of x (B, T, D), each (B, H, T, Dh); key_padding (B, T)
  // optional makes the padded positions transparent (k = 0, log α = 0).
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor> project(
      const torch::Tensor& x, const torch::Tensor& key_padding = {});
  torch::nn::GroupNorm& groupNorm() { return norm_; }
  torch::nn::Linear& decayUp() { return decay_up_; }

 private:
  // (B, T, D) merged o -> GroupNorm per head, times swish(x W_r), through W_O: (B, T, D).
  torch::Tensor gateAndProject(const torch::Tensor& x, const torch::Tensor& o);

  torch::nn::Linear decay_down_{nullptr}, decay_up_{nullptr};  // W_α1 (D → 16), W_α2 (16 → D), b_α
  torch::nn::Linear gate_{nullptr};                            // W_r, b_r
  torch::nn::GroupNorm norm_{nullptr};
};
TORCH_MODULE(GatedLinearAttention);

}  // namespace rsalab
