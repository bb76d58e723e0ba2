// SPDX-License-Identifier: GPL-3.0-or-later
// RSA, multi-head Self-Attention with Recurrence, from "Encoding Recurrence into Transformers"
// (seed rsa-encoding-recurrence-into-transformers.txt; spec models.md "RSA attention").
// The paper's Figure 1(d): each head attaches a Recurrence Encoding Matrix (REM) P_h to its
// normalised self-attention score through a gate σ(µ_h):
//   A_h = (1 − σ(µ_h))·softmax(Q_h K_hᵀ/√Dh + mask) + σ(µ_h)·P_h,   out_h = A_h V_h
// P_h is a regular REM (λ = tanh(η)) or a cyclical one (γ = σ(ν), angle θ), dilated or not:
// rem_builder.h builds them. The seed excerpt ends in the paper's introduction and numbers no
// equations, so the code cites Figure 1(d) and the spec section instead of equation numbers.
// Heads 0..R−1 carry an REM and a gate; heads R..H−1 are plain softmax heads.
// Read forward() in rsa_attention.cpp top to bottom; its CPU training path is one call to the
// blocked kernel (engine/kernels/blocked_attention.h), which computes the same values without
// the (B, H, T, T) weights. Shapes: B batch, T length, D width, H heads, Dh = D/H, R REM heads.
#pragma once

#include "engine/core/config/model_options.h"
#include "engine/models/attention.h"
#include "engine/models/rem_builder.h"

namespace rsalab {

class RsaAttentionImpl : public SelfAttentionImpl {
 public:
  RsaAttentionImpl(int64_t d_model, int64_t heads, bool causal, const RemHeadCounts& counts,
                   const std::vector<int64_t>& dilations, const RemInit& init);

  // (B, T, D) -> (B, T, D); key_padding (B, T) optional; the observer gets S, P and σ(µ).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  // One new position t (causal generation): the same with row t of S and of P.
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("rsa"); }

  RemBuilder& rems() { return rems_; }
  torch::Tensor gate() const { return torch::sigmoid(mu); }  // (R): σ(µ)

  torch::Tensor mu;  // (R) gate logits

 private:
  RemBuilder rems_{nullptr};
};
TORCH_MODULE(RsaAttention);

}  // namespace rsalab
