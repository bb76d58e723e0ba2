// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/alibi.h"

#include <cmath>

namespace rsalab {

torch::Tensor alibiSlopes(int64_t heads) {
  auto h = torch::arange(1, heads + 1, torch::TensorOptions().dtype(torch::kFloat64));  // (H)
  return torch::pow(2.0, -8.0 * h / static_cast<double>(heads));
}

torch::Tensor alibiBias(const torch::Tensor& slopes, int64_t Tq, int64_t Tk, int64_t offset,
                        const torch::Tensor& like) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(like.device());
  auto i = torch::arange(offset, offset + Tq, f64), j = torch::arange(Tk, f64);
  auto lag = i.unsqueeze(1) - j.unsqueeze(0);                              // (Tq, Tk): i − j
  return (-slopes.to(f64).view({-1, 1, 1}) * lag).to(like.scalar_type());  // (H, Tq, Tk)
}

AlibiAttentionImpl::AlibiAttentionImpl(int64_t d_model, int64_t heads)
    : SelfAttentionImpl(d_model, heads, /*causal=*/true), slopes_(alibiSlopes(heads)) {}

torch::Tensor AlibiAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_padding,
                                          const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  const int64_t T = q.size(2);
  auto bias = alibiBias(slopes_, T, T, 0, q);  // (H, T, T)
  auto S = softmaxWeights(q, k, 1.0 / std::sqrt(static_cast<double>(head_dim_)), /*causal=*/true,
                          key_padding, bias);  // (B, H, T, T)
  if (observe) {
    observe.attention(S);
    observe.decay(torch::exp(-slopes_));  // λ_h = e^(−m_h) per step
  }
  return out_->forward(mergeHeads(torch::matmul(S, v)));  // (B, T, D)
}

torch::Tensor AlibiAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k_t, v_t] = projectQkv(x_t);            // (B, H, 1, Dh) each
  const int64_t t = state.length;                  // the new position
  auto [k, v] = appendToCache(state, k_t, v_t);    // (B, H, t+1, Dh)
  auto bias = alibiBias(slopes_, 1, t + 1, t, q);  // (H, 1, t+1)
  auto S = softmaxWeights(q, k, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                          /*causal=*/false, {}, bias);    // (B, H, 1, t+1)
  return out_->forward(mergeHeads(torch::matmul(S, v)));  // (B, 1, D)
}

}  // namespace rsalab
