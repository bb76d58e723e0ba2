// SPDX-License-Identifier: GPL-3.0-or-later
// The fused causal linear-attention kernel: the one sweep over time of the RNN form, forward and
// backward as plain loops per head (compiled with -fopenmp, see engine/CMakeLists.txt).
// Seed: linear-attention-transformers-are-rnns-note.txt; spec models.md "Linear attention".
#pragma once

#include "engine/torch_api.h"

namespace rsalab {

// The normaliser's eps in every form of linear attention (spec: eps = 1e−6).
constexpr double kLinearAttentionEps = 1e-6;

// Whether the fused kernel takes these inputs: CPU, float or double.
bool fusedLinearAttentionSupports(const torch::Tensor& x);

// Causal linear attention straight from the layer's packed projection: qkv (B, T, 3D) holds
// [Q K V] with D = heads·Dh, head h at columns h·Dh.. of each part -> (B, T, D), the heads
// merged (what linearAttentionChunked gives after mergeHeads). Per head, with φ = elu + 1 and
// S_i = Σ_{j≤i} φ(K_j)V_jᵀ, z_i = Σ_{j≤i} φ(K_j): out_i = φ(Q_i)ᵀS_i / (φ(Q_i)ᵀz_i + eps).
// key_padding (B, T) bool, optional: true at keys left out (φ(K_j) taken as 0).
// The state (S, z) is kept in the inputs' precision; the backward is the same kind of sweep
// (Katharopoulos et al. 2020, appendix), recomputing S, z forwards and summing R = Σ_{i≥j}
// φ(Q_i)g_iᵀ backwards. Heads run in parallel over at::parallel_for. CPU float or double.
torch::Tensor fusedCausalLinearAttention(const torch::Tensor& qkv, int64_t heads,
                                         const torch::Tensor& key_padding = {});

// The same kernel on per-head tensors q, k, v (B, H, T, Dh) -> (B, H, T, Dh), for comparison
// with linearAttentionParallel / Chunked (packs them into one (B, T, 3·H·Dh) tensor first).
torch::Tensor linearAttentionFused(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& key_padding = {});

}  // namespace rsalab
