// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/rsa_attention.h"

#include <cmath>
#include <stdexcept>

#include "engine/kernels/blocked_attention.h"
#include "engine/models/transformer.h"

namespace rsalab {

RsaAttentionImpl::RsaAttentionImpl(int64_t d_model, int64_t heads, bool causal,
                                   const RemHeadCounts& counts,
                                   const std::vector<int64_t>& dilations, const RemInit& init)
    : SelfAttentionImpl(d_model, heads, causal) {
  auto specs = assignRemHeads(counts, dilations);
  if (static_cast<int64_t>(specs.size()) > heads) {
    throw std::invalid_argument("REM head counts sum to " + std::to_string(specs.size()) +
                                " but there are only heads = " + std::to_string(heads));
  }
  const auto R = static_cast<int64_t>(specs.size());
  rems_ = register_module("rems", RemBuilder(std::move(specs), init, causal));
  mu = register_parameter("mu", torch::full({R}, init.mu), /*requires_grad=*/init.learn_gate);
}

namespace {
// The gated mix on heads h < R: (1 − g_h)·S_h V_h + g_h·P_h V_h, from y = S·V (B, H, Tq, Dh),
// v (B, H, Tk, Dh), P (R, Tq, Tk), g (R); heads R.. keep S_h V_h.
torch::Tensor mixRems(const torch::Tensor& y, const torch::Tensor& v, const torch::Tensor& P,
                      const torch::Tensor& g) {
  const int64_t R = P.size(0), H = y.size(1);
  if (R == 0) return y;
  const auto B = v.size(0), Tq = P.size(1), Tk = P.size(2), Dh = v.size(3);
  // P_h V_h for the REM heads as one bmm over heads, batch folded into the columns.
  auto v_rem = v.narrow(1, 0, R).permute({1, 2, 0, 3}).reshape({R, Tk, B * Dh});  // (R, Tk, B·Dh)
  auto pv = torch::bmm(P, v_rem).view({R, Tq, B, Dh}).permute({2, 0, 1, 3});      // (B, R, Tq, Dh)
  auto gh = g.view({1, R, 1, 1});                                                 // (1, R, 1, 1)
  auto mixed = (1 - gh) * y.narrow(1, 0, R) + gh * pv;                            // (B, R, Tq, Dh)
  if (R == H) return mixed;
  return torch::cat({mixed, y.narrow(1, R, H - R)}, /*dim=*/1);  // (B, H, Tq, Dh)
}
}  // namespace

// RSA: ((1 − σ(µ))·softmax(QKᵀ/√Dh + mask) + σ(µ)·P)·V on REM heads, softmax(...)·V on the rest
torch::Tensor RsaAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_padding,
                                        const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  const int64_t T = q.size(2), R = rems_->size();
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  auto g = gate().to(q.scalar_type());  // (R): σ(µ_h)
  // Training on the CPU: the blocked kernel mixes each P_h, given by its 2T − 1 diagonals (it is
  // Toeplitz), into its blocks of softmax weights: the same values, no (B, H, T, T) tensor.
  if (!observe && q.is_cpu() && !key_padding.defined()) {
    RemMixing mixing;
    if (R > 0) mixing = {rems_->diagonals(T).to(q.scalar_type()), g};  // (R, 2T − 1), (R)
    return out_->forward(mergeHeads(blockedSoftmaxAttention(q, k, v, scale, causal_, mixing)));
  }
  // The same, written out (GPU, key padding, inspection):
  if (key_padding.defined()) {  // P reads v directly: padded values must be 0
    v = v.masked_fill(key_padding.view({v.size(0), 1, T, 1}), 0.0);
  }
  auto S = softmaxWeights(q, k, scale, causal_, key_padding);  // (B, H, T, T): softmax part
  auto P = rems_->build(T).to(q.scalar_type());                // (R, T, T): REMs, built once
  auto y = torch::matmul(S, v);                                // (B, H, T, Dh): S·V
  y = mixRems(y, v, P, g);  // (B, H, T, Dh): (1 − σ(µ))·S·V + σ(µ)·P·V on heads < R
  if (observe) observe.rsaAttention(S, P, gate(), *rems_);
  return out_->forward(mergeHeads(y));  // (B, T, D)
}

torch::Tensor RsaAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k_t, v_t] = projectQkv(x_t);          // (B, H, 1, Dh) each
  const int64_t t = state.length;                // the new position
  auto [k, v] = appendToCache(state, k_t, v_t);  // (B, H, t+1, Dh)
  auto S = softmaxWeights(q, k, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                          /*causal=*/false);  // (B, H, 1, t+1): keys 0..t only
  auto lags = t - torch::arange(t + 1, q.options().dtype(torch::kInt64)).unsqueeze(0);  // (1, t+1)
  auto P = rems_->build(lags).to(q.scalar_type());  // (R, 1, t+1): row t of the REMs
  auto y = mixRems(torch::matmul(S, v), v, P, gate().to(q.scalar_type()));  // (B, H, 1, Dh)
  return out_->forward(mergeHeads(y));                                      // (B, 1, D)
}

namespace {

// The maker of the attention card named "rsa" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kRsaMaker =
    registerAttentionMaker("rsa", [](const ModelOptions& o, bool causal) -> SelfAttention {
      return std::make_shared<RsaAttentionImpl>(o.d_model, o.heads, causal, o.rem, o.dilations,
                                                o.rem_init);
    });

}  // namespace

}  // namespace rsalab
