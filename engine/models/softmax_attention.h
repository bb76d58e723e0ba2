// SPDX-License-Identifier: GPL-3.0-or-later
// Softmax multi-head self-attention, the baseline RSA is compared with.
// Seed: lecture-rnn-vs-transformer.txt; spec models.md "Softmax Transformer".
#pragma once

#include "engine/models/attention.h"
#include "engine/models/blocked_attention.h"

namespace rsalab {

class SoftmaxAttentionImpl : public SelfAttentionImpl {
 public:
  SoftmaxAttentionImpl(int64_t d_model, int64_t heads, bool causal);

  // out = softmax(Q Kᵀ/√Dh + mask) V, per head. With a record, off the CPU or with key padding:
  // through the (B, H, T, T) weights (probabilities + attend); otherwise
  // blockedSoftmaxAttention with remMixing(). Padded keys get weight 0 and their values are
  // zeroed, so no head (softmax or REM) reads them.
  torch::Tensor forward(const torch::Tensor& x, LayerInspection* record, int64_t sample,
                        const torch::Tensor& key_padding = {}) override;
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return AttentionKind::Softmax; }

 protected:
  // Applies the attention weights: probs (B, H, Tq, Tk), v (B, H, Tk, Dh) -> (B, H, Tq, Dh).
  // Query row i sits at position query_offset + i. RSA overrides this to mix in its REMs.
  virtual torch::Tensor attend(const torch::Tensor& probs, const torch::Tensor& v,
                               int64_t query_offset, LayerInspection* record, int64_t sample);
  // The fast path's hook: the REMs mixed into heads 0..R−1 for sequences of length T (RSA);
  // softmax has none.
  virtual RemMixing remMixing(int64_t T, const torch::Tensor& like);
  // softmax(q kᵀ/√Dh + causal mask + key-padding mask): (B, H, Tq, Tk); key_padding (B, Tk).
  torch::Tensor probabilities(const torch::Tensor& q, const torch::Tensor& k, bool mask,
                              const torch::Tensor& key_padding = {}) const;
};

// Softmax cross-attention of decoder queries over encoder memory (encoder–decoder).
class CrossAttentionImpl : public torch::nn::Module {
 public:
  CrossAttentionImpl(int64_t d_model, int64_t heads);
  // x (B, Tt, D) attends to memory (B, Ts, D) -> (B, Tt, D); record gets per-head Tt × Ts maps.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& memory,
                        std::vector<Matrix>* record, int64_t sample);

 private:
  int64_t d_model_, heads_, head_dim_;
  torch::nn::Linear q_{nullptr}, kv_{nullptr}, out_{nullptr};
};
TORCH_MODULE(CrossAttention);

}  // namespace rsalab
