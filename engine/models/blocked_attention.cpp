#include "engine/models/blocked_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "engine/models/toeplitz_rem_kernels.h"

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
  BlockPlan p{T, attentionBlockRows(T, block_values), 1, causal};
  p.group = std::max<int64_t>(1, block_values / (p.rows * T));
  return p;
}

// RSA's REM heads as the kernel sees them: folded head i is head i mod H of its batch element,
// an REM head when that is < R. e (R, 2T − 1) contiguous: P_h[i, j] = e[h, T − 1 − i + j].
struct RemHeads {
  torch::Tensor e;
  std::vector<double> gate;  // g_h = σ(µ_h)
  int64_t heads = 1;         // H
  int64_t size() const { return static_cast<int64_t>(gate.size()); }
  int64_t remHead(int64_t folded) const { return folded % heads < size() ? folded % heads : -1; }
  bool any(int64_t h, int64_t g) const {
    for (int64_t j = 0; j < g; ++j)
      if (remHead(h + j) >= 0) return true;
    return false;
  }
};

// Causal: P is lower triangular whatever the future diagonals (m > T − 1) hold.
RemHeads remHeads(const RemMixing& mixing, int64_t heads, bool causal, const torch::Tensor& like) {
  RemHeads rem;
  rem.heads = heads;
  if (!mixing.gates.defined() || mixing.gates.numel() == 0) return rem;
  rem.e = mixing.diagonals.detach().to(like.scalar_type()).clone();  // (R, 2T − 1)
  const int64_t T = (rem.e.size(1) + 1) / 2;
  if (causal) rem.e.narrow(1, T, T - 1).zero_();
  auto g = mixing.gates.detach().to(torch::kCPU, torch::kFloat64).contiguous();
  rem.gate.assign(g.data_ptr<double>(), g.data_ptr<double>() + g.numel());
  return rem;
}

// Per-thread sums of the REM heads' gradients over the batch and the blocks: the weights'
// gradient dA per diagonal (R, 2T − 1), and Σ rowsum(W ⊙ dA) per head.
struct RemGradSums {
  std::vector<double> diagonals, w_da;
  RemGradSums(int64_t R, int64_t T)
      : diagonals(static_cast<size_t>(R * (2 * T - 1))), w_da(static_cast<size_t>(R)) {}
  void add(const RemGradSums& o) {
    for (size_t i = 0; i < diagonals.size(); ++i) diagonals[i] += o.diagonals[i];
    for (size_t i = 0; i < w_da.size(); ++i) w_da[i] += o.w_da[i];
  }
};

// The REM heads of a block (g, n, keys) at heads h.., rows r0..: W ← (1 − g)·W + g·P, in place.
void mixRemHeads(torch::Tensor& w, const RemHeads& rem, int64_t T, int64_t h, int64_t r0) {
  const int64_t n = w.size(1), keys = w.size(2);
  for (int64_t j = 0; j < w.size(0); ++j) {
    const int64_t r = rem.remHead(h + j);
    if (r < 0) continue;
    const double g = rem.gate[static_cast<size_t>(r)];
    if (w.scalar_type() == torch::kFloat64) {
      toeplitz::mixInto(w[j].data_ptr<double>(), n, keys, rem.e[r].data_ptr<double>(), T - 1 - r0,
                        g);
    } else {
      toeplitz::mixInto(w[j].data_ptr<float>(), n, keys, rem.e[r].data_ptr<float>(), T - 1 - r0, g);
    }
  }
}

void checkKernelInputs(const torch::Tensor& q) {
  TORCH_CHECK(q.is_cpu(), "blockedSoftmaxAttention: CPU tensors only (use the materialised path)");
  TORCH_CHECK(q.scalar_type() == torch::kFloat32 || q.scalar_type() == torch::kFloat64,
              "blockedSoftmaxAttention: float or double tensors only");
}

// −inf strictly above the diagonal, 0 elsewhere: added to a causal block's last `rows` columns.
torch::Tensor diagonalMask(int64_t rows, const torch::TensorOptions& options) {
  return torch::full({rows, rows}, -std::numeric_limits<double>::infinity(), options).triu(1);
}

