// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/softmax_attention.h"

#include <cmath>

namespace rsalab {

SoftmaxAttentionImpl::SoftmaxAttentionImpl(int64_t d_model, int64_t heads, bool causal)
    : SelfAttentionImpl(d_model, heads, causal) {}

torch::Tensor SoftmaxAttentionImpl::probabilities(const torch::Tensor& q, const torch::Tensor& k,
                                                  bool mask,
                                                  const torch::Tensor& key_padding) const {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) *
                (1.0 / std::sqrt(static_cast<double>(head_dim_)));  // (B, H, Tq, Tk)
  if (mask) {
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

torch::Tensor SoftmaxAttentionImpl::attend(const torch::Tensor& probs, const torch::Tensor& v,
                                           int64_t /*query_offset*/, LayerInspection* record,
                                           int64_t sample) {
  if (record) {
    record->heads.resize(static_cast<size_t>(heads_));
    for (int64_t h = 0; h < heads_; ++h) {
      record->heads[static_cast<size_t>(h)].attention = toMatrix(probs[sample][h]);
    }
  }
  return torch::matmul(probs, v);  // (B, H, Tq, Dh)
}

RemMixing SoftmaxAttentionImpl::remMixing(int64_t, const torch::Tensor&) { return {}; }

// softmax(QKᵀ/√Dh + mask)·V
torch::Tensor SoftmaxAttentionImpl::forward(const torch::Tensor& x, LayerInspection* record,
                                            int64_t sample, const torch::Tensor& key_padding) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  torch::Tensor y;
  if (record || !q.is_cpu() || key_padding.defined()) {
    if (key_padding.defined()) {  // RSA's REMs read v directly: padded values must be 0
      v = v.masked_fill(key_padding.view({v.size(0), 1, v.size(2), 1}), 0.0);
    }
    auto probs = probabilities(q, k, causal_, key_padding);    // (B, H, T, T)
    y = attend(probs, v, /*query_offset=*/0, record, sample);  // (B, H, T, Dh)
  } else {
    y = blockedSoftmaxAttention(q, k, v, 1.0 / std::sqrt(static_cast<double>(head_dim_)), causal_,
                                remMixing(q.size(2), q));  // (B, H, T, Dh)
  }
  return out_->forward(mergeHeads(y));  // (B, T, D)
}

torch::Tensor SoftmaxAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k_t, v_t] = projectQkv(x_t);  // (B, H, 1, Dh) each
  const int64_t position = state.length;
  auto [k, v] = appendToCache(state, k_t, v_t);      // (B, H, t+1, Dh)
  auto probs = probabilities(q, k, /*mask=*/false);  // (B, H, 1, t+1): keys 0..t only
  auto y = attend(probs, v, position, nullptr, 0);   // (B, H, 1, Dh)
  return out_->forward(mergeHeads(y));               // (B, 1, D)
}

CrossAttentionImpl::CrossAttentionImpl(int64_t d_model, int64_t heads)
    : d_model_(d_model), heads_(heads), head_dim_(d_model / heads) {
  q_ = register_module("q", torch::nn::Linear(d_model, d_model));
  kv_ = register_module("kv", torch::nn::Linear(d_model, 2 * d_model));
  out_ = register_module("out", torch::nn::Linear(d_model, d_model));
}

// softmax(Q_dec K_encᵀ/√Dh)·V_enc
torch::Tensor CrossAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& memory,
                                          std::vector<Matrix>* record, int64_t sample) {
  const auto B = x.size(0), Tt = x.size(1), Ts = memory.size(1);
  auto q = q_->forward(x).view({B, Tt, heads_, head_dim_}).transpose(1, 2);  // (B, H, Tt, Dh)
  auto kv = kv_->forward(memory).chunk(2, -1);
  auto k = kv[0].view({B, Ts, heads_, head_dim_}).transpose(1, 2);  // (B, H, Ts, Dh)
  auto v = kv[1].view({B, Ts, heads_, head_dim_}).transpose(1, 2);  // (B, H, Ts, Dh)
  auto probs = torch::softmax(
      torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(head_dim_))),
      -1);  // (B, H, Tt, Ts)
  if (record) {
    record->clear();
    for (int64_t h = 0; h < heads_; ++h) record->push_back(toMatrix(probs[sample][h]));
  }
  auto y = torch::matmul(probs, v).transpose(1, 2).contiguous().view({B, Tt, d_model_});
  return out_->forward(y);  // (B, Tt, D)
}

}  // namespace rsalab
