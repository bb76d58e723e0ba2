// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/prob_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rsalab {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

int64_t probSparseCount(int64_t factor, int64_t L) {
  const auto c = factor * static_cast<int64_t>(std::ceil(std::log(static_cast<double>(L))));
  return std::clamp<int64_t>(c, 1, L);
}

torch::Tensor probSparseSample(uint64_t seed, uint64_t call, int64_t Lq, int64_t Lk, int64_t U,
                               bool masked) {
  auto out = torch::empty({Lq, U}, torch::kInt64);
  auto* p = out.data_ptr<int64_t>();
  const uint64_t base = seed ^ (call * 0x9E3779B97F4A7C15ull);
  for (int64_t i = 0; i < Lq; ++i) {
    const auto range = static_cast<uint64_t>(masked ? std::min(i + 1, Lk) : Lk);
    for (int64_t j = 0; j < U; ++j)
      *p++ = static_cast<int64_t>(splitmix64(base ^ static_cast<uint64_t>(i * U + j)) % range);
  }
  return out;
}

ProbAttentionImpl::ProbAttentionImpl(int64_t d_model, int64_t heads, int64_t factor, bool masked,
                                     bool sparse, const RemHeadCounts& rem_counts,
                                     const std::vector<int64_t>& dilations, const RemInit& init)
    : heads_(heads), head_dim_(d_model / heads), factor_(factor), masked_(masked), sparse_(sparse) {
  if (heads <= 0 || d_model % heads != 0)
    throw std::invalid_argument("ProbSparse attention: d_model must be divisible by heads");
  q_ = register_module("q", torch::nn::Linear(d_model, d_model));
  k_ = register_module("k", torch::nn::Linear(d_model, d_model));
  v_ = register_module("v", torch::nn::Linear(d_model, d_model));
  out_ = register_module("out", torch::nn::Linear(d_model, d_model));
  auto specs = assignRemHeads(rem_counts, dilations);
  if (static_cast<int64_t>(specs.size()) > heads)
    throw std::invalid_argument("REM head counts sum to " + std::to_string(specs.size()) +
                                " but there are only heads = " + std::to_string(heads));
  if (!specs.empty()) {
    const auto R = static_cast<int64_t>(specs.size());
    rems_ = register_module("rems", RemBuilder(std::move(specs), init, masked));
    mu = register_parameter("mu", torch::full({R}, init.mu), init.learn_gate);
  }
  // The run's seed decides the key sample: one draw of LibTorch's generator.
  const auto draw = torch::randint(0, int64_t{1} << 31, {2}, torch::kInt64);
  seed_ = (static_cast<uint64_t>(draw[0].item<int64_t>()) << 31) ^
          static_cast<uint64_t>(draw[1].item<int64_t>());
}

void ProbAttentionImpl::holdSelection(bool hold) {
  hold_ = hold;
  held_ = torch::Tensor();
}

// The u queries of largest M̄ on their sampled keys: (B, H, u) int64.
torch::Tensor ProbAttentionImpl::selection(const torch::Tensor& q, const torch::Tensor& k,
                                           int64_t u) {
  const int64_t B = q.size(0), H = q.size(1), Lq = q.size(2), Lk = k.size(2);
  if (hold_ && held_.defined() && held_.size(0) == B && held_.size(2) == u) return held_;
  torch::NoGradGuard no_grad;
  const int64_t U = probSparseCount(factor_, Lk);
  const auto index = probSparseSample(seed_, calls_, Lq, Lk, U, masked_).to(q.device());
  // k_sample[b, h, i, j] = k[b, h, index[i, j]]: (B, H, Lq, U, Dh)
  const auto k_sample = k.index_select(2, index.view({-1})).view({B, H, Lq, U, head_dim_});
  const auto scores = (q.unsqueeze(3) * k_sample).sum(-1) / std::sqrt(double(head_dim_));
  const auto measure = std::get<0>(scores.max(-1)) - scores.mean(-1);  // (B, H, Lq)
  auto top = std::get<1>(measure.topk(u, -1));                         // (B, H, u)
  if (hold_) held_ = top;
  return top;
}

torch::Tensor ProbAttentionImpl::attend(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v) {
  const int64_t B = q.size(0), H = q.size(1), Lq = q.size(2), Lk = k.size(2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  const int64_t u = sparse_ ? probSparseCount(factor_, Lq) : Lq;
  const auto mask_of = [&](const torch::Tensor& rows) {  // true where key j > query row i
    return torch::arange(Lk, rows.options()).view({1, 1, 1, Lk}) > rows.unsqueeze(-1);
  };
  if (u >= Lq) {  // every query active: full softmax attention
    auto s = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, Lq, Lk)
    if (masked_) {
      const auto rows =
          torch::arange(Lq, torch::TensorOptions().dtype(torch::kInt64).device(q.device()));
      s = s.masked_fill(mask_of(rows.view({1, 1, Lq})), -std::numeric_limits<double>::infinity());
    }
    return torch::matmul(torch::softmax(s, -1), v);
  }
  const auto top = selection(q, k, u);  // (B, H, u)
  ++calls_;
  // The lazy queries' context: mean of V, or its cumulative sum when masked.
  auto context = masked_ ? v.cumsum(2) : v.mean(2, /*keepdim=*/true).expand({B, H, Lq, head_dim_});
  const auto at = top.unsqueeze(-1).expand({B, H, u, head_dim_});
  auto q_top = q.gather(2, at);                                // (B, H, u, Dh)
  auto s = torch::matmul(q_top, k.transpose(-2, -1)) * scale;  // (B, H, u, Lk)
  if (masked_) s = s.masked_fill(mask_of(top), -std::numeric_limits<double>::infinity());
  const auto active = torch::matmul(torch::softmax(s, -1), v);  // (B, H, u, Dh)
  return context.scatter(2, at, active);
}

torch::Tensor ProbAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& source) {
  const auto& src = source.defined() ? source : x;
  const int64_t B = x.size(0), Lq = x.size(1), Lk = src.size(1);
  const auto split = [&](const torch::Tensor& t, int64_t L) {
    return t.view({B, L, heads_, head_dim_}).transpose(1, 2);  // (B, H, L, Dh)
  };
  auto q = split(q_->forward(x), Lq), k = split(k_->forward(src), Lk),
       v = split(v_->forward(src), Lk);
  auto y = attend(q, k, v);  // (B, H, Lq, Dh)
  if (rems_) {
    if (Lq != Lk) throw std::logic_error("REMs in self-attention only");
    const int64_t R = rems_->size();
    const auto P = rems_->build(Lq).to(v.scalar_type());               // (R, L, L)
    const auto pv = torch::matmul(P.unsqueeze(0), v.narrow(1, 0, R));  // (B, R, L, Dh)
    const auto g = gate().to(v.scalar_type()).view({1, R, 1, 1});
    auto mixed = (1 - g) * y.narrow(1, 0, R) + g * pv;
    y = R == heads_ ? mixed : torch::cat({mixed, y.narrow(1, R, heads_ - R)}, 1);
  }
  return out_->forward(y.transpose(1, 2).reshape({B, Lq, heads_ * head_dim_}));
}

}  // namespace rsalab
