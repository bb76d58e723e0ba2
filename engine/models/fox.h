// SPDX-License-Identifier: GPL-3.0-or-later
// The Forgetting Transformer (FoX): Lin, Nikishin, He and Courville, "Forgetting Transformer:
// Softmax Attention with a Forget Gate", arXiv 2503.02130, section 2. It takes the place of the
// attention inside the Transformer block of transformer.h (pre-LN, the same FFN), and the model
// adds no positional encoding (its card's NoPositionalEncoding): the forget gates carry it.
//
// Per head h, a scalar forget gate per token, f_t = σ(w_h·x_t + b_h) (one linear map D → H,
// "forget", PyTorch's default initialisation as the paper's), and
//   FoX(X) = softmax(Q Kᵀ/√Dh + log F + causal mask) V,   F_ij = ∏_{k=j+1..i} f_k   (F_ii = 1)
// with log F_ij = c_i − c_j, c_t = Σ_{k ≤ t} log f_k (a cumulative sum of log σ, exact in log
// space). F is a data-dependent regular REM *inside* the softmax: the unnormalised weight of key
// j is multiplied by the product of the gates between j and i, as ALiBi's fixed e^(−m(i−j)) and
// Mamba-2's L_ij, where RSA adds its REM after the softmax. The inspection record's decay is f_t
// per head and query position. Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include "engine/models/attention.h"

namespace rsalab {

// log F (B, H, Tq, Tk) from the cumulative log gates of the queries c_q (B, H, Tq) and keys
// c_k (B, H, Tk): c_q,i − c_k,j (the causal mask hides j > i).
torch::Tensor forgetBias(const torch::Tensor& c_queries, const torch::Tensor& c_keys);

class ForgettingAttentionImpl : public SelfAttentionImpl {
 public:
  ForgettingAttentionImpl(int64_t d_model, int64_t heads);  // causal only

  // log f_t = log σ(w_h·x_t + b_h): (B, T, D) -> (B, H, T).
  torch::Tensor logForgetGates(const torch::Tensor& x);
  // softmax(Q Kᵀ/√Dh + log F + mask) V; the observer gets the weights (B, H, T, T) and f_t
  // (B, H, T).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  // One query against the KV cache; state.log_forget keeps c_j of every cached position.
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("fox"); }

 private:
  torch::nn::Linear forget_{nullptr};  // w_h, b_h of the H gates: D -> H
};
TORCH_MODULE(ForgettingAttention);

}  // namespace rsalab
