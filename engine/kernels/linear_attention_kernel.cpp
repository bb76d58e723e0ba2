// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/kernels/linear_attention_kernel.h"

#include <algorithm>
#include <vector>

#include "engine/kernels/linear_attention_loops.h"

namespace rsalab {

namespace {

// The packed layer tensors as the sweeps read them: qkv (B, T, 3D), φ = [φ(Q) φ(K)] (B, T, 2D),
// out and its gradient (B, T, D), den (B, T, H); key_padding (B, T) or undefined.
struct Packed {
  int64_t B, T, H, Dh, D;
  torch::Tensor qkv, phi, pad;
  bool features = false;  // φ left to the forward sweeps (phi allocated, not yet written)

  // Heads h0 .. h0 + n − 1 of sequence b.
  template <class S>
  linear_sweeps::HeadRows<S> heads(int64_t b, int64_t h0, int64_t n) const {
    const S* x = qkv.data_ptr<S>() + b * T * 3 * D + h0 * Dh;
    const S* f = phi.defined() ? phi.data_ptr<S>() + b * T * 2 * D + h0 * Dh : nullptr;
    const bool* p = pad.defined() ? pad.data_ptr<bool>() + b * T : nullptr;
    linear_sweeps::HeadRows<S> rows{x + 2 * D, f, f ? f + D : nullptr, 3 * D, 2 * D, D, H, p, T,
                                    Dh,        n};
    if (features) {
      rows.q = x;
      rows.k = x + D;
    }
    return rows;
  }
  int64_t outOffset(int64_t b, int64_t h0) const { return b * T * D + h0 * Dh; }
  int64_t denOffset(int64_t b, int64_t h0) const { return b * T * H + h0; }
};

// backward: whether the backward will run (φ is then kept; without it the sweeps that compute φ
// themselves keep it only in registers).
Packed pack(const torch::Tensor& qkv, int64_t heads, const torch::Tensor& key_padding,
            bool backward) {
  TORCH_CHECK(qkv.dim() == 3 && qkv.size(2) % (3 * heads) == 0,
              "fusedCausalLinearAttention: qkv must be (B, T, 3·heads·Dh)");
  Packed p;
  p.B = qkv.size(0);
  p.T = qkv.size(1);
  p.H = heads;
  p.D = qkv.size(2) / 3;
  p.Dh = p.D / heads;
  p.qkv = qkv.contiguous();
  // φ = elu + 1 of [Q K]: (B, T, 2D), by the sweeps themselves where they can.
  p.features = linear_sweeps::computesFeatures(qkv.scalar_type() == torch::kFloat32, p.Dh);
  if (!p.features)
    p.phi = torch::elu(p.qkv.narrow(2, 0, 2 * p.D)).add_(1);
  else if (backward)
    p.phi = torch::empty({p.B, p.T, 2 * p.D}, qkv.options());
  if (key_padding.defined() && key_padding.numel() > 0) {
    TORCH_CHECK(key_padding.dim() == 2 && key_padding.size(0) == p.B && key_padding.size(1) == p.T,
                "fusedCausalLinearAttention: key_padding must be (B, T)");
    p.pad = key_padding.to(torch::kCPU, torch::kBool).contiguous();
  }
  return p;
}

// The B·H heads split over the threads (each writes only its own rows); f(b, h0, n, work) runs
// heads h0 .. h0 + n − 1 of sequence b. Under kParallelWork multiply-adds per sweep (heads × T ×
// Dh²; the tiny configs) the calling thread runs them all.
constexpr int64_t kParallelWork = int64_t{1} << 20;

// Heads per call: the backward's second sweep reads again what its first one read (v, φ(q),
// φ(k), out and its gradient: 5 rows of Dh per head and step), so as many heads as keep that
// within kSweepBytes, in L2 (B16 H8 T512 Dh16: one head at a time, 1.1× faster than all eight
// together).
constexpr int64_t kSweepBytes = 192 * 1024;

template <class S, class F>
void forEachHeadRange(const Packed& p, const F& f) {
  const int64_t group = std::clamp<int64_t>(
      kSweepBytes / std::max<int64_t>(1, p.T * p.Dh * 5 * int64_t{sizeof(S)}), 1, p.H);
  auto run = [&](int64_t begin, int64_t end) {
    std::vector<S> work(static_cast<size_t>(linear_sweeps::workSize(p.Dh, group)));
    for (int64_t i = begin; i < end;) {
      const int64_t b = i / p.H, h0 = i % p.H, n = std::min({group, p.H - h0, end - i});
      f(b, h0, n, work.data());
      i += n;
    }
  };
  const int64_t heads = p.B * p.H;
  if (heads * p.T * p.Dh * p.Dh < kParallelWork) {
    run(0, heads);
    return;
  }
  at::parallel_for(0, heads, p.H, run);
}

// out (B, T, D), den (B, T, H) (only for a backward: without one, where φ is not kept either).
std::pair<torch::Tensor, torch::Tensor> runForward(const Packed& p) {
  auto out = torch::empty({p.B, p.T, p.D}, p.qkv.options());
  torch::Tensor den;
  if (p.phi.defined()) den = torch::empty({p.B, p.T, p.H}, p.qkv.options());
  AT_DISPATCH_FLOATING_TYPES(p.qkv.scalar_type(), "fusedCausalLinearAttention", [&] {
    forEachHeadRange<scalar_t>(p, [&](int64_t b, int64_t h0, int64_t n, scalar_t* work) {
      linear_sweeps::forward(
          p.heads<scalar_t>(b, h0, n), static_cast<scalar_t>(kLinearAttentionEps),
          out.data_ptr<scalar_t>() + p.outOffset(b, h0),
          den.defined() ? den.data_ptr<scalar_t>() + p.denOffset(b, h0) : nullptr, work);
    });
  });
  return {out, den};
}

class FusedLinearAttentionFunction
    : public torch::autograd::Function<FusedLinearAttentionFunction> {
 public:
  // qkv (B, T, 3D); pad (B, T) bool or empty (no padding) -> (B, T, D).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& qkv,
                               const torch::Tensor& pad, int64_t heads) {
    auto p = pack(qkv, heads, pad, /*backward=*/true);
    auto [out, den] = runForward(p);
    ctx->save_for_backward({p.qkv, p.phi, out, den, pad});
    ctx->saved_data["heads"] = heads;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &qkv = saved[0], &out = saved[2], &den = saved[3];
    Packed p;
    p.qkv = qkv;
    p.phi = saved[1];
    p.B = qkv.size(0);
    p.T = qkv.size(1);
    p.D = qkv.size(2) / 3;
    p.H = ctx->saved_data["heads"].toInt();
    p.Dh = p.D / p.H;
    if (saved[4].defined() && saved[4].numel() > 0)
      p.pad = saved[4].to(torch::kCPU, torch::kBool).contiguous();
    auto d_out = grads[0].contiguous();
    auto d_qkv = torch::empty_like(qkv);  // every value written
    AT_DISPATCH_FLOATING_TYPES(qkv.scalar_type(), "fusedCausalLinearAttentionBackward", [&] {
      forEachHeadRange<scalar_t>(p, [&](int64_t b, int64_t h0, int64_t n, scalar_t* work) {
        const int64_t o = p.outOffset(b, h0);
        scalar_t* dq = d_qkv.data_ptr<scalar_t>() + b * p.T * 3 * p.D + h0 * p.Dh;
        linear_sweeps::backward(p.heads<scalar_t>(b, h0, n), out.data_ptr<scalar_t>() + o,
                                d_out.data_ptr<scalar_t>() + o,
                                den.data_ptr<scalar_t>() + p.denOffset(b, h0), dq, dq + p.D,
                                dq + 2 * p.D, work);
      });
    });
    return {d_qkv, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool fusedLinearAttentionSupports(const torch::Tensor& x) {
  return x.is_cpu() && (x.scalar_type() == torch::kFloat32 || x.scalar_type() == torch::kFloat64);
}

torch::Tensor fusedCausalLinearAttention(const torch::Tensor& qkv, int64_t heads,
                                         const torch::Tensor& key_padding) {
  TORCH_CHECK(fusedLinearAttentionSupports(qkv),
              "fusedCausalLinearAttention: CPU float or double tensors only");
  if (torch::GradMode::is_enabled() && qkv.requires_grad()) {
    auto pad = key_padding.defined() ? key_padding : torch::empty({0}, torch::kBool);
    return FusedLinearAttentionFunction::apply(qkv, pad, heads);
  }
  return runForward(pack(qkv, heads, key_padding, /*backward=*/false)).first;
}

torch::Tensor linearAttentionFused(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, const torch::Tensor& key_padding) {
  TORCH_CHECK(q.dim() == 4 && k.sizes() == q.sizes() && v.sizes() == q.sizes(),
              "linearAttentionFused: q, k, v must all be (B, H, T, Dh)");
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), Dh = q.size(3);
  auto qkv = torch::cat({q, k, v}, 1)  // (B, 3H, T, Dh)
                 .transpose(1, 2)
                 .reshape({B, T, 3 * H * Dh});
  return fusedCausalLinearAttention(qkv, H, key_padding)
      .view({B, T, H, Dh})
      .transpose(1, 2);  // (B, H, T, Dh)
}

}  // namespace rsalab
