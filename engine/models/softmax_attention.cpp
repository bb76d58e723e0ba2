#include "engine/models/softmax_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rsalab {

namespace {

// Blocked attention on heads folded into one dimension: q (scaled), k, v, out (BH, T, Dh).
// A block is g heads × `rows` query rows × `keys` keys; its scores (g·rows·keys values) are kept
// near block_values so that they, and their gradient in the backward, stay in cache (64 Ki
// floats = 256 KB by default); bigger blocks mean fewer, larger LibTorch calls.
struct BlockPlan {
  int64_t T, rows, group;
  bool causal;
  int64_t keys(int64_t r0, int64_t n) const { return causal ? r0 + n : T; }
};

BlockPlan planBlocks(int64_t T, bool causal, int64_t block_values) {
  BlockPlan p{T, std::clamp<int64_t>(block_values / T, 16, T), 1, causal};
  p.group = std::max<int64_t>(1, block_values / (p.rows * T));
  return p;
}

// −inf strictly above the diagonal, 0 elsewhere: added to a causal block's last `rows` columns.
torch::Tensor diagonalMask(int64_t rows, const torch::TensorOptions& options) {
  return torch::full({rows, rows}, -std::numeric_limits<double>::infinity(), options).triu(1);
}

// softmax(q kᵀ + mask) of heads [h, h+g), rows [r0, r0+n), keys [0, keys): (g, n, keys).
torch::Tensor blockWeights(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& mask,
                           const BlockPlan& p, int64_t h, int64_t g, int64_t r0, int64_t n) {
  const int64_t keys = p.keys(r0, n);
  auto s = torch::bmm(q.narrow(0, h, g).narrow(1, r0, n),
                      k.narrow(0, h, g).narrow(1, 0, keys).transpose(1, 2));  // (g, n, keys)
  if (p.causal) s.narrow(2, r0, n).add_(mask.narrow(0, 0, n).narrow(1, 0, n));
  return torch::softmax(s, -1);  // (g, n, keys)
}

void blockedForward(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                    const torch::Tensor& mask, const BlockPlan& p, torch::Tensor& out,
                    int64_t begin, int64_t end) {
  for (int64_t h = begin; h < end; h += p.group) {
    const int64_t g = std::min(p.group, end - h);
    for (int64_t r0 = 0; r0 < p.T; r0 += p.rows) {
      const int64_t n = std::min(p.rows, p.T - r0), keys = p.keys(r0, n);
      auto w = blockWeights(q, k, mask, p, h, g, r0, n);                        // (g, n, keys)
      auto o = out.narrow(0, h, g).narrow(1, r0, n);                            // (g, n, Dh)
      torch::bmm_out(o, w, v.narrow(0, h, g).narrow(1, 0, keys));
    }
  }
}

// dS = W ⊙ (dO Vᵀ − rowsum(dO ⊙ O)); dQ = dS K; dK = dSᵀ Q; dV = Wᵀ dO (FlashAttention's backward).
void blockedBackward(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                     const torch::Tensor& out, const torch::Tensor& d_out, const torch::Tensor& mask,
                     const BlockPlan& p, torch::Tensor& dq, torch::Tensor& dk, torch::Tensor& dv,
                     int64_t begin, int64_t end) {
  for (int64_t h = begin; h < end; h += p.group) {
    const int64_t g = std::min(p.group, end - h);
    for (int64_t r0 = 0; r0 < p.T; r0 += p.rows) {
      const int64_t n = std::min(p.rows, p.T - r0), keys = p.keys(r0, n);
      auto w = blockWeights(q, k, mask, p, h, g, r0, n);                        // (g, n, keys)
      auto d_o = d_out.narrow(0, h, g).narrow(1, r0, n);                        // (g, n, Dh)
      auto k_b = k.narrow(0, h, g).narrow(1, 0, keys);                          // (g, keys, Dh)
      auto v_b = v.narrow(0, h, g).narrow(1, 0, keys);                          // (g, keys, Dh)
      dv.narrow(0, h, g).narrow(1, 0, keys).baddbmm_(w.transpose(1, 2), d_o);  // (g, keys, Dh)
      auto delta = (d_o * out.narrow(0, h, g).narrow(1, r0, n)).sum(-1, true);  // (g, n, 1)
      auto ds = torch::bmm(d_o, v_b.transpose(1, 2)).sub_(delta).mul_(w);       // (g, n, keys)
      auto dq_b = dq.narrow(0, h, g).narrow(1, r0, n);                          // (g, n, Dh)
      torch::bmm_out(dq_b, ds, k_b);
      dk.narrow(0, h, g).narrow(1, 0, keys).baddbmm_(ds.transpose(1, 2),
                                                     q.narrow(0, h, g).narrow(1, r0, n));
    }
  }
}

// Threads take whole heads, so each writes only its own rows of out, dq, dk and dv; inside
// at::parallel_for, LibTorch's ops and OpenMP OpenBLAS run single-threaded.
template <class F>
void forEachHeadRange(int64_t heads, const BlockPlan& p, const F& f) {
  at::parallel_for(0, heads, p.group, [&](int64_t begin, int64_t end) { f(begin, end); });
}

class BlockedAttentionFunction : public torch::autograd::Function<BlockedAttentionFunction> {
 public:
  // q (already scaled), k, v: (BH, T, Dh) contiguous -> (BH, T, Dh).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q,
                               const torch::Tensor& k, const torch::Tensor& v, bool causal,
                               int64_t block_values) {
    const auto p = planBlocks(q.size(1), causal, block_values);
    auto mask = causal ? diagonalMask(p.rows, q.options()) : torch::Tensor();
    auto out = torch::empty_like(q);
    forEachHeadRange(q.size(0), p, [&](int64_t b, int64_t e) { blockedForward(q, k, v, mask, p, out, b, e); });
    ctx->save_for_backward({q, k, v, out});
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["block_values"] = block_values;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &out = saved[3];
    const bool causal = ctx->saved_data["causal"].toBool();
    const auto p = planBlocks(q.size(1), causal, ctx->saved_data["block_values"].toInt());
    auto mask = causal ? diagonalMask(p.rows, q.options()) : torch::Tensor();
    auto d_out = grads[0].contiguous();
    auto dq = torch::empty_like(q), dk = torch::zeros_like(k), dv = torch::zeros_like(v);
    forEachHeadRange(q.size(0), p, [&](int64_t b, int64_t e) {
      blockedBackward(q, k, v, out, d_out, mask, p, dq, dk, dv, b, e);
    });
    return {dq, dk, dv, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor blockedSoftmaxAttention(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, double scale, bool causal,
                                      int64_t block_values) {
  const auto B = q.size(0), H = q.size(1), T = q.size(2), Dh = q.size(3);
  auto q3 = (q * scale).reshape({B * H, T, Dh}).contiguous();  // (BH, T, Dh)
  auto k3 = k.reshape({B * H, T, Dh}).contiguous();            // (BH, T, Dh)
  auto v3 = v.reshape({B * H, T, Dh}).contiguous();            // (BH, T, Dh)
  torch::Tensor y;
  if (torch::GradMode::is_enabled() &&
      (q3.requires_grad() || k3.requires_grad() || v3.requires_grad())) {
    y = BlockedAttentionFunction::apply(q3, k3, v3, causal, block_values);
  } else {
    const auto p = planBlocks(T, causal, block_values);
    auto mask = causal ? diagonalMask(p.rows, q3.options()) : torch::Tensor();
    y = torch::empty_like(q3);
    forEachHeadRange(B * H, p, [&](int64_t b, int64_t e) { blockedForward(q3, k3, v3, mask, p, y, b, e); });
  }
  return y.view({B, H, T, Dh});  // (B, H, T, Dh)
}

SoftmaxAttentionImpl::SoftmaxAttentionImpl(int64_t d_model, int64_t heads, bool causal)
    : SelfAttentionImpl(d_model, heads, causal) {}

torch::Tensor SoftmaxAttentionImpl::probabilities(const torch::Tensor& q, const torch::Tensor& k,
                                                  bool mask) const {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) *
                (1.0 / std::sqrt(static_cast<double>(head_dim_)));  // (B, H, Tq, Tk)
  if (mask) {
    const auto T = scores.size(-1);
    auto upper = torch::ones({T, T}, scores.options().dtype(torch::kBool)).triu(1);  // (T, T)
    scores.masked_fill_(upper, -std::numeric_limits<double>::infinity());
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

torch::Tensor SoftmaxAttentionImpl::mixRecurrence(const torch::Tensor& y, const torch::Tensor&,
                                                  int64_t) {
  return y;
}

// softmax(QKᵀ/√Dh + mask)·V
torch::Tensor SoftmaxAttentionImpl::forward(const torch::Tensor& x, LayerInspection* record,
                                            int64_t sample) {
  auto [q, k, v] = projectQkv(x);                      // (B, H, T, Dh) each
  torch::Tensor y;
  if (record) {
    auto probs = probabilities(q, k, causal_);         // (B, H, T, T)
    y = attend(probs, v, /*query_offset=*/0, record, sample);  // (B, H, T, Dh)
  } else {
    y = blockedSoftmaxAttention(q, k, v, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                                causal_);              // (B, H, T, Dh)
    y = mixRecurrence(y, v, /*query_offset=*/0);       // (B, H, T, Dh)
  }
  return out_->forward(mergeHeads(y));                 // (B, T, D)
}

torch::Tensor SoftmaxAttentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k_t, v_t] = projectQkv(x_t);                // (B, H, 1, Dh) each
  const int64_t position = state.length;
  auto [k, v] = appendToCache(state, k_t, v_t);        // (B, H, t+1, Dh)
  auto probs = probabilities(q, k, /*mask=*/false);    // (B, H, 1, t+1): keys 0..t only
  auto y = attend(probs, v, position, nullptr, 0);     // (B, H, 1, Dh)
  return out_->forward(mergeHeads(y));                 // (B, 1, D)
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
  auto k = kv[0].view({B, Ts, heads_, head_dim_}).transpose(1, 2);          // (B, H, Ts, Dh)
  auto v = kv[1].view({B, Ts, heads_, head_dim_}).transpose(1, 2);          // (B, H, Ts, Dh)
  auto probs = torch::softmax(torch::matmul(q, k.transpose(-2, -1)) *
                                  (1.0 / std::sqrt(static_cast<double>(head_dim_))),
                              -1);  // (B, H, Tt, Ts)
  if (record) {
    record->clear();
    for (int64_t h = 0; h < heads_; ++h) record->push_back(toMatrix(probs[sample][h]));
  }
  auto y = torch::matmul(probs, v).transpose(1, 2).contiguous().view({B, Tt, d_model_});
  return out_->forward(y);  // (B, Tt, D)
}

}  // namespace rsalab