// softmax(q kᵀ + mask) of heads [h, h+g), rows [r0, r0+n), keys [0, keys): (g, n, keys).
torch::Tensor blockWeights(const torch::Tensor& q, const torch::Tensor& k,
                           const torch::Tensor& mask, const BlockPlan& p, int64_t h, int64_t g,
                           int64_t r0, int64_t n) {
  const int64_t keys = p.keys(r0, n);
  auto s = torch::bmm(q.narrow(0, h, g).narrow(1, r0, n),
                      k.narrow(0, h, g).narrow(1, 0, keys).transpose(1, 2));  // (g, n, keys)
  if (p.causal) s.narrow(2, r0, n).add_(mask.narrow(0, 0, n).narrow(1, 0, n));
  return torch::softmax(s, -1);  // (g, n, keys)
}

// A block's keys relative to its rows [r0, r0 + n) for split values (StarSaber): `before` keys
// precede every row (past), the n × n square holds the diagonal, `after` keys follow every row.
struct SplitRegions {
  int64_t r0, n, keys;
  int64_t tail() const { return r0 + n; }
  int64_t after() const { return keys - r0 - n; }
};

// The future part of a block's weights (split values): keys [r0, keys) with the n × n square's
// strict lower triangle (j < i) zeroed, (g, n, keys − r0).
torch::Tensor splitFuture(const torch::Tensor& w, const SplitRegions& s) {
  auto future = w.narrow(2, s.r0, s.keys - s.r0).clone();
  future.narrow(2, 0, s.n).triu_(0);
  return future;
}

// The values a block reads: v, or with vf defined (StarSaber) v for past keys (j < i) and vf for
// the present and future (j ≥ i). The same pair holds their gradients in the backward.
struct Values {
  torch::Tensor v, vf;
};

void blockedForward(const torch::Tensor& q, const torch::Tensor& k, const Values& x,
                    const torch::Tensor& mask, const RemHeads& rem, const BlockPlan& p,
                    torch::Tensor& out, int64_t begin, int64_t end) {
  const auto &v = x.v, &vf = x.vf;
  for (int64_t h = begin; h < end; h += p.group) {
    const int64_t g = std::min(p.group, end - h);
    for (int64_t r0 = 0; r0 < p.T; r0 += p.rows) {
      const int64_t n = std::min(p.rows, p.T - r0), keys = p.keys(r0, n);
      auto w = blockWeights(q, k, mask, p, h, g, r0, n);  // (g, n, keys)
      mixRemHeads(w, rem, p.T, h, r0);                    // A = (1−g)W + gP
      auto o = out.narrow(0, h, g).narrow(1, r0, n);      // (g, n, Dh)
      if (!vf.defined()) {
        torch::bmm_out(o, w, v.narrow(0, h, g).narrow(1, 0, keys));
        continue;
      }
      // Split values: the past part is keys [0, r0 + n) with the square's upper triangle (j ≥ i)
      // zeroed, the future part keys [r0, keys) with the square's strict lower one zeroed: one
      // full product and one over the n × n square (SplitRegions).
      const SplitRegions s{r0, n, keys};
      auto future = splitFuture(w, s);
      w.narrow(2, r0, n).tril_(-1);  // w becomes the past part
      torch::bmm_out(o, w.narrow(2, 0, s.tail()), v.narrow(0, h, g).narrow(1, 0, s.tail()));
      o.baddbmm_(future, vf.narrow(0, h, g).narrow(1, r0, keys - r0));
    }
  }
}

