// SPDX-License-Identifier: GPL-3.0-or-later
// Informer and RSA-Informer, the forecaster family (ModelFamily::Forecaster), from Zhou, Zhang,
// Peng, Zhang, Li, Xiong and Zhang, "Informer: Beyond Efficient Transformer for Long Sequence
// Time-Series Forecasting" (AAAI 2021, arXiv 2012.07436), written from the paper:
//   - input representation (its Appendix B): u = value embedding + position embedding + time-stamp
//     embedding. The value embedding is a 1-D convolution of width 3 over the columns (the
//     encoder's circular, as the authors' code; the decoder's reads t−2..t, our choice, so that a
//     placeholder's embedding reads no later placeholder); positions are sinusoidal; the
//     time stamps are learned embeddings of month, day, weekday and hour (DataSplit::marks);
//   - the encoder: layers of ProbSparse self-attention (engine/models/prob_attention.h) and a
//     feed-forward block of width ff_mult·D (GELU), each with a residual and a LayerNorm after
//     it; between two layers the self-attention distilling of §"Encoder": Conv1d (width 3,
//     circular) → BatchNorm → ELU → max-pool (width 3, stride 2), halving the length; a last
//     LayerNorm;
//   - the generative decoder (§"Decoder"): its input is the window's last label_len known steps
//     (the start token) and H zero placeholders, with their time stamps (the placeholders' are
//     known: the calendar); layers of masked ProbSparse self-attention, full cross-attention to
//     the encoder's output and the feed-forward block, each with a residual and a LayerNorm; a
//     last LayerNorm and a linear map to the C columns. The H placeholders' outputs are the
//     forecast: all H steps in one forward pass, no generation step.
// Layers: options.layers encoder layers (options.layers − 1 distilling steps), decoder_layers
// decoder layers (0: one, the paper's). No dropout (no model of this workbench has one).
//
// RSA-Informer (card rsa-informer): RSA's REMs and gate (the RSA paper, Figure 1(d)) in Informer's
// self-attention. The RSA paper's Informer section is not among the seeds, so each choice is ours:
//   - REMs in both self-attentions: the encoder's (bidirectional, |i − j|, one set per layer, at
//     that layer's length after distilling) and the decoder's masked one (causal); the
//     cross-attention stays as Informer's;
//   - the REM part is added to every query's output, active or lazy (prob_attention.h): ProbSparse
//     chooses which queries attend, the recurrence serves all of them;
//   - heads, kinds, dilations and the start of η, ν, θ and µ are RSA's (options.rem,
//     options.rem_init: µ starts at rem_init.mu, σ(0) = 0.5 by default), as the card `rsa`.
// Both are series-only and long-horizon only: x (B, L, C) z values and marks (B, L + H, 4) give
// (B, 1, H·C), column c of step h at h·C + c (the protocol's targets).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/models/prob_attention.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

// The embedding of one side (encoder or decoder): value conv + sinusoidal position + time stamps.
class InformerEmbeddingImpl : public torch::nn::Module {
 public:
  InformerEmbeddingImpl(int64_t columns, int64_t d_model, bool causal_conv);
  // x (B, T, C) float, marks (B, T, 4) int64 → (B, T, D)
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& marks);

 private:
  bool causal_conv_;
  torch::nn::Conv1d value_{nullptr};
  torch::nn::Embedding month_{nullptr}, day_{nullptr}, weekday_{nullptr}, hour_{nullptr};
};
TORCH_MODULE(InformerEmbedding);

class InformerModelImpl : public SequenceModelImpl {
 public:
  InformerModelImpl(const ModelOptions& options, const ModelIO& io);

  // Throws std::invalid_argument: Informer reads the window's calendar marks (forwardMarked).
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  // x (B, L, C), marks (B, L + H, 4) → (B, 1, H·C).
  torch::Tensor forwardMarked(const torch::Tensor& x, const torch::Tensor& marks,
                              InspectionRecord* record = nullptr) override;
  bool readsMarks() const override { return true; }
  bool causal() const override { return true; }  // one output, after every input

  // The decoder's output at every decoder position, (B, T_dec, C), from the encoder's input and
  // marks (B, L, C), (B, L, 4) and the decoder's (B, T_dec, C), (B, T_dec, 4). Marks int64.
  torch::Tensor decode(const torch::Tensor& x_enc, const torch::Tensor& marks_enc,
                       const torch::Tensor& x_dec, const torch::Tensor& marks_dec);
  // Every attention's key sample and selection (prob_attention.h).
  void holdSelection(bool hold);
  void setSampleSeed(uint64_t seed);
  std::vector<ProbAttention> attentions() const;
  int64_t labelLength() const { return label_; }
  int64_t horizon() const { return horizon_; }

 private:
  struct EncoderLayer {
    ProbAttention attention{nullptr};
    torch::nn::Linear ff1{nullptr}, ff2{nullptr};
    torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};
  };
  struct Distil {
    torch::nn::Conv1d conv{nullptr};
    torch::nn::BatchNorm1d norm{nullptr};
  };
  struct DecoderLayer {
    ProbAttention self{nullptr}, cross{nullptr};
    torch::nn::Linear ff1{nullptr}, ff2{nullptr};
    torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
  };
  torch::Tensor encode(const torch::Tensor& x, const torch::Tensor& marks);

  int64_t columns_, horizon_, label_;
  InformerEmbedding enc_embed_{nullptr}, dec_embed_{nullptr};
  std::vector<EncoderLayer> encoder_;
  std::vector<Distil> distil_;
  std::vector<DecoderLayer> decoder_;
  torch::nn::LayerNorm enc_norm_{nullptr}, dec_norm_{nullptr};
  torch::nn::Linear projection_{nullptr};
};

// The forecaster family's factory case.
SequenceModel makeInformer(const ModelOptions& options, const ModelIO& io);

}  // namespace rsalab
