// SPDX-License-Identifier: GPL-3.0-or-later
// ProbSparse self-attention, from Zhou et al., "Informer: Beyond Efficient Transformer for Long
// Sequence Time-Series Forecasting" (AAAI 2021, arXiv 2012.07436, §"Efficient Self-attention
// Mechanism", Eq. (3)–(4) and Lemma 1), written from the paper; with RSA's REMs and gate on its
// first heads for RSA-Informer (engine/models/informer.h states where they go).
//
// Per head, with queries q_i (Lq of them), keys k_j and values v_j (Lk), scale 1/√Dh:
//   1. U = min(c·⌈ln Lk⌉, Lk) keys are sampled for each query (uniformly, with replacement);
//   2. the sparsity measurement of each query on its sample, the paper's max-mean estimate
//        M̄(q_i) = max_j q_i·k_j/√Dh − mean_j q_i·k_j/√Dh   (j over the sample; the paper's mean
//        over all Lk keys, estimated on the sample);
//   3. the u = min(c·⌈ln Lq⌉, Lq) queries of largest M̄ ("active") attend to every key by softmax;
//   4. the other ("lazy") queries get the mean of V (the paper), or in masked attention the
//      cumulative sum of V up to their position (the authors' code; a mean would read later
//      values).
// With u = Lq every query is active: full softmax attention, exactly (no sampling is done).
// The selection (steps 1–3) is a discrete choice: no gradient flows through it.
//
// Masked (the decoder): active queries attend to keys j ≤ i, and query i's keys are sampled from
// j ≤ i only (our choice: the authors sample every key for every query), so that a later
// position enters no query's measure. Only the ranking of the queries (the top u) reads every
// position; with a fixed selection (holdSelection) output i reads inputs ≤ i only.
//
// Sampling is deterministic: key j of query i at forward call n is
//   splitmix64(seed ⊕ (n·2⁶⁴/φ) ⊕ (i·U + j)) mod (Lk, or i + 1 when masked),
// with `seed` drawn from LibTorch's generator when the layer is built (so the run's seed decides
// it) or set by setSampleSeed (tests, a twin); n counts the layer's forward calls from 0.
//
// REM heads (rems non-empty): heads h < R mix in their REM P_h through the gate σ(µ_h) as RSA's
// Figure 1(d): out_h = (1 − σ(µ_h))·ProbSparse_h(Q, K, V) + σ(µ_h)·P_h V_h, for active and lazy
// queries alike (the recurrence is cheap and every position keeps it). Self-attention only.
// Shapes: B batch, Lq / Lk lengths, D width, H heads, Dh = D/H, R REM heads.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/config/model_options.h"
#include "engine/models/rem_builder.h"
#include "engine/torch_api.h"

namespace rsalab {

// The number of active queries (or sampled keys) for length L and factor c: min(c·⌈ln L⌉, L).
int64_t probSparseCount(int64_t factor, int64_t L);

// The deterministic key sample (Lq, U) int64 described above.
torch::Tensor probSparseSample(uint64_t seed, uint64_t call, int64_t Lq, int64_t Lk, int64_t U,
                               bool masked);

class ProbAttentionImpl : public torch::nn::Module {
 public:
  // sparse false: full softmax attention (Informer's cross-attention). rem_counts: RSA's heads
  // (all zero: none); the REMs are causal when `masked`, else read |i − j|.
  ProbAttentionImpl(int64_t d_model, int64_t heads, int64_t factor, bool masked, bool sparse,
                    const RemHeadCounts& rem_counts = RemHeadCounts{0, 0, 0, 0, 0, 0},
                    const std::vector<int64_t>& dilations = {2}, const RemInit& init = {});

  // (B, Lq, D) queries from `x`, keys and values from `source` ((B, Lk, D); undefined: x).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& source = {});

  // true: the next forward's selection is kept and reused while the shapes stay (gradient
  // checks); false: drawn anew every call.
  void holdSelection(bool hold);
  void setSampleSeed(uint64_t seed) { seed_ = seed, calls_ = 0; }
  const torch::Tensor& heldSelection() const { return held_; }  // (B, H, u); undefined: none
  int64_t remHeads() const { return rems_ ? rems_->size() : 0; }
  torch::Tensor gate() const { return torch::sigmoid(mu); }  // (R)

  torch::Tensor mu;  // (R) gate logits; undefined without REMs

 private:
  // (B, H, Lq, Dh) from q, k, v (B, H, L, Dh).
  torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v);
  torch::Tensor selection(const torch::Tensor& q, const torch::Tensor& k, int64_t u);

  int64_t heads_, head_dim_, factor_;
  bool masked_, sparse_;
  torch::nn::Linear q_{nullptr}, k_{nullptr}, v_{nullptr}, out_{nullptr};
  RemBuilder rems_{nullptr};
  uint64_t seed_ = 0, calls_ = 0;
  bool hold_ = false;
  torch::Tensor held_;  // (B, H, u) the held selection
};
TORCH_MODULE(ProbAttention);

}  // namespace rsalab
