// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/linear_attention.h"

#include <algorithm>

#include "engine/models/transformer.h"

namespace rsalab {

torch::Tensor eluFeatureMap(const torch::Tensor& x) { return torch::elu(x) + 1; }

namespace {
// φ(k) with the padded keys' rows set to 0: fk (B, H, T, Dh) with key_padding (B, T), or
// (H, T, Dh) with (T).
torch::Tensor keyFeatures(const torch::Tensor& k, const torch::Tensor& key_padding) {
  auto fk = eluFeatureMap(k);
  if (!key_padding.defined()) return fk;
  auto pad = key_padding.dim() == 2 ? key_padding.unsqueeze(1).unsqueeze(-1)  // (B, 1, T, 1)
                                    : key_padding.unsqueeze(-1);              // (T, 1)
  return fk.masked_fill(pad, 0.0);
}
}  // namespace

torch::Tensor linearAttentionWeights(const torch::Tensor& q, const torch::Tensor& k, bool causal,
                                     const torch::Tensor& key_padding) {
  auto sim = torch::matmul(eluFeatureMap(q),
                           keyFeatures(k, key_padding).transpose(-2, -1));  // (B, H, T, T)
  if (causal) sim = sim.tril();
  return sim / (sim.sum(-1, /*keepdim=*/true) + kLinearAttentionEps);
}

torch::Tensor linearAttentionParallel(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, bool causal,
                                      const torch::Tensor& key_padding) {
  auto fq = eluFeatureMap(q), fk = keyFeatures(k, key_padding);  // (B, H, T, Dh)
  if (causal) {
    auto sim = torch::matmul(fq, fk.transpose(-2, -1)).tril();                 // (B, H, T, T)
    return torch::matmul(sim, v) / (sim.sum(-1, true) + kLinearAttentionEps);  // (B, H, T, Dh)
  }
  auto kv = torch::matmul(fk.transpose(-2, -1), v);           // (B, H, Dh, Dh)
  auto z = fk.sum(2, /*keepdim=*/true);                       // (B, H, 1, Dh)
  auto denom = (fq * z).sum(-1, true) + kLinearAttentionEps;  // (B, H, T, 1)
  return torch::matmul(fq, kv) / denom;                       // (B, H, T, Dh)
}

torch::Tensor linearAttentionCumulative(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v, const torch::Tensor& key_padding) {
  auto fq = eluFeatureMap(q), fk = keyFeatures(k, key_padding);  // (B, H, T, Dh)
  auto S = (fk.unsqueeze(-1) * v.unsqueeze(-2)).cumsum(2);       // (B, H, T, Dh, Dh)
  auto z = fk.cumsum(2);                                         // (B, H, T, Dh)
  auto num = torch::matmul(fq.unsqueeze(-2), S).squeeze(-2);     // (B, H, T, Dh)
  auto denom = (fq * z).sum(-1, true) + kLinearAttentionEps;     // (B, H, T, 1)
  return num / denom;
}

torch::Tensor linearAttentionChunked(const torch::Tensor& q, const torch::Tensor& k,
                                     const torch::Tensor& v, int64_t chunk,
                                     const torch::Tensor& key_padding) {
  TORCH_CHECK(chunk >= 1, "linearAttentionChunked: chunk must be at least 1");
  const int64_t T = q.size(-2), Dv = v.size(-1);
  const int64_t C = std::max<int64_t>(1, std::min(chunk, T)), N = (T + C - 1) / C;
  auto fq = eluFeatureMap(q), fk = keyFeatures(k, key_padding);  // (..., T, Dh)
  // V with a column of ones: the same products then also give the normaliser's Σ φ(K_j).
  auto ve = torch::cat({v, torch::ones_like(v.narrow(-1, 0, 1))}, -1);  // (..., T, Dv + 1)
  if (N * C > T) {  // zero rows: padded keys add nothing; padded queries are dropped below
    fq = torch::constant_pad_nd(fq, {0, 0, 0, N * C - T});
    fk = torch::constant_pad_nd(fk, {0, 0, 0, N * C - T});
    ve = torch::constant_pad_nd(ve, {0, 0, 0, N * C - T});
  }
  auto batch = fq.sizes().vec();
  batch.resize(batch.size() - 2);             // the leading dimensions, (B, H) or (H)
  auto split = [&](const torch::Tensor& t) {  // (..., N·C, E) -> (..., N, C, E)
    auto shape = batch;
    shape.insert(shape.end(), {N, C, t.size(-1)});
    return t.reshape(shape);
  };
  auto qc = split(fq), kc = split(fk), vc = split(ve);
  // Within each chunk: (φ(Q_c)φ(K_c)ᵀ ⊙ causal mask) [V_c 1].
  auto y = torch::matmul(torch::matmul(qc, kc.transpose(-2, -1)).tril(), vc);  // (..., N, C, Dv+1)
  if (N > 1) {
    auto states = torch::matmul(kc.transpose(-2, -1), vc);  // (..., N, Dh, Dv + 1): φ(K_c)ᵀ[V_c 1]
    // Exclusive prefix sum over chunks: before chunk n the state holds chunks 0..n−1.
    auto before = torch::cat(
        {torch::zeros_like(states.narrow(-3, 0, 1)), states.narrow(-3, 0, N - 1).cumsum(-3)}, -3);
    y = y + torch::matmul(qc, before);  // + φ(Q_c) [S z]
  }
  auto shape = batch;
  shape.insert(shape.end(), {N * C, Dv + 1});
  y = y.reshape(shape).narrow(-2, 0, T);                                     // (..., T, Dv + 1)
  return y.narrow(-1, 0, Dv) / (y.narrow(-1, Dv, 1) + kLinearAttentionEps);  // (..., T, Dv)
}

torch::Tensor linearAttentionStep(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, torch::Tensor& S, torch::Tensor& z) {
  // State kept in float32 (or wider) whatever the activations' precision.
  const auto state_type = q.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  // (B, H) kept as dimensions: an outer product and a batched matrix–vector product (1.28× faster
  // per call than heads folded into baddbmm/bmm; rsalab-bench "levers").
  auto fq = eluFeatureMap(q).to(state_type).squeeze(2);  // (B, H, Dh)
  auto fk = eluFeatureMap(k).to(state_type).squeeze(2);  // (B, H, Dh)
  auto vt = v.to(state_type).squeeze(2);                 // (B, H, Dv)
  if (!S.defined()) {
    S = torch::zeros({fk.size(0), fk.size(1), fk.size(2), vt.size(2)}, fk.options());
    z = torch::zeros_like(fk);
  }
  S = S + fk.unsqueeze(-1) * vt.unsqueeze(-2);                // S + φ(k)vᵀ: (B, H, Dh, Dv)
  z = z + fk;                                                 // (B, H, Dh)
  auto num = torch::matmul(fq.unsqueeze(-2), S).squeeze(-2);  // (B, H, Dv)
  auto denom = (fq * z).sum(-1, true) + kLinearAttentionEps;  // (B, H, 1)
  return (num / denom).unsqueeze(2).to(q.scalar_type());      // (B, H, 1, Dv)
}

LinearAttentionImpl::LinearAttentionImpl(int64_t d_model, int64_t heads, bool causal,
                                         bool cumulative)
    : SelfAttentionImpl(d_model, heads, causal), cumulative_(cumulative) {}

// V'_i = φ(Q_i)ᵀ Σ_j φ(K_j)V_jᵀ / (φ(Q_i)ᵀ Σ_j φ(K_j) + eps)
torch::Tensor LinearAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_padding,
                                           const LayerObserver& observe) {
  if (causal_ && cumulative_ && fused_ && fusedLinearAttentionSupports(x)) {
    // The fused kernel reads the packed projection and writes the merged heads: no split,
    // feature map, masking or merge as separate ops.
    auto qkv = qkv_->forward(x);                                    // (B, T, 3D)
    auto y = fusedCausalLinearAttention(qkv, heads_, key_padding);  // (B, T, D)
    if (observe) {
      auto parts = qkv.chunk(3, /*dim=*/-1);  // 3 × (B, T, D)
      observe.attention(linearAttentionWeights(splitHeads(parts[0]), splitHeads(parts[1]), causal_,
                                               key_padding));  // (B, H, T, T)
    }
    return out_->forward(y);  // (B, T, D)
  }
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  auto y = (causal_ && cumulative_)
               ? linearAttentionChunked(q, k, v, kLinearAttentionChunk, key_padding)
               : linearAttentionParallel(q, k, v, causal_, key_padding);  // (B, H, T, Dh)
  if (observe) observe.attention(linearAttentionWeights(q, k, causal_, key_padding));
  return out_->forward(mergeHeads(y));  // (B, T, D)
}

torch::Tensor LinearAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k, v] = projectQkv(x_t);                         // (B, H, 1, Dh)
  auto y = linearAttentionStep(q, k, v, state.S, state.z);  // (B, H, 1, Dh)
  state.length += 1;
  return out_->forward(mergeHeads(y));  // (B, 1, D)
}

namespace {

// The maker of the attention card named "linear" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kLinearMaker =
    registerAttentionMaker("linear", [](const ModelOptions& o, bool causal) -> SelfAttention {
      return std::make_shared<LinearAttentionImpl>(o.d_model, o.heads, causal, o.linear_cumulative);
    });

}  // namespace

}  // namespace rsalab
