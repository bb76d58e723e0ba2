// SPDX-License-Identifier: GPL-3.0-or-later
// ALiBi, attention with linear biases: Press, Smith and Lewis, "Train Short, Test Long: Attention
// with Linear Biases Enables Input Length Extrapolation", arXiv 2108.12409, section 3. It takes
// the place of the attention inside the Transformer block of transformer.h (pre-LN, the same FFN),
// and the model adds no positional encoding (its card's NoPositionalEncoding): the bias
// carries position.
//
// Per head h = 1..H, a fixed slope m_h. By default the paper's text (section 3): m_h = 2^(−8h/H),
// a geometric sequence from 2^(−8/H) down to 2^(−8), for any H. The authors' code
// (get_slopes in github.com/ofirpress/attention_with_linear_biases, fairseq's
// multihead_attention) agrees when H is a power of two and departs when it is not: it takes the
// slopes of the largest power of two P ≤ H, then every other slope of 2P (2^(−8(2k−1)/(2P)),
// k = 1..H − P). At H = 6: 2^−2, 2^−4, 2^−6, 2^−8, then 2^−1, 2^−3, where the text gives
// 2^(−4/3), 2^(−8/3), …, 2^−8. ModelOptions::alibi_code_slopes (--alibi-code-slopes) chooses the
// code's rule; the text's is the default. Either way:
//   ALiBi(X) = softmax(Q Kᵀ/√Dh − m_h·(i − j) + causal mask) V
// exp(−m_h·(i − j)) = (e^(−m_h))^(i − j): the bias multiplies the unnormalised weight of a key
// i − j steps back by a regular REM with λ_h = e^(−m_h), *inside* the softmax, where RSA adds its
// REM P beside the softmax, after it: ((1 − σ(µ)) softmax(Q Kᵀ/√Dh) + σ(µ) P) V. The inspection
// record's decay is that λ_h per head. Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include "engine/models/attention.h"

namespace rsalab {

// Which slopes: the paper's text (the default) or the authors' code (the two differ only when H
// is not a power of two).
enum class AlibiSlopes { PaperText, Code };

// m_h for h = 1..H, as (H) float64: 2^(−8h/H) (PaperText), or get_slopes's (Code).
torch::Tensor alibiSlopes(int64_t heads, AlibiSlopes rule = AlibiSlopes::PaperText);

// The bias −m_h·(i − j) for queries offset..offset+Tq−1 and keys 0..Tk−1: (H, Tq, Tk) in the
// dtype and on the device of `like` (positive above the diagonal; the causal mask hides those).
torch::Tensor alibiBias(const torch::Tensor& slopes, int64_t Tq, int64_t Tk, int64_t offset,
                        const torch::Tensor& like);

class AlibiAttentionImpl : public SelfAttentionImpl {
 public:
  AlibiAttentionImpl(int64_t d_model, int64_t heads,
                     AlibiSlopes rule = AlibiSlopes::PaperText);  // causal only

  // softmax(Q Kᵀ/√Dh − m_h (i − j) + mask) V; the observer gets the weights (B, H, T, T) and the
  // per-step factor e^(−m_h) (H).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  // One query against the KV cache with the bias −m_h·(t − j).
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("alibi"); }

  torch::Tensor slopes() const { return slopes_; }  // m_h (H) float64

 private:
  torch::Tensor slopes_;
};
TORCH_MODULE(AlibiAttention);

}  // namespace rsalab
