// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/fox.h"

#include <cmath>

#include "engine/kernels/blocked_attention.h"
#include "engine/models/transformer.h"

namespace rsalab {

torch::Tensor forgetBias(const torch::Tensor& c_queries, const torch::Tensor& c_keys) {
  return c_queries.unsqueeze(-1) - c_keys.unsqueeze(-2);  // (B, H, Tq, Tk): Σ_{k=j+1..i} log f_k
}

ForgettingAttentionImpl::ForgettingAttentionImpl(int64_t d_model, int64_t heads)
    : SelfAttentionImpl(d_model, heads, /*causal=*/true) {
  forget_ = register_module("forget", torch::nn::Linear(d_model, heads));
}

torch::Tensor ForgettingAttentionImpl::logForgetGates(const torch::Tensor& x) {
  return torch::log_sigmoid(forget_->forward(x)).transpose(1, 2);  // (B, H, T)
}

torch::Tensor ForgettingAttentionImpl::forward(const torch::Tensor& x,
                                               const torch::Tensor& key_padding,
                                               const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  auto log_f = logForgetGates(x);  // (B, H, T)
  auto c = log_f.cumsum(-1);       // (B, H, T): c_t = Σ_{k ≤ t} log f_k
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  // Training on the CPU: the blocked kernel adds c_i − c_j to each block of scores itself and
  // returns dc, so no (B, H, T, T) bias or weights exist; the same values as the form below.
  if (!observe && q.is_cpu() && !key_padding.defined()) {
    return out_->forward(
        mergeHeads(blockedBiasedAttention(q, k, v, scale, /*causal=*/true, {{}, c})));
  }
  auto S =
      softmaxWeights(q, k, scale, /*causal=*/true, key_padding, forgetBias(c, c));  // (B, H, T, T)
  if (observe) {
    observe.attention(S);
    observe.decay(log_f.exp());  // f_t (B, H, T)
  }
  return out_->forward(mergeHeads(torch::matmul(S, v)));  // (B, T, D)
}

torch::Tensor ForgettingAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k_t, v_t] = projectQkv(x_t);  // (B, H, 1, Dh) each
  const int64_t t = state.length;        // the new position
  auto log_f = logForgetGates(x_t);      // (B, H, 1)
  auto previous = t > 0 ? state.log_forget.narrow(2, t - 1, 1) : torch::zeros_like(log_f);
  auto c_t = previous + log_f;  // (B, H, 1)
  if (!state.log_forget.defined() || state.log_forget.size(2) < t + 1) {
    auto grown = torch::empty({log_f.size(0), log_f.size(1), std::max<int64_t>(16, 2 * (t + 1))},
                              log_f.options());  // (B, H, capacity), as the KV cache grows
    if (t > 0) grown.narrow(2, 0, t).copy_(state.log_forget.narrow(2, 0, t));
    state.log_forget = grown;
  }
  state.log_forget.narrow(2, t, 1).copy_(c_t);
  auto [k, v] = appendToCache(state, k_t, v_t);  // (B, H, t+1, Dh); length becomes t + 1
  auto S = softmaxWeights(q, k, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                          /*causal=*/false, {},
                          forgetBias(c_t, state.log_forget.narrow(2, 0, t + 1)));  // (B, H, 1, t+1)
  return out_->forward(mergeHeads(torch::matmul(S, v)));                           // (B, 1, D)
}

namespace {

// The maker of the attention card named "fox" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kFoxMaker =
    registerAttentionMaker("fox", [](const ModelOptions& o, bool /*causal*/) -> SelfAttention {
      return std::make_shared<ForgettingAttentionImpl>(o.d_model, o.heads);
    });

}  // namespace

}  // namespace rsalab