// A = (1 − g)·W + g·P (g = 0 for plain heads), W = softmax(S), out = A V. With dA = dO Vᵀ:
// dV = Aᵀ dO; dS = (1 − g)·W ⊙ (dA − rowsum(W ⊙ dA)); dQ = dS K; dK = dSᵀ Q (FlashAttention's
// backward, recomputing W; for plain heads rowsum(W ⊙ dA) = rowsum(dO ⊙ out)). For REM heads the
// sums gather dA per diagonal and rowsum(W ⊙ dA): dP = g·Σ dA, dg = Σ (P − W) ⊙ dA.
// Split values (StarSaber): A = W, out_i = Σ_{j<i} W_ij v_j + Σ_{j≥i} W_ij vf_j. A block's part of
// dV and dVf (added) and its dA = dO·(v or vf)ᵀ per region (returned, (g, n, keys)); the softmax
// backward is then the plain one (rowsum(W ⊙ dA) = rowsum(dO ⊙ out) still).
torch::Tensor splitValueGrads(const torch::Tensor& w, const torch::Tensor& d_o, const Values& x,
                              Values& dx, int64_t h, int64_t g, const SplitRegions& s) {
  auto v = x.v.narrow(0, h, g), vf = x.vf.narrow(0, h, g);      // (g, T, Dh)
  auto dv = dx.v.narrow(0, h, g), dvf = dx.vf.narrow(0, h, g);  // (g, T, Dh)
  auto past = w.narrow(2, 0, s.tail()).clone();                 // (g, n, r0 + n)
  past.narrow(2, s.r0, s.n).tril_(-1);
  auto future = splitFuture(w, s);  // (g, n, keys − r0)
  const int64_t later = s.keys - s.r0;
  dv.narrow(1, 0, s.tail()).baddbmm_(past.transpose(1, 2), d_o);
  dvf.narrow(1, s.r0, later).baddbmm_(future.transpose(1, 2), d_o);
  // dA = dO·vᵀ on the past part, dO·vfᵀ on the future part.
  auto d_past = torch::bmm(d_o, v.narrow(1, 0, s.tail()).transpose(1, 2));  // (g, n, r0 + n)
  auto d_future = torch::bmm(d_o, vf.narrow(1, s.r0, later).transpose(1, 2));
  auto d_a = d_past;
  if (s.after() > 0) {
    d_a = torch::empty_like(w);  // (g, n, keys)
    d_a.narrow(2, 0, s.tail()).copy_(d_past);
    d_a.narrow(2, s.tail(), s.after()).copy_(d_future.narrow(2, s.n, s.after()));
  }
  d_a.narrow(2, s.r0, s.n).tril_(-1).add_(d_future.narrow(2, 0, s.n).triu_(0));
  return d_a;
}

void blockedBackward(const torch::Tensor& q, const torch::Tensor& k, const Values& x,
                     const torch::Tensor& out, const torch::Tensor& d_out,
                     const torch::Tensor& mask, const RemHeads& rem, const BlockPlan& p,
                     torch::Tensor& dq, torch::Tensor& dk, Values& dx, RemGradSums& sums,
                     int64_t begin, int64_t end) {
  const auto& v = x.v;
  auto& dv = dx.v;
  for (int64_t h = begin; h < end; h += p.group) {
    const int64_t g = std::min(p.group, end - h);
    const bool mixed = rem.any(h, g);
    for (int64_t r0 = 0; r0 < p.T; r0 += p.rows) {
      const int64_t n = std::min(p.rows, p.T - r0), keys = p.keys(r0, n);
      auto w = blockWeights(q, k, mask, p, h, g, r0, n);  // (g, n, keys)
      auto d_o = d_out.narrow(0, h, g).narrow(1, r0, n);  // (g, n, Dh)
      auto k_b = k.narrow(0, h, g).narrow(1, 0, keys);    // (g, keys, Dh)
      auto v_b = v.narrow(0, h, g).narrow(1, 0, keys);    // (g, keys, Dh)
      torch::Tensor a = w;
      if (mixed) {
        a = w.clone();
        mixRemHeads(a, rem, p.T, h, r0);
      }
      torch::Tensor d_a;  // (g, n, keys)
      if (x.vf.defined()) {
        d_a = splitValueGrads(w, d_o, x, dx, h, g, SplitRegions{r0, n, keys});
      } else {
        dv.narrow(0, h, g).narrow(1, 0, keys).baddbmm_(a.transpose(1, 2), d_o);  // (g, keys, Dh)
        d_a = torch::bmm(d_o, v_b.transpose(1, 2));
      }
      auto delta = mixed ? (w * d_a).sum(-1, true)  // (g, n, 1)
                         : (d_o * out.narrow(0, h, g).narrow(1, r0, n)).sum(-1, true);
      for (int64_t j = 0; mixed && j < g; ++j) {
        const int64_t r = rem.remHead(h + j);
        if (r < 0) continue;
        auto* diag = sums.diagonals.data() + r * (2 * p.T - 1);
        if (d_a.scalar_type() == torch::kFloat64) {
          toeplitz::addDiagonals(d_a[j].data_ptr<double>(), n, keys, diag, p.T - 1 - r0);
        } else {
          toeplitz::addDiagonals(d_a[j].data_ptr<float>(), n, keys, diag, p.T - 1 - r0);
        }
        sums.w_da[static_cast<size_t>(r)] += delta[j].sum().item<double>();
      }
      auto ds = d_a.sub_(delta).mul_(w);  // (g, n, keys)
      for (int64_t j = 0; mixed && j < g; ++j) {
        const int64_t r = rem.remHead(h + j);
        if (r >= 0) ds[j].mul_(1 - rem.gate[static_cast<size_t>(r)]);
      }
      auto dq_b = dq.narrow(0, h, g).narrow(1, r0, n);  // (g, n, Dh)
      torch::bmm_out(dq_b, ds, k_b);
      dk.narrow(0, h, g)
          .narrow(1, 0, keys)
          .baddbmm_(ds.transpose(1, 2), q.narrow(0, h, g).narrow(1, r0, n));
    }
  }
}

