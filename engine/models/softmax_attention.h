// SPDX-License-Identifier: GPL-3.0-or-later
// Softmax multi-head self-attention, the baseline RSA is compared with, and the encoder–decoder's
// cross-attention. Seed: lecture-rnn-vs-transformer.txt; spec models.md "Softmax Transformer".
// Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include "engine/models/attention.h"

namespace rsalab {

class SoftmaxAttentionImpl : public SelfAttentionImpl {
 public:
  SoftmaxAttentionImpl(int64_t d_model, int64_t heads, bool causal);

  // out = softmax(Q Kᵀ/√Dh + mask) V, per head: on the CPU without padding or an observer the
  // blocked kernel (engine/kernels/blocked_attention.h), otherwise through the (B, H, T, T)
  // weights. Padded keys get weight 0.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("softmax"); }
};

// Softmax cross-attention of decoder queries over encoder memory (encoder–decoder).
class CrossAttentionImpl : public torch::nn::Module {
 public:
  CrossAttentionImpl(int64_t d_model, int64_t heads);
  // x (B, Tt, D) attends to memory (B, Ts, D) -> (B, Tt, D); the observer gets per-head Tt × Ts
  // maps.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& memory,
                        const LayerObserver& observe = {});

 private:
  int64_t d_model_, heads_, head_dim_;
  torch::nn::Linear q_{nullptr}, kv_{nullptr}, out_{nullptr};
};
TORCH_MODULE(CrossAttention);

}  // namespace rsalab
