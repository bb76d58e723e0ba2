// SPDX-License-Identifier: GPL-3.0-or-later
// Analytic FLOPs of each model, the one implementation shared by the bench (MFU = achieved FLOP/s ÷
// GEMM peak) and the comparison table (FLOPs per token); each card holds its own count
// (ModelCard::forward_flops, model_cards.cpp), this header the conventions and the shape.
// Torch-free: plain arithmetic on options. Counted: matrix products only (2·m·n·k each) plus the
// linear-attention state updates, which are that model's real work. Elementwise ops (softmax, GELU,
// LayerNorm, gates, REM building) are left out, as in PaLM's MFU. Attention products are counted in
// full (T × T per head, causal or not), so any saving from causality shows up as a higher MFU,
// never as less "work". One training step = forward + backward, backward = 2 × forward (a grad for
// the input and one for the weight of each product), so step = 3 × forward. The AdamW update is
// O(params): left out.
//
// With N = B·T tokens, D width, H heads, Dh = D/H, L layers, f = ff_mult, R = REM heads, G = gate
// blocks of a recurrent cell (ModelCard::gate_blocks: RNN 1, GRU 3, LSTM 4), F_in/F_out
// input/output features:
// clang-format off
//   io            2·N·D·(F_in + F_out)
//   softmax       L·[(8 + 4f)·N·D² + 4·B·T²·D]  QKV 6ND², output 2ND², FFN 2·2f·ND²,
//                                               QKᵀ 2BT²D, A·V 2BT²D
//   RSA           as softmax                    ((1 − σ(µ))·softmax + σ(µ)·P)·V is one A·V
//                                               product per head; mixing P in is elementwise
//   linear        L·[(8 + 4f)·N·D² + 4·N·D·Dh]  φ(K)⊗V (N·D·Dh), cumsum (N·D·Dh), φ(Q)·S (2·N·D·Dh)
//   retention     L·[(10 + 4f)·N·D² + 4·B·T²·D] as softmax (its parallel form's QKᵀ and R̃·V are
//                                               the same T × T products; the decay mask, its
//                                               normalisers and GroupNorm are elementwise) plus
//                                               the gate projection X·W_G, 2ND²
//   GLA           L·[(10 + 4f)·N·D² + 64·N·D    as softmax's dense products, plus the gate X·W_r
//                    + 4·N·C·D + 4·N·D·Dh       (2ND²) and the rank-16 decay X·W_α1·W_α2 (2·2·16·ND);
//                    + 2·N·D·Dh/C]              the chunkwise form (gla.h), blocks of C = min(16, T):
//                                               inside each block Σ_c q_ic k_jc e^(b_ic − b_jc) and
//                                               A·V (2·N·C·D each), each block's Σ kᵀv and q·S_in
//                                               (2·N·D·Dh each), the state carried block to block
//                                               (2·Dh² per head and block); no T × T product
//   mLSTM         L·[(10 + 4f)·N·D² + 4·N·D·H   as softmax (the parallel form's QKᵀ and C̃·V are
//                    + 4·B·T²·D]                the T × T products; log D, its row max, the
//                                               normaliser and GroupNorm are elementwise) plus
//                                               the output gate X·W_o, 2ND², and the scalar
//                                               input and forget gates, 2·N·D·H each
//   StarSaber     L·[8·N·D² + 4·B·T²·D]         W, U, Q, V 8ND²; scores 2BT²D; G_past·U h and
//                                               G_future·Q h together one A·V, 2BT²D (keys
//                                               split at the diagonal, not two full
//                                               T × T products, which would count 6BT²D)
//                                               (gated: + 4·N·D² for W_z, V_z)
//   recurrent     L·4·G·N·D²                    x·W_ihᵀ and h·W_hhᵀ, each 2·N·D·G·D
//   Mamba-2       L·[2·N·D·(3E + 2S + H)        in_proj D → [z, x, B, C, dt], out_proj E → D
//                    + 2·N·K·(E + 2S)           the depthwise causal conv (K = 4 taps)
//                    + 2·N·Q·(S + E)            inside each block of Q = min(64, T): C Bᵀ (shared
//                                               by the heads) and M·x
//                    + 4·N·E·S                  each block's state (Σ Δx Bᵀ) and C·(state in)
//                    + 2·B·(n+1)²·E·S]          the states passed between the n = ⌈T/Q⌉ blocks
//                                               (E = 2D inner width, S = 16 state size: the chunked
//                                               SSD scan that training runs, mamba2.h)
//   nlinear       2·N·K·F_out                   the (K → H) map of each column's window; no io
//                                               (K = lookback, F_out = H·C)
//   dlinear       2·N·K·F_out + 2·K²·F_out/F_in as nlinear after folding the trend and remainder
//                                               maps through the moving average A (K × K),
//                                               W_r + (W_t − W_r)·A, once per forward
// clang-format on
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/config/model_options.h"
#include "engine/core/config/model_variant.h"
#include "engine/core/registry/model_registry.h"

namespace rsalab {

// Mamba-2's fixed sizes (engine/models/mamba2.h's kMamba2Expand, kMamba2StateSize,
// kMamba2ConvWidth, kMamba2Chunk; test_mamba2 holds them equal): this header stays torch-free.
// GLA's block length and gate rank (engine/models/gla.h's kGlaChunk, kGlaGateRank; test_gla holds
// them equal).
constexpr double kGlaFlopsChunk = 16, kGlaFlopsGateRank = 16;

constexpr double kMamba2FlopsExpand = 2, kMamba2FlopsState = 16, kMamba2FlopsConv = 4,
                 kMamba2FlopsChunk = 64;

// `model` is a registry name; the count is its card's (ModelCard::forward_flops, model_cards.cpp).
// Throws std::invalid_argument for an unknown model.
inline double forwardFlops(const std::string& model, const StepShape& s) {
  return modelInfo(model).flops(s);
}

inline double trainStepFlops(const std::string& model, const StepShape& s) {
  return 3 * forwardFlops(model, s);
}

// Forward FLOPs per token of one sequence of length T (B = 1) for `model` built from `options`
// with `io` (token inputs are an embedding lookup: no input product). Attention terms grow with T,
// so the figure is quoted at the task's T. The seq2seq family is not covered (returns 0).
inline double forwardFlopsPerToken(const ModelOptions& variant, const ModelIO& io, int64_t T) {
  const ModelOptions options = withVariant(variant);  // a named variant's own numbers
  if (T < 1 || modelInfo(options.model).family == ModelFamily::Seq2Seq) return 0;
  StepShape s;
  s.B = 1;
  s.T = T;
  s.D = options.d_model;
  s.H = options.heads > 0 ? options.heads : 1;
  s.L = options.layers;
  s.ff_mult = options.linear_value_path ? 0 : options.ff_mult;  // no FFN on that path
  s.rem_heads = modelInfo(options.model).has(HasRems) ? options.rem.total() : 0;
  s.in_features = io.vocab > 0 ? 0 : io.input_dim;
  s.out_features = io.output_dim;
  s.gated = options.starsaber_gated;
  s.lookback = options.lookback;
  return forwardFlops(options.model, s) / static_cast<double>(T);
}

}  // namespace rsalab
