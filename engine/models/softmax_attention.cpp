// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/softmax_attention.h"

#include <cmath>

#include "engine/kernels/blocked_attention.h"
#include "engine/models/transformer.h"

namespace rsalab {

SoftmaxAttentionImpl::SoftmaxAttentionImpl(int64_t d_model, int64_t heads, bool causal)
    : SelfAttentionImpl(d_model, heads, causal) {}

// softmax(QKᵀ/√Dh + mask)·V
torch::Tensor SoftmaxAttentionImpl::forward(const torch::Tensor& x,
                                            const torch::Tensor& key_padding,
                                            const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  if (!observe && q.is_cpu() && !key_padding.defined()) {  // training: no (B, H, T, T) tensor
    return out_->forward(mergeHeads(blockedSoftmaxAttention(q, k, v, scale, causal_)));
  }
  auto S = softmaxWeights(q, k, scale, causal_, key_padding);  // (B, H, T, T)
  observe.attention(S);
  return out_->forward(mergeHeads(torch::matmul(S, v)));  // (B, T, D)
}

torch::Tensor SoftmaxAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k_t, v_t] = projectQkv(x_t);          // (B, H, 1, Dh) each
  auto [k, v] = appendToCache(state, k_t, v_t);  // (B, H, t+1, Dh)
  auto S = softmaxWeights(q, k, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                          /*causal=*/false);              // (B, H, 1, t+1): keys 0..t only
  return out_->forward(mergeHeads(torch::matmul(S, v)));  // (B, 1, D)
}

CrossAttentionImpl::CrossAttentionImpl(int64_t d_model, int64_t heads)
    : d_model_(d_model), heads_(heads), head_dim_(d_model / heads) {
  q_ = register_module("q", torch::nn::Linear(d_model, d_model));
  kv_ = register_module("kv", torch::nn::Linear(d_model, 2 * d_model));
  out_ = register_module("out", torch::nn::Linear(d_model, d_model));
}

// softmax(Q_dec K_encᵀ/√Dh)·V_enc
torch::Tensor CrossAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& memory,
                                          const LayerObserver& observe) {
  const auto B = x.size(0), Tt = x.size(1), Ts = memory.size(1);
  auto q = q_->forward(x).view({B, Tt, heads_, head_dim_}).transpose(1, 2);  // (B, H, Tt, Dh)
  auto kv = kv_->forward(memory).chunk(2, -1);
  auto k = kv[0].view({B, Ts, heads_, head_dim_}).transpose(1, 2);  // (B, H, Ts, Dh)
  auto v = kv[1].view({B, Ts, heads_, head_dim_}).transpose(1, 2);  // (B, H, Ts, Dh)
  auto S = softmaxWeights(q, k, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                          /*causal=*/false);  // (B, H, Tt, Ts)
  observe.crossAttention(S);
  auto y = torch::matmul(S, v).transpose(1, 2).contiguous().view({B, Tt, d_model_});
  return out_->forward(y);  // (B, Tt, D)
}

namespace {

// The maker of the attention card named "softmax" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kSoftmaxMaker =
    registerAttentionMaker("softmax", [](const ModelOptions& o, bool causal) -> SelfAttention {
      return std::make_shared<SoftmaxAttentionImpl>(o.d_model, o.heads, causal);
    });

}  // namespace

}  // namespace rsalab
