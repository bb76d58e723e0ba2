// SPDX-License-Identifier: GPL-3.0-or-later
// The mLSTM, the matrix-memory cell of xLSTM: Beck et al., "xLSTM: Extended Long Short-Term
// Memory", arXiv 2405.04517, section 2.3 (the cell and its stabiliser) and the appendix's parallel
// formulation. Here the cell is a token mixer: it takes the place of the attention inside the
// Transformer block of transformer.h (pre-LN, the same FFN kept). The paper's mLSTM block (its
// section 2.4) instead wraps the cell in an up-projection, a causal convolution and a learnable
// skip, with no FFN; that block is not built here, so that against the other attentions only the
// mixer changes. The model adds no positional encoding (its card's NoPositionalEncoding):
// the forget gates carry position.
//
// Per head h, q, k, v come from the shared projection (k scaled by 1/√Dh) and the gates from x_t:
//   ĩ_t = w_i·x_t + b_i     input gate, exponential: i_t = exp(ĩ_t)               (scalar per head)
//   f̃_t = w_f·x_t + b_f     forget gate, sigmoid: log f_t = log σ(f̃_t) = −softplus(−f̃_t)
//   o_t = σ(W_o x_t + b_o)   output gate, D wide
// recurrent form:
//   C_t = f_t C_{t−1} + i_t v_t k_tᵀ,  n_t = f_t n_{t−1} + i_t k_t,
//   h̃_t = C_t q_t / max(|n_tᵀq_t|, 1)
// stabilised (exp(ĩ) overflows): with m_t = max(log f_t + m_{t−1}, ĩ_t), i'_t = exp(ĩ_t − m_t) and
// f'_t = exp(log f_t + m_{t−1} − m_t) in place of i_t and f_t, C_t and n_t are those above times
// exp(−m_t), and the max's 1 becomes exp(−m_t): h̃_t is the same for any m, so m is only a scale.
// parallel form (training): for j ≤ i, −∞ above the diagonal and at padded keys,
//   log D_ij = Σ_{k=j+1..i} log f_k + ĩ_j,  m_i = max_j log D_ij,
//   C̃ = QKᵀ/√Dh ⊙ exp(log D − m_i),  n_i = max(|Σ_j C̃_ij|, exp(−m_i)),  H̃ = (C̃ / n) V.
// The recurrence's m, started at m_0 = ĩ_0, is that same row maximum (by induction on t).
// Then out = W_O(o ⊙ GroupNorm_H(H̃)), the paper's multi-head norm (one group per head, its Dh
// channels at each position).
//
// Initialisation (xLSTM's reference one): forget-gate biases b_f spread over the heads by
// linspace(3, 6), so f = σ(b_f) starts between 0.95 and 0.998, a long memory; input-gate bias
// b_i = 0, so every token enters at weight exp(0) = 1 and the forget gate alone shapes the decay.
// A strongly negative b_i (some xLSTM recipes use −10) is not used: with i ≈ e^−10 the 1 floor of
// the normaliser wins, H̃ shrinks to ~e^−10 of its size, and GroupNorm's eps (1e−5 against a
// variance ~e^−20) then flattens it to the norm's bias: the mixer would start switched off.
// Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include <utility>

#include "engine/models/attention.h"

namespace rsalab {

// log D (B, H, T, T) from log f and ĩ (B, H, T): Σ_{k=j+1..i} log f_k + ĩ_j for j ≤ i, −∞ above
// the diagonal and, with key_padding (B, T), in the padded keys' columns.
torch::Tensor mlstmLogDecayMatrix(const torch::Tensor& log_forget, const torch::Tensor& input_gate,
                                  const torch::Tensor& key_padding = {});

// H̃ = (C̃ / n) V before the norm: q, k, v (B, H, T, Dh) as projected (k not yet scaled), the gate
// pre-activations ĩ, f̃ (B, H, T). `weights`, when given, receives C̃ / n (B, H, T, T).
torch::Tensor mlstmParallel(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            const torch::Tensor& input_gate, const torch::Tensor& forget_gate,
                            const torch::Tensor& key_padding = {},
                            torch::Tensor* weights = nullptr);

// One stabilised recurrent step of the same H̃: q, k, v (B, H, 1, Dh), ĩ, f̃ (B, H). C (B, H, Dh,
// Dh; C[a][b] = Σ v_a k_b as the paper's v kᵀ), n (B, H, Dh) and m (B, H) are updated in place,
// created when empty (then m_0 = ĩ_0), kept in float32 or wider.
torch::Tensor mlstmStep(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& input_gate, const torch::Tensor& forget_gate,
                        torch::Tensor& C, torch::Tensor& n, torch::Tensor& m);

class MlstmImpl : public SelfAttentionImpl {
 public:
  MlstmImpl(int64_t d_model, int64_t heads);  // causal only

  // W_O(σ(W_o x) ⊙ GroupNorm_H((C̃ / n) V)); the observer gets C̃ / n (B, H, T, T) and f = σ(f̃)
  // (B, H, T).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  // The stabilised recurrence: state.S, state.z and state.stabiliser carry C_t, n_t and m_t; O(1)
  // a token.
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("mlstm"); }

  // The gate pre-activations ĩ and f̃ of x (B, T, D), each (B, H, T).
  std::pair<torch::Tensor, torch::Tensor> gatePreactivations(const torch::Tensor& x);
  torch::nn::GroupNorm& groupNorm() { return norm_; }

 private:
  // (B, T, D) merged H̃ -> GroupNorm per head, times σ(W_o x), through W_O: (B, T, D).
  torch::Tensor gateAndProject(const torch::Tensor& x, const torch::Tensor& y);

  torch::nn::Linear input_gate_{nullptr}, forget_gate_{nullptr};  // D -> H each: ĩ, f̃
  torch::nn::Linear output_gate_{nullptr};                        // D -> D: W_o
  torch::nn::GroupNorm norm_{nullptr};
};
TORCH_MODULE(Mlstm);

}  // namespace rsalab
