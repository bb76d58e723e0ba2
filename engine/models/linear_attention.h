// SPDX-License-Identifier: GPL-3.0-or-later
// Linear attention with the elu+1 feature map; its causal form is an RNN with state (S, z).
// Seed: linear-attention-transformers-are-rnns-note.txt; spec models.md "Linear attention".
// Tensors below are per head: q, k, v (B, H, T, Dh).
#pragma once

#include "engine/kernels/linear_attention_kernel.h"
#include "engine/models/attention.h"

namespace rsalab {

// Chunk length of the causal training path (linearAttentionChunked): 64 measured fastest of
// 16/32/64/128 at d128 h8 B16 T512 (rsalab-bench "linear-levers", docs/PERFORMANCE.md).
constexpr int64_t kLinearAttentionChunk = 64;

torch::Tensor eluFeatureMap(const torch::Tensor& x);  // φ(x) = elu(x) + 1

// key_padding below (optional, bool): (B, T) for (B, H, T, Dh) inputs, (T) for (H, T, Dh) ones;
// true at keys left out of every sum (φ(K_j) taken as 0).
// V'_i = φ(Q_i)ᵀ Σ_j φ(K_j) V_jᵀ / (φ(Q_i)ᵀ Σ_j φ(K_j) + eps); causal: j ≤ i via the masked
// T × T matrix φ(Q)φ(K)ᵀ (quadratic, "parallel" form).
torch::Tensor linearAttentionParallel(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, bool causal,
                                      const torch::Tensor& key_padding = {});
// Causal, by cumulative sums of φ(K_j)V_jᵀ and φ(K_j) over j ≤ i: O(T·Dh²) memory, no T × T.
torch::Tensor linearAttentionCumulative(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v,
                                        const torch::Tensor& key_padding = {});
// Causal, chunkwise: T split into chunks of `chunk` positions (the last one may be shorter; a
// chunk ≥ T is the masked parallel form). Within a chunk the masked products φ(Q_c)φ(K_c)ᵀ;
// across chunks the state (S, z) before each chunk, an exclusive prefix sum over the chunks of
// φ(K_c)ᵀ[V_c 1], read as φ(Q_c)S. O(T·chunk + (T/chunk)·Dh²) memory, no loop over chunks; the
// backward is autograd's through these ops. Same eps, same key_padding as the other forms.
torch::Tensor linearAttentionChunked(const torch::Tensor& q, const torch::Tensor& k,
                                     const torch::Tensor& v, int64_t chunk,
                                     const torch::Tensor& key_padding = {});
// One recurrent step: S += φ(k)vᵀ, z += φ(k), out = φ(q)ᵀS / (φ(q)ᵀz + eps).
// q, k, v: (B, H, 1, Dh); S (B, H, Dh, Dh), z (B, H, Dh) updated in place (created if empty).
torch::Tensor linearAttentionStep(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, torch::Tensor& S, torch::Tensor& z);
// The implied attention matrix for the inspector: row-normalised φ(Q)φ(K)ᵀ (masked if causal).
torch::Tensor linearAttentionWeights(const torch::Tensor& q, const torch::Tensor& k, bool causal,
                                     const torch::Tensor& key_padding = {});

// Causal training/evaluation path: `cumulative` (ModelOptions::linear_cumulative) selects the
// running-sum form: on CPU float/double the fused kernel (fusedCausalLinearAttention, one sweep
// per head, linear_attention_kernel.h), elsewhere chunkwise (linearAttentionChunked,
// kLinearAttentionChunk); no T × T matrix either way. false selects the masked parallel T × T
// form. All give the same outputs.
class LinearAttentionImpl : public SelfAttentionImpl {
 public:
  LinearAttentionImpl(int64_t d_model, int64_t heads, bool causal, bool cumulative);
  // The observer gets the implied weights (linearAttentionWeights).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {}) override;
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state) override;
  AttentionKind kind() const override { return attentionKind("linear"); }
  // Off: the causal path runs linearAttentionChunked on CPU too (the path before the fused
  // kernel; rsalab-bench's before/after lever).
  void setFusedKernel(bool on) { fused_ = on; }

 private:
  bool cumulative_;
  bool fused_ = true;
};

}  // namespace rsalab
