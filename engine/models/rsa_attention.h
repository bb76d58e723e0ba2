// SPDX-License-Identifier: GPL-3.0-or-later
// RSA: multi-head self-attention with recurrence.
// Seed: rsa-encoding-recurrence-into-transformers.txt; spec models.md "RSA attention".
// Heads 0..R−1 each carry an REM P_h and a gate µ_h; heads R..H−1 are plain softmax heads.
#pragma once

#include "engine/core/config/model_options.h"
#include "engine/models/rem_builder.h"
#include "engine/models/softmax_attention.h"

namespace rsalab {

class RsaAttentionImpl : public SoftmaxAttentionImpl {
 public:
  RsaAttentionImpl(int64_t d_model, int64_t heads, bool causal, const RemHeadCounts& counts,
                   const std::vector<int64_t>& dilations, const RemInit& init);

  AttentionKind kind() const override { return AttentionKind::Rsa; }
  RemBuilder& rems() { return rems_; }
  torch::Tensor gate() const { return torch::sigmoid(mu); }  // (R): σ(µ)

  torch::Tensor mu;  // (R) gate logits

 protected:
  // A_h = (1 − σ(µ_h))·softmax(Q_h K_hᵀ/√Dh + mask) + σ(µ_h)·P_h,   out_h = A_h V_h
  torch::Tensor attend(const torch::Tensor& probs, const torch::Tensor& v, int64_t query_offset,
                       LayerInspection* record, int64_t sample) override;
  // The same inside blockedSoftmaxAttention's blocks: the REMs' diagonals and σ(µ).
  RemMixing remMixing(int64_t T, const torch::Tensor& like) override;

 private:
  // REMs of the query positions query_offset.. (Tq of them) over keys 0..Tk−1: (R, Tq, Tk).
  torch::Tensor remMatrices(int64_t query_offset, int64_t Tq, int64_t Tk,
                            const torch::Tensor& like);
  // REM heads: (1 − σ(µ))·y + σ(µ)·P·V; plain heads: y. y (B, H, Tq, Dh), P (R, Tq, Tk).
  torch::Tensor mix(const torch::Tensor& y, const torch::Tensor& v, const torch::Tensor& P);
  RemBuilder rems_{nullptr};
};
TORCH_MODULE(RsaAttention);

}  // namespace rsalab
