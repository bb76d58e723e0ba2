// SPDX-License-Identifier: GPL-3.0-or-later
// Pre-LN Transformer with a swappable attention: any attention card's kind (softmax, RSA, …).
// As in the RNN-vs-Transformer lecture notes. The same block, the same sinusoidal PE and the same
// heads for all of them, so comparisons isolate the attention; a registry row without positional
// encoding (its card's NoPositionalEncoding: RetNet, whose decay carries position) skips the PE.
#pragma once

#include <vector>

#include "engine/models/attention.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

// The attention of kind `kind` (ModelCard::attention, attentionKinds()) of width D with options'
// heads and REM settings, built by the maker its .cpp registered. Throws std::invalid_argument for
// the bidirectional form of a CausalOnly card's kind, and for a kind without a maker.
SelfAttention makeSelfAttention(AttentionKind kind, const ModelOptions& options, bool causal);

// Builds one attention of width options.d_model (causal: a CausalOnly card's kind is only ever
// asked for its causal form).
using AttentionMaker = SelfAttention (*)(const ModelOptions& options, bool causal);
// Registers the maker of the attention named `name` (its card's attention_name). Each attention's
// .cpp calls it from a static initialiser (the engine links as a whole archive, so none is left
// out); returns true. Throws std::logic_error for a name registered twice.
bool registerAttentionMaker(const char* name, AttentionMaker maker);
// Whether a maker is registered for `kind` (the self-test checks every attention card).
bool hasAttentionMaker(AttentionKind kind);

// x + FFN(LN(x)), FFN = Linear(D, ff_mult·D)·GELU·Linear(ff_mult·D, D)
class FeedForwardImpl : public torch::nn::Module {
 public:
  FeedForwardImpl(int64_t d_model, int64_t ff_mult);
  torch::Tensor forward(const torch::Tensor& x);  // (B, T, D) -> (B, T, D)

 private:
  torch::nn::LayerNorm ln_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(FeedForward);

class TransformerBlockImpl : public torch::nn::Module {
 public:
  TransformerBlockImpl(AttentionKind attention_kind, const ModelOptions& options, bool causal);
  // x + MHA(LN(x)), then x + FFN(LN(x)), FFN = Linear(D, 4D)·GELU·Linear(4D, D)
  // key_padding (B, T) bool and the observer, optional: see SelfAttentionImpl::forward.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& key_padding = {},
                        const LayerObserver& observe = {});
  torch::Tensor step(const torch::Tensor& x_t, AttentionState& state);
  SelfAttention attention() const { return attention_; }

 private:
  torch::Tensor norm(const torch::Tensor& x);         // LN(x), or x on the linear value path
  torch::Tensor feedForward(const torch::Tensor& h);  // FFN(h), or h on the linear value path

  bool linear_ = false;  // ModelOptions::linear_value_path
  torch::nn::LayerNorm ln1_{nullptr};
  SelfAttention attention_;
  FeedForward ffn_{nullptr};
};
TORCH_MODULE(TransformerBlock);

// Generation state: one AttentionState per layer plus the next position.
struct GenerationState {
  std::vector<AttentionState> layers;
  int64_t position = 0;
};

class TransformerModelImpl : public SequenceModelImpl {
 public:
  // options.model names an attention-family row of the registry; its ModelCard::attention is the
  // attention of every block.
  TransformerModelImpl(const ModelOptions& options, const ModelIO& io);
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  bool causal() const override { return options_.causal; }
  // One position of generation (causal models, per-position heads): x_t (B, 1, F) or (B, 1)
  // -> (B, 1, O). Equals forward() on the whole prefix, by KV cache (softmax, RSA), (S, z)
  // (linear) or the retention recurrence (S, z, s).
  torch::Tensor step(const torch::Tensor& x_t, GenerationState& state);
  const std::vector<TransformerBlock>& blocks() const { return blocks_; }

 private:
  torch::Tensor positional(int64_t T, int64_t offset, const torch::Tensor& like);
  torch::Tensor finalNorm(const torch::Tensor& h);  // LN_f(h), or h on the linear value path
  bool positional_encoding_ =
      true;  // not the card's NoPositionalEncoding, off on the linear value path
  std::vector<TransformerBlock> blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
  torch::Tensor pe_cache_;  // (T, D) rows for positions 0..T−1
};

}  // namespace rsalab
