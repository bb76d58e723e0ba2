// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/attention.h"

#include <limits>
#include <stdexcept>

namespace rsalab {

torch::Tensor keyPaddingMask(const torch::Tensor& x, const ModelIO& io) {
  if (io.vocab <= 0 || io.pad_token < 0 || x.dim() != 2) return {};
  auto mask = x.eq(io.pad_token);  // (B, T)
  if (!mask.any().item<bool>()) return {};
  return mask;
}

SelfAttentionImpl::SelfAttentionImpl(int64_t d_model, int64_t heads, bool causal)
    : d_model_(d_model), heads_(heads), head_dim_(d_model / heads), causal_(causal) {
  if (heads < 1 || d_model % heads != 0) {
    throw std::invalid_argument("d_model = " + std::to_string(d_model) +
                                " is not divisible by heads = " + std::to_string(heads));
  }
  qkv_ = register_module("qkv", torch::nn::Linear(d_model, 3 * d_model));
  out_ = register_module("out", torch::nn::Linear(d_model, d_model));
}

torch::Tensor SelfAttentionImpl::splitHeads(const torch::Tensor& x) const {
  const auto B = x.size(0), T = x.size(1);
  return x.view({B, T, heads_, head_dim_}).transpose(1, 2);  // (B, H, T, Dh)
}

torch::Tensor SelfAttentionImpl::mergeHeads(const torch::Tensor& x) const {
  const auto B = x.size(0), T = x.size(2);
  return x.transpose(1, 2).contiguous().view({B, T, d_model_});  // (B, T, D)
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> SelfAttentionImpl::projectQkv(
    const torch::Tensor& x) {
  auto qkv = qkv_->forward(x).chunk(3, /*dim=*/-1);  // 3 × (B, T, D)
  return {splitHeads(qkv[0]), splitHeads(qkv[1]), splitHeads(qkv[2])};
}

torch::Tensor softmaxWeights(const torch::Tensor& q, const torch::Tensor& k, double scale,
                             bool causal, const torch::Tensor& key_padding,
                             const torch::Tensor& bias) {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, Tq, Tk)
  if (bias.defined()) scores = scores + bias;
  if (causal) {
    const auto T = scores.size(-1);
    auto upper = torch::ones({T, T}, scores.options().dtype(torch::kBool)).triu(1);  // (T, T)
    scores.masked_fill_(upper, -std::numeric_limits<double>::infinity());
  }
  if (key_padding.defined()) {
    scores.masked_fill_(key_padding.view({key_padding.size(0), 1, 1, key_padding.size(1)}),
                        -std::numeric_limits<double>::infinity());
  }
  return torch::softmax(scores, -1);  // (B, H, Tq, Tk)
}

std::pair<torch::Tensor, torch::Tensor> appendToCache(AttentionState& state,
                                                      const torch::Tensor& k_t,
                                                      const torch::Tensor& v_t) {
  const int64_t needed = state.length + 1;
  if (!state.k.defined() || state.k.size(2) < needed) {
    const int64_t capacity = std::max<int64_t>(16, 2 * needed);
    auto sizes = k_t.sizes().vec();
    sizes[2] = capacity;
    auto k = torch::empty(sizes, k_t.options());  // (B, H, capacity, Dh)
    auto v = torch::empty(sizes, v_t.options());
    if (state.length > 0) {
      k.narrow(2, 0, state.length).copy_(state.k.narrow(2, 0, state.length));
      v.narrow(2, 0, state.length).copy_(state.v.narrow(2, 0, state.length));
    }
    state.k = k;
    state.v = v;
  }
  state.k.narrow(2, state.length, 1).copy_(k_t);
  state.v.narrow(2, state.length, 1).copy_(v_t);
  state.length = needed;
  return {state.k.narrow(2, 0, needed), state.v.narrow(2, 0, needed)};  // (B, H, t+1, Dh)
}

}  // namespace rsalab
