// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/transformer.h"

#include <map>
#include <stdexcept>
#include <string>

#include "engine/core/registry/model_registry.h"
#include "engine/models/attention_makers.h"

namespace rsalab {

namespace {

// The makers by attention name; a function-local static, so that registrations from other
// translation units' static initialisers find it built.
std::map<std::string, AttentionMaker>& attentionMakers() {
  static std::map<std::string, AttentionMaker> makers;
  return makers;
}

}  // namespace

bool registerAttentionMaker(const char* name, AttentionMaker maker) {
  if (!attentionMakers().emplace(name, maker).second)
    throw std::logic_error(std::string("attention '") + name + "' has two makers");
  return true;
}

bool hasAttentionMaker(AttentionKind kind) {
  return attentionMakers().count(attentionKindName(kind)) > 0;
}

SelfAttention makeRegisteredAttention(AttentionKind kind, const ModelOptions& o, bool causal) {
  const ModelCard* card = findAttention(kind);
  if (!card) {
    throw std::invalid_argument("attention kind " + std::to_string(static_cast<int>(kind)) +
                                " is not one of " + attentionKindList());
  }
  const auto it = attentionMakers().find(card->attention_name);
  if (it == attentionMakers().end()) {
    throw std::invalid_argument(std::string("attention '") + card->attention_name +
                                "' has no maker registered (its .cpp)");
  }
  return it->second(o, causal);
}

SelfAttention makeSelfAttention(AttentionKind kind, const ModelOptions& o, bool causal) {
  const ModelCard* card = findAttention(kind);
  if (card && !causal && card->causalOnly())
    throw std::invalid_argument(std::string(card->attention_name) + " is causal only");
  return makeRegisteredAttention(kind, o, causal);
}

FeedForwardImpl::FeedForwardImpl(int64_t d_model, int64_t ff_mult) {
  ln_ = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  fc1_ = register_module("fc1", torch::nn::Linear(d_model, ff_mult * d_model));
  fc2_ = register_module("fc2", torch::nn::Linear(ff_mult * d_model, d_model));
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
  return x + fc2_->forward(torch::gelu(fc1_->forward(ln_->forward(x))));  // (B, T, D)
}

TransformerBlockImpl::TransformerBlockImpl(AttentionKind attention_kind, const ModelOptions& o,
                                           bool causal) {
  const int64_t D = o.d_model;
  linear_ = o.linear_value_path;
  if (!linear_)
    ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
  attention_ = register_module("attention", makeSelfAttention(attention_kind, o, causal));
  if (!linear_) ffn_ = register_module("ffn", FeedForward(D, o.ff_mult));
}

torch::Tensor TransformerBlockImpl::norm(const torch::Tensor& x) {
  return linear_ ? x : ln1_->forward(x);
}

torch::Tensor TransformerBlockImpl::feedForward(const torch::Tensor& h) {
  return linear_ ? h : ffn_->forward(h);
}

torch::Tensor TransformerBlockImpl::forward(const torch::Tensor& x,
                                            const torch::Tensor& key_padding,
                                            const LayerObserver& observe) {
  auto h = x + attention_->forward(norm(x), key_padding, observe);  // (B, T, D)
  return feedForward(h);
}

torch::Tensor TransformerBlockImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto h = x_t + attention_->step(norm(x_t), state);  // (B, 1, D)
  return feedForward(h);
}

TransformerModelImpl::TransformerModelImpl(const ModelOptions& options, const ModelIO& io)
    : SequenceModelImpl(options, io) {
  registerIoLayers(options_.d_model);
  const ModelCard& info = modelInfo(options_.model);
  if (!info.attention)
    throw std::invalid_argument("model '" + options_.model + "' has no attention kind");
  const AttentionKind kind = *info.attention;  // the registry row's attention
  // A causal-only attention is causal whatever options.causal says (as recurrent models are).
  if (info.causalOnly()) options_.causal = true;
  positional_encoding_ = !info.has(NoPositionalEncoding) && !options_.linear_value_path;
  for (int64_t l = 0; l < options_.layers; ++l) {
    blocks_.push_back(register_module("block" + std::to_string(l),
                                      TransformerBlock(kind, options_, options_.causal)));
  }
  if (!options_.linear_value_path) {
    ln_f_ = register_module("ln_f",
                            torch::nn::LayerNorm(torch::nn::LayerNormOptions({options_.d_model})));
  }
}

torch::Tensor TransformerModelImpl::finalNorm(const torch::Tensor& h) {
  return options_.linear_value_path ? h : ln_f_->forward(h);
}

torch::Tensor TransformerModelImpl::positional(int64_t T, int64_t offset,
                                               const torch::Tensor& like) {
  const int64_t needed = offset + T;
  if (!pe_cache_.defined() || pe_cache_.size(0) < needed || pe_cache_.device() != like.device() ||
      pe_cache_.scalar_type() != like.scalar_type()) {
    const int64_t rows = std::max<int64_t>(needed, pe_cache_.defined() ? 2 * pe_cache_.size(0) : 0);
    pe_cache_ = sinusoidalEncoding(rows, options_.d_model, 0, like.options());
  }
  return pe_cache_.narrow(0, offset, T);  // (T, D)
}

torch::Tensor TransformerModelImpl::forward(const torch::Tensor& x, InspectionRecord* record) {
  auto h = embed(x);  // (B, T, D)
  if (positional_encoding_) h = h + positional(h.size(1), 0, h);
  const InspectionObserver observe(record, options_.model, blocks_.size());
  const auto padding = keyPaddingMask(x, io_);  // (B, T) or undefined
  for (size_t l = 0; l < blocks_.size(); ++l) h = blocks_[l]->forward(h, padding, observe.layer(l));
  return head(finalNorm(h), x);  // (B, T, O) | (B, O)
}

torch::Tensor TransformerModelImpl::step(const torch::Tensor& x_t, GenerationState& state) {
  if (!options_.causal || io_.pooled) {
    throw std::logic_error("step() needs a causal model with per-position outputs");
  }
  if (state.layers.size() != blocks_.size()) state.layers.assign(blocks_.size(), AttentionState{});
  auto h = embed(x_t);  // (B, 1, D)
  if (positional_encoding_) h = h + positional(1, state.position, h);
  for (size_t l = 0; l < blocks_.size(); ++l) h = blocks_[l]->step(h, state.layers[l]);
  state.position += 1;
  return output_->forward(finalNorm(h));  // (B, 1, O)
}

}  // namespace rsalab
