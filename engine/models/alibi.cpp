// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/alibi.h"

#include <cmath>
#include <vector>

#include "engine/kernels/blocked_attention.h"
#include "engine/models/transformer.h"

namespace rsalab {

namespace {

// The paper's text: 2^(−8h/H), h = 1..H.
std::vector<double> textSlopes(int64_t heads) {
  std::vector<double> m;
  for (int64_t h = 1; h <= heads; ++h)
    m.push_back(std::pow(2.0, -8.0 * static_cast<double>(h) / static_cast<double>(heads)));
  return m;
}

// The authors' get_slopes: a power of two as the text; otherwise the slopes of the largest power
// of two P ≤ H, then every other slope of 2P (its 1st, 3rd, …), H − P of them.
std::vector<double> codeSlopes(int64_t heads) {
  int64_t P = 1;
  while (P * 2 <= heads) P *= 2;
  if (P == heads) return textSlopes(heads);
  std::vector<double> m = textSlopes(P);
  const std::vector<double> twice = codeSlopes(2 * P);
  for (int64_t k = 0; static_cast<int64_t>(m.size()) < heads; k += 2)
    m.push_back(twice[static_cast<size_t>(k)]);
  return m;
}

}  // namespace

torch::Tensor alibiSlopes(int64_t heads, AlibiSlopes rule) {
  const std::vector<double> m = rule == AlibiSlopes::Code ? codeSlopes(heads) : textSlopes(heads);
  return torch::tensor(m, torch::TensorOptions().dtype(torch::kFloat64));  // (H)
}

torch::Tensor alibiBias(const torch::Tensor& slopes, int64_t Tq, int64_t Tk, int64_t offset,
                        const torch::Tensor& like) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(like.device());
  auto i = torch::arange(offset, offset + Tq, f64), j = torch::arange(Tk, f64);
  auto lag = i.unsqueeze(1) - j.unsqueeze(0);                              // (Tq, Tk): i − j
  return (-slopes.to(f64).view({-1, 1, 1}) * lag).to(like.scalar_type());  // (H, Tq, Tk)
}

AlibiAttentionImpl::AlibiAttentionImpl(int64_t d_model, int64_t heads, AlibiSlopes rule)
    : SelfAttentionImpl(d_model, heads, /*causal=*/true), slopes_(alibiSlopes(heads, rule)) {}

torch::Tensor AlibiAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_padding,
                                          const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  const int64_t T = q.size(2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  // Training on the CPU: the blocked kernel adds −m_h·(i − j) to each block of scores itself, so
  // no (H, T, T) bias and no (B, H, T, T) weights exist; the same values as the form below.
  if (!observe && q.is_cpu() && !key_padding.defined()) {
    return out_->forward(
        mergeHeads(blockedBiasedAttention(q, k, v, scale, /*causal=*/true, {slopes_, {}})));
  }
  auto bias = alibiBias(slopes_, T, T, 0, q);                                // (H, T, T)
  auto S = softmaxWeights(q, k, scale, /*causal=*/true, key_padding, bias);  // (B, H, T, T)
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

namespace {

// The maker of the attention card named "alibi" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kAlibiMaker =
    registerAttentionMaker("alibi", [](const ModelOptions& o, bool /*causal*/) -> SelfAttention {
      return std::make_shared<AlibiAttentionImpl>(
          o.d_model, o.heads, o.alibi_code_slopes ? AlibiSlopes::Code : AlibiSlopes::PaperText);
    });

}  // namespace

}  // namespace rsalab