// Threads take whole heads, so each writes only its own rows of out, dq, dk and dv; inside
// at::parallel_for, LibTorch's ops and OpenMP OpenBLAS run single-threaded. The OpenMP threads
// do not inherit the caller's grad mode (off inside an autograd Function): the blocks' products
// are never differentiated, so each thread turns it off.
// Calls under kParallelScores scores (heads × T × T, about a millisecond of work) run in the
// calling thread: too little work to start a team for (tiny configs; not measured separately).
constexpr int64_t kParallelScores = int64_t{1} << 20;

template <class F>
void forEachHeadRange(int64_t heads, const BlockPlan& p, const F& f) {
  if (heads * p.T * p.T < kParallelScores) {
    f(0, heads);
    return;
  }
  at::parallel_for(0, heads, p.group, [&](int64_t begin, int64_t end) {
    torch::NoGradGuard no_grad;
    f(begin, end);
  });
}

// An empty vf (the autograd Function's stand-in for "none") as an undefined tensor.
Values values(const torch::Tensor& v, const torch::Tensor& vf) {
  return {v, vf.numel() > 0 ? vf : torch::Tensor()};
}

class BlockedAttentionFunction : public torch::autograd::Function<BlockedAttentionFunction> {
 public:
  // q (already scaled), k, v: (BH, T, Dh) contiguous; vf (BH, T, Dh) for split values or empty;
  // e (R, 2T − 1) and gates (R), R ≥ 0; H heads per batch element -> (BH, T, Dh).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q,
                               const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& vf, const torch::Tensor& e,
                               const torch::Tensor& gates, int64_t heads, bool causal,
                               int64_t block_values) {
    const auto p = planBlocks(q.size(1), causal, block_values);
    const auto rem = remHeads({e, gates}, heads, causal, q);
    auto mask = causal ? diagonalMask(p.rows, q.options()) : torch::Tensor();
    auto out = torch::empty_like(q);
    forEachHeadRange(q.size(0), p, [&](int64_t b, int64_t end) {
      blockedForward(q, k, values(v, vf), mask, rem, p, out, b, end);
    });
    ctx->save_for_backward({q, k, v, vf, out, e, gates});
    ctx->saved_data["heads"] = heads;
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["block_values"] = block_values;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &vf = saved[3], &out = saved[4],
               &e = saved[5], &gates = saved[6];
    const bool causal = ctx->saved_data["causal"].toBool();
    const int64_t T = q.size(1);
    const auto p = planBlocks(T, causal, ctx->saved_data["block_values"].toInt());
    const auto rem = remHeads({e, gates}, ctx->saved_data["heads"].toInt(), causal, q);
    auto mask = causal ? diagonalMask(p.rows, q.options()) : torch::Tensor();
    auto d_out = grads[0].contiguous();
    auto dq = torch::empty_like(q), dk = torch::zeros_like(k);
    const auto x = values(v, vf);
    Values dx{torch::zeros_like(v), x.vf.defined() ? torch::zeros_like(vf) : torch::Tensor()};
    RemGradSums total(rem.size(), T);
    std::mutex total_mutex;
    forEachHeadRange(q.size(0), p, [&](int64_t b, int64_t end) {
      RemGradSums sums(rem.size(), T);
      blockedBackward(q, k, x, out, d_out, mask, rem, p, dq, dk, dx, sums, b, end);
      std::lock_guard<std::mutex> lock(total_mutex);
      total.add(sums);
    });
    torch::Tensor d_e, d_gates;
    if (rem.size() > 0) {
      auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
      auto dA = torch::from_blob(total.diagonals.data(), {rem.size(), 2 * T - 1},
                                 f64);                      // Σ dA per diagonal
      auto g = torch::tensor(rem.gate, f64).view({-1, 1});  // (R, 1)
      d_e = (dA * g).to(e.options());                       // (R, 2T − 1)
      if (causal) d_e.narrow(1, T, T - 1).zero_();          // the future diagonals are not used
      d_gates = ((rem.e.to(torch::kFloat64) * dA).sum(1) -
                 torch::from_blob(total.w_da.data(), {rem.size()}, f64))
                    .to(gates.options());  // (R)
    }
    return {dq, dk, dx.v, dx.vf, d_e, d_gates, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

namespace {

// q, k, v, vf (B, H, T, Dh); vf undefined unless the values split (StarSaber).
torch::Tensor runBlocked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& vf, double scale, bool causal, const RemMixing& rems,
                         int64_t block_values) {
  checkKernelInputs(q);
  const auto B = q.size(0), H = q.size(1), T = q.size(2), Dh = q.size(3);
  auto fold = [&](const torch::Tensor& t) { return t.reshape({B * H, T, Dh}).contiguous(); };
  auto q3 = fold(q * scale), k3 = fold(k), v3 = fold(v);  // (BH, T, Dh)
  auto vf3 = vf.defined() ? fold(vf) : q3.new_empty({0});
  const bool has_rems = rems.gates.defined() && rems.gates.numel() > 0;
  TORCH_CHECK(
      !has_rems || (rems.diagonals.dim() == 2 && rems.diagonals.size(0) == rems.gates.numel() &&
                    rems.diagonals.size(1) == 2 * T - 1 && rems.gates.numel() <= H),
      "blockedSoftmaxAttention: REM diagonals must be (R, 2T − 1) with R = gates ≤ H");
  TORCH_CHECK(!has_rems || !vf.defined(), "blocked attention: REMs with split values");
  auto e = has_rems ? rems.diagonals : q3.new_empty({0, 2 * T - 1});
  auto gates = has_rems ? rems.gates : q3.new_empty({0});
  torch::Tensor y;
  if (torch::GradMode::is_enabled() &&
      (q3.requires_grad() || k3.requires_grad() || v3.requires_grad() || vf3.requires_grad() ||
       e.requires_grad() || gates.requires_grad())) {
    y = BlockedAttentionFunction::apply(q3, k3, v3, vf3, e, gates, H, causal, block_values);
  } else {
    const auto p = planBlocks(T, causal, block_values);
    const auto rem = remHeads({e, gates}, H, causal, q3);
    auto mask = causal ? diagonalMask(p.rows, q3.options()) : torch::Tensor();
    y = torch::empty_like(q3);
    const auto x = values(v3, vf3);
    forEachHeadRange(B * H, p, [&](int64_t b, int64_t end) {
      blockedForward(q3, k3, x, mask, rem, p, y, b, end);
    });
  }
  return y.view({B, H, T, Dh});  // (B, H, T, Dh)
}

}  // namespace

torch::Tensor blockedSoftmaxAttention(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, double scale, bool causal,
                                      const RemMixing& rems, int64_t block_values) {
  return runBlocked(q, k, v, torch::Tensor(), scale, causal, rems, block_values);
}

torch::Tensor blockedSplitValueAttention(const torch::Tensor& q, const torch::Tensor& k,
                                         const torch::Tensor& v_past, const torch::Tensor& v_future,
                                         double scale, bool causal, int64_t block_values) {
  TORCH_CHECK(v_future.defined() && v_future.sizes() == v_past.sizes(),
              "blockedSplitValueAttention: v_future must have v_past's shape");
  return runBlocked(q, k, v_past, v_future, scale, causal, {}, block_values);
}

}  // namespace rsalab
