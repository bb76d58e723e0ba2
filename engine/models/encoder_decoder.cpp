// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/encoder_decoder.h"

namespace rsalab {

DecoderBlockImpl::DecoderBlockImpl(AttentionKind kind, const ModelOptions& o) {
  const int64_t D = o.d_model;
  ln_self_ = register_module("ln_self", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
  self_attention_ = register_module("self_attention", makeSelfAttention(kind, o, /*causal=*/true));
  ln_cross_ = register_module("ln_cross", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
  cross_ = register_module("cross", CrossAttention(D, o.heads));
  ffn_ = register_module("ffn", FeedForward(D, o.ff_mult));
}

torch::Tensor DecoderBlockImpl::forward(const torch::Tensor& y, const torch::Tensor& memory,
                                        const LayerObserver& observe) {
  auto h = y + self_attention_->forward(ln_self_->forward(y), {}, observe);  // (B, Tt, D)
  h = h + cross_->forward(ln_cross_->forward(h), memory, observe);           // (B, Tt, D)
  return ffn_->forward(h);                                                   // (B, Tt, D)
}

EncoderDecoderImpl::EncoderDecoderImpl(const ModelOptions& options, int64_t source_vocab,
                                       int64_t target_vocab)
    : options_(options) {
  validate(options_);
  const int64_t D = options_.d_model;
  const AttentionKind kind = encoderAttention(options_);
  source_embed_ = register_module("source_embed", torch::nn::Embedding(source_vocab, D));
  target_embed_ = register_module("target_embed", torch::nn::Embedding(target_vocab, D));
  for (int64_t l = 0; l < options_.layers; ++l) {
    encoder_.push_back(register_module("encoder" + std::to_string(l),
                                       TransformerBlock(kind, options_, /*causal=*/false)));
  }
  const int64_t decoder_layers =
      options_.decoder_layers > 0 ? options_.decoder_layers : options_.layers;
  for (int64_t l = 0; l < decoder_layers; ++l) {
    decoder_.push_back(
        register_module("decoder" + std::to_string(l), DecoderBlock(kind, options_)));
  }
  ln_encoder_ =
      register_module("ln_encoder", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
  ln_decoder_ =
      register_module("ln_decoder", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
  output_ = register_module("output", torch::nn::Linear(D, target_vocab));
}

torch::Tensor EncoderDecoderImpl::embedWithPositions(torch::nn::Embedding& embed,
                                                     const torch::Tensor& tokens) {
  auto h = embed->forward(tokens);                                             // (B, T, D)
  return h + sinusoidalEncoding(h.size(1), options_.d_model, 0, h.options());  // (B, T, D)
}

torch::Tensor EncoderDecoderImpl::encode(const torch::Tensor& source,
                                         const InspectionObserver& observe) {
  auto h = embedWithPositions(source_embed_, source);  // (B, Ts, D)
  for (size_t l = 0; l < encoder_.size(); ++l) h = encoder_[l]->forward(h, {}, observe.layer(l));
  return ln_encoder_->forward(h);  // (B, Ts, D)
}

torch::Tensor EncoderDecoderImpl::decode(const torch::Tensor& target_in,
                                         const torch::Tensor& memory,
                                         const InspectionObserver& observe) {
  auto h = embedWithPositions(target_embed_, target_in);  // (B, Tt, D)
  for (size_t l = 0; l < decoder_.size(); ++l) {
    h = decoder_[l]->forward(h, memory, observe.decoderLayer(l));
  }
  return output_->forward(ln_decoder_->forward(h));  // (B, Tt, V)
}

torch::Tensor EncoderDecoderImpl::forward(const torch::Tensor& source,
                                          const torch::Tensor& target_in,
                                          InspectionRecord* record) {
  const InspectionObserver observe(record, "encdec", encoder_.size(), decoder_.size());
  return decode(target_in, encode(source, observe), observe);
}

torch::Tensor EncoderDecoderImpl::greedyDecode(const torch::Tensor& source, int64_t bos,
                                               int64_t length) {
  torch::NoGradGuard no_grad;
  auto memory = encode(source);
  auto tokens = torch::full({source.size(0), 1}, bos, source.options().dtype(torch::kInt64));
  for (int64_t t = 0; t < length; ++t) {
    auto logits = decode(tokens, memory);              // (B, t+1, V)
    auto next = logits.select(1, t).argmax(-1, true);  // (B, 1)
    tokens = torch::cat({tokens, next}, 1);
  }
  return tokens.narrow(1, 1, length);  // (B, length)
}

int64_t EncoderDecoderImpl::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

}  // namespace rsalab
