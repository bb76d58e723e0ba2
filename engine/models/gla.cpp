// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/gla.h"

#include <cmath>
#include <limits>
#include <vector>

#include "engine/models/transformer.h"

namespace rsalab {

namespace {
constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
}  // namespace

// Chunkwise form (arXiv 2312.06635 §4.2), log space: see the header for the three terms.
torch::Tensor glaChunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& log_alpha, int64_t chunk) {
  TORCH_CHECK(chunk >= 1, "GLA chunk length must be positive, got ", chunk);
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), Dh = q.size(3), Dv = v.size(3);
  const int64_t C = std::min(chunk, T), N = (T + C - 1) / C, pad = N * C - T;
  auto blocks = [&](const torch::Tensor& t) {  // (B, H, T, ·) -> (B, H, N, C, ·), zero-padded
    auto p = pad > 0 ? torch::constant_pad_nd(t, {0, 0, 0, pad}) : t;
    return p.reshape({B, H, N, C, t.size(3)});
  };
  auto qb = blocks(q), kb = blocks(k), vb = blocks(v);  // (B, H, N, C, Dh|Dv)
  auto b = blocks(log_alpha).cumsum(3);                 // (B, H, N, C, Dh): b_i, ≤ 0
  auto last = b.select(3, C - 1);                       // (B, H, N, Dh): b_last

  // Inside a block: A_ij = Σ_c q_ic k_jc exp(b_ic − b_jc), j ≤ i; masked before exp, so the
  // positive differences above the diagonal never reach it.
  auto future = torch::ones({C, C}, q.options().dtype(torch::kBool)).triu(1).view({C, C, 1});
  auto decay = (b.unsqueeze(4) - b.unsqueeze(3)).masked_fill(future, kMinusInf).exp();
  // (B, H, N, C, C, Dh)
  auto scores = torch::matmul(kb.unsqueeze(3) * decay, qb.unsqueeze(-1)).squeeze(-1);
  // (B, H, N, C, C)
  auto o = torch::matmul(scores, vb);  // (B, H, N, C, Dv)

  // Between blocks: U_n = Σ_j (k_j ⊙ exp(b_last − b_j))ᵀ v_j, S_{n+1} = diag(exp(b_last)) S_n +
  // U_n.
  auto k_to_end = kb * (last.unsqueeze(3) - b).exp();      // (B, H, N, C, Dh)
  auto U = torch::matmul(k_to_end.transpose(-2, -1), vb);  // (B, H, N, Dh, Dv)
  auto carry = last.exp().unsqueeze(-1);                   // (B, H, N, Dh, 1)
  std::vector<torch::Tensor> entering;                     // S_n for n = 0..N−1
  entering.reserve(static_cast<size_t>(N));
  auto S = torch::zeros({B, H, Dh, Dv}, q.options());  // (B, H, Dh, Dv)
  for (int64_t n = 0; n < N; ++n) {
    entering.push_back(S);
    if (n + 1 < N) S = carry.select(2, n) * S + U.select(2, n);  // (B, H, Dh, Dv)
  }
  auto S_in = torch::stack(entering, 2);                // (B, H, N, Dh, Dv)
  o = o + torch::matmul(qb * b.exp(), S_in);            // (B, H, N, C, Dv)
  return o.reshape({B, H, N * C, Dv}).narrow(2, 0, T);  // (B, H, T, Dv)
}

torch::Tensor glaAttentionMatrix(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& log_alpha) {
  const int64_t T = q.size(2);
  // Cumulative in float64, so that differences of large sums keep their precision.
  auto L = log_alpha.to(torch::kFloat64).cumsum(2);  // (B, H, T, Dh): Σ_{l ≤ i} log α_l
  auto future = torch::ones({T, T}, L.options().dtype(torch::kBool)).triu(1).view({T, T, 1});
  auto decay = (L.unsqueeze(3) - L.unsqueeze(2)).masked_fill(future, kMinusInf).exp();
  // (B, H, T, T, Dh): exp(L_i − L_j) = Π_{l=j+1..i} α_l for j ≤ i, 0 above the diagonal
  auto w = (q.to(torch::kFloat64).unsqueeze(3) * k.to(torch::kFloat64).unsqueeze(2) * decay)
               .sum(-1);         // (B, H, T, T)
  return w.to(q.scalar_type());  // W
}

