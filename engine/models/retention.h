// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-scale retention, the token mixer of RetNet: Sun et al., "Retentive Network: A Successor to
// Transformer for Large Language Models", arXiv 2307.08621, section 2. It takes the place of the
// attention inside the Transformer block of transformer.h (pre-LN, the same FFN); the model adds
// no positional encoding (its card's NoPositionalEncoding): the decay, and the rotation when
// on, carry position.
//
// Per head h (section 2.2, Eq. 8), with a fixed decay γ_h = 1 − 2^(−5−h) by default (or learnable,
// γ_h = σ(ν_h) with ν_h initialised at that value; ModelOptions::retnet_learnable_decay):
//   parallel (Eq. 5):  Retention(X) = (Q Kᵀ ⊙ D) V,   D_nm = γ^(n−m) for n ≥ m, else 0
//   recurrent (Eq. 6): S_n = γ S_{n−1} + k_nᵀ v_n,   Retention(x_n) = q_n S_n
// The rotation is OFF by default, a departure from the paper, whose retention always turns q and k
// (Eq. 3–4's e^{inθ}): here the decay alone carries position unless ModelOptions::retnet_rotation
// (--retnet-rotation) turns it on. With rotation on, q_n and k_m are turned as RoPE does, each
// pair (2i, 2i+1) of a head's channels by the angle n·θ_i, θ_i = 10000^(−2i/Dh), so that
// q̃_n·k̃_m depends on n − m only (Dh must be even).
// The normalisers of section 2.2 ("Retention Score Normalization"), harmless because the output's
// GroupNorm is scale-invariant:
//   D̃_nm = D_nm / √(Σ_m D_nm),   R = Q Kᵀ/√Dh ⊙ D̃,   R̃_nm = R_nm / max(|Σ_m R_nm|, 1),   Y = R̃ V.
// The recurrence reproduces them exactly, with s_n = γ s_{n−1} + 1 (= Σ_m D_nm) and
// z_n = γ z_{n−1} + k_n:
//   Σ_m R_nm = q_n·z_n / (√Dh √s_n),   Σ_m R_nm v_m = q_n S_n / (√Dh √s_n).
// Then MSR(X) = W_O(swish(X W_G) ⊙ GroupNorm_H(Y)) (Eq. 8), one GroupNorm group per head over
// its Dh channels at each position. V has the width D here (the paper widens it to 2D), so that
// the block and the head split are those of the other attentions.
// D is built in log space: log D_nm = (n − m)·log γ_h, −∞ above the diagonal, then exp.
// Padded keys (key_padding) get D_nm = 0. Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include "engine/models/attention.h"

namespace rsalab {

// γ_h = 1 − 2^(−5−h) for h = 0..H−1: the paper's fixed decays (section 2.2), as (H) float64.
torch::Tensor retentionDefaultDecays(int64_t heads);

// q or k (B, H, T, Dh) with each channel pair (2i, 2i+1) at position offset + t turned by the
// angle (offset + t)·θ_i, θ_i = 10000^(−2i/Dh) (Dh even).
torch::Tensor retentionRotate(const torch::Tensor& x, int64_t offset);

// D̃ of the score normalisation from log γ (H): (H, T, T) rows of γ^(n−m) (n ≥ m, else 0) each
// divided by the square root of its sum; (B, H, T, T) when key_padding (B, T) zeroes the padded
// keys first.
torch::Tensor retentionDecayMatrix(const torch::Tensor& log_gamma, int64_t T,
                                   const torch::Tensor& key_padding = {});

// Y = R̃ V, before GroupNorm: q, k, v (B, H, T, Dh), already rotated when rotation is on; log γ
// (H). `weights`, when given, receives R̃ (B, H, T, T).
torch::Tensor retentionParallel(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, const torch::Tensor& log_gamma,
                                const torch::Tensor& key_padding = {},
                                torch::Tensor* weights = nullptr);

// One recurrent step of the same Y: q, k, v (B, H, 1, Dh) (rotated), γ (H); S (B, H, Dh, Dh),
// z (B, H, Dh) and s (H) updated in place (created when empty), in float32 or wider.
torch::Tensor retentionStep(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            const torch::Tensor& gamma, torch::Tensor& S, torch::Tensor& z,
                            torch::Tensor& s);

class RetentionImpl : public SelfAttentionImpl {
 public:
  // Causal only. learnable_decay: γ_h = σ(ν_h), ν a parameter ("decay_logit"); else the fixed
  // decays. rotation: q and k turned by their position (retentionRotate).
  RetentionImpl(int64_t d_model, int64_t heads, bool learnable_decay, bool rotation);

  // MSR(X) = W_O(swish(X W_G) ⊙ GroupNorm(R̃ V)); the observer gets R̃ (B, H, T, T) and γ (H).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  // The recurrent form: state.S, state.z and state.decay_sum carry S_n, z_n and s_n; O(1) a token.
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("retention"); }

  torch::Tensor decays() const;     // γ (H)
  torch::Tensor logDecays() const;  // log γ (H)
  bool rotation() const { return rotation_; }
  torch::nn::GroupNorm& groupNorm() { return norm_; }

  torch::Tensor decay_logit;  // ν (H) when learnable: γ = σ(ν); undefined when fixed

 private:
  // (B, T, D) merged Y -> GroupNorm per head, times swish(x W_G), through W_O: (B, T, D).
  torch::Tensor gateAndProject(const torch::Tensor& x, const torch::Tensor& y);

  bool rotation_;
  torch::Tensor fixed_log_gamma_;  // (H) float64, the paper's decays when not learnable
  torch::nn::Linear gate_{nullptr};
  torch::nn::GroupNorm norm_{nullptr};
};
TORCH_MODULE(Retention);

}  // namespace rsalab
