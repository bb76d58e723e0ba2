// SPDX-License-Identifier: GPL-3.0-or-later
// Encoder–decoder Transformer: encoder of bidirectional blocks of any attention kind (softmax,
// RSA, linear); decoder of causal self-attention blocks of the same kind, each followed by softmax
// cross-attention to the encoder output and the FFN. Teacher forcing in training, greedy decoding.
// As in the RNN-vs-Transformer lecture notes (encoder/decoder, cross-attention).
// Shapes: B batch, Ts source length, Tt target length, D width, V vocabulary.
#pragma once

#include <vector>

#include "engine/models/softmax_attention.h"
#include "engine/models/transformer.h"

namespace rsalab {

class DecoderBlockImpl : public torch::nn::Module {
 public:
  DecoderBlockImpl(AttentionKind attention_kind, const ModelOptions& options);
  // y + SelfAttn(LN(y)); y + CrossAttn(LN(y), memory); y + FFN(LN(y))
  torch::Tensor forward(const torch::Tensor& y, const torch::Tensor& memory,
                        const LayerObserver& observe = {});

 private:
  torch::nn::LayerNorm ln_self_{nullptr}, ln_cross_{nullptr};
  SelfAttention self_attention_;
  CrossAttention cross_{nullptr};
  FeedForward ffn_{nullptr};
};
TORCH_MODULE(DecoderBlock);

class EncoderDecoderImpl : public torch::nn::Module {
 public:
  // Uses options.encoder_attention, layers (encoder), decoder_layers (0: same as layers).
  EncoderDecoderImpl(const ModelOptions& options, int64_t source_vocab, int64_t target_vocab);

  // The observer: the encoder's layers and the decoder's (InspectionObserver::decoderLayer).
  torch::Tensor encode(const torch::Tensor& source,
                       const InspectionObserver& observe = {});  // (B, Ts, D)
  // target_in (B, Tt) token ids (teacher forcing) -> logits (B, Tt, V).
  torch::Tensor decode(const torch::Tensor& target_in, const torch::Tensor& memory,
                       const InspectionObserver& observe = {});
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target_in,
                        InspectionRecord* record = nullptr);
  // Greedy decoding from `bos` for `length` tokens: (B, length), excluding bos.
  torch::Tensor greedyDecode(const torch::Tensor& source, int64_t bos, int64_t length);

  const ModelOptions& options() const { return options_; }
  int64_t parameterCount() const;

 private:
  torch::Tensor embedWithPositions(torch::nn::Embedding& embed, const torch::Tensor& tokens);
  ModelOptions options_;
  torch::nn::Embedding source_embed_{nullptr}, target_embed_{nullptr};
  std::vector<TransformerBlock> encoder_;
  std::vector<DecoderBlock> decoder_;
  torch::nn::LayerNorm ln_encoder_{nullptr}, ln_decoder_{nullptr};
  torch::nn::Linear output_{nullptr};
};
TORCH_MODULE(EncoderDecoder);

}  // namespace rsalab