// S_t = diag(α_t) S_{t−1} + k_tᵀ v_t, o_t = q_t S_t
torch::Tensor glaStep(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                      const torch::Tensor& log_alpha, torch::Tensor& S) {
  const auto state_type = q.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  auto qt = q.to(state_type).squeeze(2);                   // (B, H, Dh)
  auto kt = k.to(state_type).squeeze(2);                   // (B, H, Dh)
  auto vt = v.to(state_type).squeeze(2);                   // (B, H, Dv)
  auto alpha = log_alpha.to(state_type).squeeze(2).exp();  // (B, H, Dh)
  if (!S.defined())
    S = torch::zeros({qt.size(0), qt.size(1), qt.size(2), vt.size(2)}, qt.options());
  S = alpha.unsqueeze(-1) * S + kt.unsqueeze(-1) * vt.unsqueeze(-2);  // (B, H, Dh, Dv)
  auto o = torch::matmul(qt.unsqueeze(-2), S);                        // (B, H, 1, Dv)
  return o.to(q.scalar_type());
}

GatedLinearAttentionImpl::GatedLinearAttentionImpl(int64_t d_model, int64_t heads)
    : SelfAttentionImpl(d_model, heads, /*causal=*/true) {
  decay_down_ = register_module(
      "decay_down", torch::nn::Linear(torch::nn::LinearOptions(d_model, kGlaGateRank).bias(false)));
  decay_up_ = register_module("decay_up", torch::nn::Linear(kGlaGateRank, d_model));
  gate_ = register_module("gate", torch::nn::Linear(d_model, d_model));
  norm_ =
      register_module("norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(heads, d_model)));
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor>
GatedLinearAttentionImpl::project(const torch::Tensor& x, const torch::Tensor& key_padding) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  k = k * (1.0 / std::sqrt(static_cast<double>(head_dim_)));
  // log α = log σ(x W_α1 W_α2 + b_α) / τ, ≤ 0 (log_sigmoid stays finite for any logit).
  auto log_alpha = splitHeads(torch::log_sigmoid(decay_up_->forward(decay_down_->forward(x))) *
                              (1.0 / kGlaTemperature));  // (B, H, T, Dh)
  if (key_padding.defined()) {
    const auto pad = key_padding.view({key_padding.size(0), 1, key_padding.size(1), 1});
    k = k.masked_fill(pad, 0.0);                  // no key
    log_alpha = log_alpha.masked_fill(pad, 0.0);  // and no decay: transparent
  }
  return {q, k, v, log_alpha};
}

torch::Tensor GatedLinearAttentionImpl::gateAndProject(const torch::Tensor& x,
                                                       const torch::Tensor& o) {
  const auto B = o.size(0), T = o.size(1);
  auto normed = norm_->forward(o.reshape({B * T, d_model_})).view({B, T, d_model_});  // (B, T, D)
  return out_->forward(torch::silu(gate_->forward(x)) * normed);                      // (B, T, D)
}

// GLA: W_O(swish(x W_r) ⊙ GroupNorm_H(o)), o_t = q_t S_t, S_t = diag(α_t) S_{t−1} + k_tᵀ v_t
torch::Tensor GatedLinearAttentionImpl::forward(const torch::Tensor& x,
                                                const torch::Tensor& key_padding,
                                                const LayerObserver& observe) {
  auto [q, k, v, log_alpha] = project(x, key_padding);  // (B, H, T, Dh) each
  auto o = glaChunked(q, k, v, log_alpha);              // (B, H, T, Dh)
  if (observe) {
    torch::NoGradGuard no_grad;
    // W of the observed sample only ((1, H, T, T, Dh) transient), shown to the observer as a
    // batch (expanded, no copy) from which it takes that sample.
    const int64_t s = observe.sample(), B = x.size(0);
    auto w = glaAttentionMatrix(q.narrow(0, s, 1), k.narrow(0, s, 1), log_alpha.narrow(0, s, 1));
    observe.attention(w.expand({B, -1, -1, -1}));  // (B, H, T, T)
    observe.decay(log_alpha.mean(-1).exp());       // (B, H, T): exp(mean_c log α_tc)
  }
  return gateAndProject(x, mergeHeads(o));  // (B, T, D)
}

torch::Tensor GatedLinearAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k, v, log_alpha] = project(x_t);       // (B, H, 1, Dh) each
  auto o = glaStep(q, k, v, log_alpha, state.S);  // (B, H, 1, Dh)
  state.length += 1;
  return gateAndProject(x_t, mergeHeads(o));  // (B, 1, D)
}

namespace {

// The maker of the attention card named "gla" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kGlaMaker =
    registerAttentionMaker("gla", [](const ModelOptions& o, bool /*causal*/) -> SelfAttention {
      return std::make_shared<GatedLinearAttentionImpl>(o.d_model, o.heads);
    });

}  // namespace

}  // namespace rsalab
