#include "engine/models/linear_attention.h"

namespace rsalab {

torch::Tensor eluFeatureMap(const torch::Tensor& x) { return torch::elu(x) + 1; }

torch::Tensor linearAttentionWeights(const torch::Tensor& q, const torch::Tensor& k,
                                     bool causal) {
  auto sim = torch::matmul(eluFeatureMap(q), eluFeatureMap(k).transpose(-2, -1));  // (B, H, T, T)
  if (causal) sim = sim.tril();
  return sim / (sim.sum(-1, /*keepdim=*/true) + kLinearAttentionEps);
}

torch::Tensor linearAttentionParallel(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, bool causal) {
  auto fq = eluFeatureMap(q), fk = eluFeatureMap(k);                  // (B, H, T, Dh)
  if (causal) {
    auto sim = torch::matmul(fq, fk.transpose(-2, -1)).tril();       // (B, H, T, T)
    return torch::matmul(sim, v) / (sim.sum(-1, true) + kLinearAttentionEps);  // (B, H, T, Dh)
  }
  auto kv = torch::matmul(fk.transpose(-2, -1), v);                  // (B, H, Dh, Dh)
  auto z = fk.sum(2, /*keepdim=*/true);                              // (B, H, 1, Dh)
  auto denom = (fq * z).sum(-1, true) + kLinearAttentionEps;         // (B, H, T, 1)
  return torch::matmul(fq, kv) / denom;                              // (B, H, T, Dh)
}

torch::Tensor linearAttentionCumulative(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v) {
  auto fq = eluFeatureMap(q), fk = eluFeatureMap(k);                 // (B, H, T, Dh)
  auto S = (fk.unsqueeze(-1) * v.unsqueeze(-2)).cumsum(2);           // (B, H, T, Dh, Dh)
  auto z = fk.cumsum(2);                                             // (B, H, T, Dh)
  auto num = torch::matmul(fq.unsqueeze(-2), S).squeeze(-2);         // (B, H, T, Dh)
  auto denom = (fq * z).sum(-1, true) + kLinearAttentionEps;         // (B, H, T, 1)
  return num / denom;
}

torch::Tensor linearAttentionStep(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, torch::Tensor& S, torch::Tensor& z) {
  // State kept in float32 (or wider) whatever the activations' precision.
  const auto state_type = q.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  const auto B = q.size(0), H = q.size(1), Dh = q.size(3), Dv = v.size(3);
  // Heads folded into the batch of bmm: few, small ops, as generation is per-op overhead.
  auto fq = eluFeatureMap(q).to(state_type).reshape({B * H, 1, Dh});   // (BH, 1, Dh)
  auto fk = eluFeatureMap(k).to(state_type).reshape({B * H, Dh, 1});   // (BH, Dh, 1)
  auto vt = v.to(state_type).reshape({B * H, 1, Dv});                  // (BH, 1, Dv)
  if (!S.defined()) {
    S = torch::zeros({B, H, Dh, Dv}, fk.options());
    z = torch::zeros({B, H, Dh}, fk.options());
  }
  S = torch::baddbmm(S.view({B * H, Dh, Dv}), fk, vt).view({B, H, Dh, Dv});  // S + φ(k)vᵀ
  z = z + fk.view({B, H, Dh});                                                // (B, H, Dh)
  auto num = torch::bmm(fq, S.view({B * H, Dh, Dv}));                        // (BH, 1, Dv)
  auto denom = torch::bmm(fq, z.view({B * H, Dh, 1})) + kLinearAttentionEps; // (BH, 1, 1)
  return (num / denom).view({B, H, 1, Dv}).to(q.scalar_type());              // (B, H, 1, Dv)
}

LinearAttentionImpl::LinearAttentionImpl(int64_t d_model, int64_t heads, bool causal,
                                         bool cumulative)
    : SelfAttentionImpl(d_model, heads, causal), cumulative_(cumulative) {}

// V'_i = φ(Q_i)ᵀ Σ_j φ(K_j)V_jᵀ / (φ(Q_i)ᵀ Σ_j φ(K_j) + eps)
torch::Tensor LinearAttentionImpl::forward(const torch::Tensor& x, LayerInspection* record,
                                           int64_t sample) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  auto y = (causal_ && cumulative_) ? linearAttentionCumulative(q, k, v)
                                    : linearAttentionParallel(q, k, v, causal_);  // (B, H, T, Dh)
  if (record) {
    auto w = linearAttentionWeights(q[sample], k[sample], causal_);  // (H, T, T)
    record->heads.resize(static_cast<size_t>(heads_));
    for (int64_t h = 0; h < heads_; ++h) record->heads[static_cast<size_t>(h)].attention = toMatrix(w[h]);
  }
  return out_->forward(mergeHeads(y));  // (B, T, D)
}

torch::Tensor LinearAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k, v] = projectQkv(x_t);                           // (B, H, 1, Dh)
  auto y = linearAttentionStep(q, k, v, state.S, state.z);    // (B, H, 1, Dh)
  state.length += 1;
  return out_->forward(mergeHeads(y));                        // (B, 1, D)
}

}  // namespace rsalab
