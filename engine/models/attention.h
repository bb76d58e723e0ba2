// SPDX-License-Identifier: GPL-3.0-or-later
// Self-attention interface shared by the softmax, RSA, linear and retention kinds, so a Transformer
// block can swap only the attention (spec "Softmax Transformer": same block, PE and heads), and the
// pieces they share: the q, k, v projection, head split/merge, the softmax weights, the KV cache.
// Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include <memory>
#include <string>

#include "engine/core/config/model_options.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection.h"
#include "engine/models/inspection_observer.h"
#include "engine/torch_api.h"

namespace rsalab {

// Generation state of one attention layer: a KV cache for softmax, RSA, ALiBi and FoX; (S, z)
// for linear attention, (S, z, decay_sum) for retention, S for GLA, (S, z, stabiliser) for mLSTM.
struct AttentionState {
  torch::Tensor k, v;       // (B, H, capacity, Dh), filled up to `length`
  int64_t length = 0;       // positions seen so far
  torch::Tensor S, z;       // matrix memory (B, H, Dh, Dh) and normaliser (B, H, Dh), float32
  torch::Tensor decay_sum;  // retention: s_n = Σ_{m ≤ n} γ^(n−m) per head (H), float32
  // FoX: Σ_{k ≤ t} log f_k per head at each cached position, (B, H, capacity), filled to `length`.
  torch::Tensor log_forget;
  torch::Tensor stabiliser;  // mLSTM: the running max m_t (B, H), float32
};

// Key-padding mask of token inputs x (B, T): true where x is io.pad_token, which no position may
// attend to, so a padded batch gives the same outputs at its real tokens as each sequence alone.
// Undefined (no masking) for feature inputs, tasks without a pad token and batches without
// padding.
torch::Tensor keyPaddingMask(const torch::Tensor& x, const ModelIO& io);

class SelfAttentionImpl : public torch::nn::Module {
 public:
  SelfAttentionImpl(int64_t d_model, int64_t heads, bool causal);
  ~SelfAttentionImpl() override = default;

  // (B, T, D) -> (B, T, D). key_padding (B, T) bool, optional: true at keys no query may attend
  // to (keyPaddingMask). With an observer, reports the layer's weights once (the inspected path).
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                                const LayerObserver& observe = {}) = 0;
  // One new position for generation (causal only): (B, 1, D) -> (B, 1, D).
  virtual torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) = 0;
  virtual AttentionKind kind() const = 0;

  bool causal() const { return causal_; }
  int64_t heads() const { return heads_; }

 protected:
  torch::Tensor splitHeads(const torch::Tensor& x) const;  // (B, T, D) -> (B, H, T, Dh)
  torch::Tensor mergeHeads(const torch::Tensor& x) const;  // (B, H, T, Dh) -> (B, T, D)
  // q, k, v of x, each (B, H, T, Dh).
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> projectQkv(const torch::Tensor& x);

  int64_t d_model_, heads_, head_dim_;
  bool causal_;
  torch::nn::Linear qkv_{nullptr}, out_{nullptr};
};

using SelfAttention = std::shared_ptr<SelfAttentionImpl>;

// softmax(q kᵀ·scale + bias + causal mask + key-padding mask): q (B, H, Tq, Dh), k (B, H, Tk, Dh),
// key_padding (B, Tk) optional, bias optional (broadcast to (B, H, Tq, Tk): ALiBi's distance
// penalty, FoX's log forget gates) -> (B, H, Tq, Tk). The causal mask hides keys j > i (Tq = Tk).
torch::Tensor softmaxWeights(const torch::Tensor& q, const torch::Tensor& k, double scale,
                             bool causal, const torch::Tensor& key_padding = {},
                             const torch::Tensor& bias = {});

// Appends k_t, v_t (B, H, 1, Dh) to the cache, growing it by doubling; returns the filled views.
std::pair<torch::Tensor, torch::Tensor> appendToCache(AttentionState& state,
                                                      const torch::Tensor& k_t,
                                                      const torch::Tensor& v_t);

}  // namespace rsalab
