// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/kernels/blocked_attention.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <type_traits>
#include <vector>

#include "engine/kernels/row_gemm.h"
#include "engine/kernels/softmax_rows.h"
#include "engine/kernels/toeplitz_rem_kernels.h"

namespace rsalab {

namespace {

// Blocked attention on heads folded into one dimension: q (scaled), k, v, out (BH, T, Dh).
// A block is one head's `rows` query rows × `keys` keys; its scores (rows·keys values) are kept
// near block_values so that they, and their gradient in the backward, stay in cache (32 Ki
// floats = 128 KB by default; smaller blocks waste less of a causal block's diagonal square, and
// with the products straight to the BLAS more calls cost little). `group` heads are the threads'
// smallest share.
struct BlockPlan {
  int64_t T, rows, group;
  bool causal;
  int64_t keys(int64_t r0, int64_t n) const { return causal ? r0 + n : T; }
  // The row loops' causal limit (softmax_rows.h): a causal block's first row, or −1.
  int64_t causalFirst(int64_t r0) const { return causal ? r0 : -1; }
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
  template <class S>
  const S* diagonals(int64_t r) const {
    return e.data_ptr<S>() + r * e.size(1);
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

// The call's additive score bias as the kernel sees it (ScoreBias): folded head i adds
// −m·(row − key) with m = slopes[i mod H] (ALiBi), or c_row − c_key from row i of c (FoX).
struct BiasHeads {
  std::vector<double> slopes;
  torch::Tensor c;  // (BH, T) contiguous, in the kernel's type; undefined without
  int64_t heads = 1;
  // b into a block's scores w (n × keys, rows r0 …).
  template <class S>
  void add(S* w, int64_t h, int64_t r0, int64_t n, int64_t keys) const {
    if (!slopes.empty()) {
      softmax_rows::addLagBias(w, n, keys, r0,
                               static_cast<S>(slopes[static_cast<size_t>(h % heads)]));
    } else if (c.defined()) {
      const S* ch = c.data_ptr<S>() + h * c.size(1);
      softmax_rows::addPositionBias(w, n, keys, ch + r0, ch);
    }
  }
  // A block's part of dc (FoX) from its dS (n × keys, 0 after each row's limit): key j loses its
  // column sum. (Row i would gain its row sum, but a softmax row is unchanged by a constant, so
  // that sum is 0.)
  template <class S>
  void grad(const S* d, int64_t n, int64_t keys, S* dc) const {
    softmax_rows::subtractColumnSums(d, n, keys, dc);
  }
};

BiasHeads biasHeads(const torch::Tensor& slopes, const torch::Tensor& c, int64_t heads,
                    const torch::Tensor& like) {
  BiasHeads bias;
  bias.heads = heads;
  if (slopes.numel() > 0) {
    auto m = slopes.detach().to(torch::kCPU, torch::kFloat64).contiguous();
    bias.slopes.assign(m.data_ptr<double>(), m.data_ptr<double>() + m.numel());
  }
  if (c.numel() > 0) bias.c = c.detach().to(like.scalar_type()).contiguous();  // (BH, T)
  return bias;
}

void checkKernelInputs(const torch::Tensor& q) {
  TORCH_CHECK(q.is_cpu(), "blockedSoftmaxAttention: CPU tensors only (use the materialised path)");
  TORCH_CHECK(q.scalar_type() == torch::kFloat32 || q.scalar_type() == torch::kFloat64,
              "blockedSoftmaxAttention: float or double tensors only");
}

// Raw views of a call's (BH, T, Dh) contiguous tensors, per folded head h.
template <class S>
struct Heads {
  const S *q, *k, *v, *vf;  // vf null unless the values split (StarSaber)
  int64_t T, Dh;
  int64_t at(int64_t h) const { return h * T * Dh; }
};

template <class S>
const S* rawOrNull(const torch::Tensor& t) {
  return t.defined() && t.numel() > 0 ? t.data_ptr<S>() : nullptr;
}

// A thread's scratch: scores / weights, their gradient, the REM-mixed weights, two n × n squares
// (split values), a block's row statistics and the rows' rowsum(W ⊙ dA).
template <class S>
struct Work {
  std::vector<S> s, d, a, sq, stats, delta;
  explicit Work(const BlockPlan& p)
      : s(static_cast<size_t>(p.rows * p.T)),
        d(s.size()),
        a(s.size()),
        sq(static_cast<size_t>(2 * p.rows * p.rows)),
        stats(static_cast<size_t>(2 * p.rows)),
        delta(static_cast<size_t>(p.T)) {}
};

// Split values, forward: w (n × keys, the unnormalised weights) becomes its past part, keys
// [0, r0 + n) with the n × n square's upper triangle (j ≥ i) zeroed; the square's upper triangle
// goes to sq; ob = past·v + square·vf + w's keys after the square·vf.
template <class S>
void splitForward(S* w, S* sq, int64_t r0, int64_t n, int64_t keys, int64_t D, const S* v,
                  const S* vf, S* ob) {
  for (int64_t i = 0; i < n; ++i) {
    S* row = w + i * keys + r0;
    for (int64_t j = 0; j < n; ++j) {
      sq[i * n + j] = j >= i ? row[j] : S(0);
      if (j >= i) row[j] = 0;
    }
  }
  const int64_t tail = r0 + n, after = keys - tail;
  rowMajorGemm<S>(false, false, n, D, tail, w, keys, v, D, 0, ob, D);
  rowMajorGemm<S>(false, false, n, D, n, sq, n, vf + r0 * D, D, 1, ob, D);
  rowMajorGemm<S>(false, false, n, D, after, w + tail, keys, vf + tail * D, D, 1, ob, D);
}

// Heads [begin, end) of out; with stats (BH, T, 2) each row's softmax statistics for the
// backward. Plain and split heads take the unnormalised weights and normalise the product's rows
// (Dh values instead of keys); REM heads mix the normalised weights: A = (1 − g)W + gP.
template <class S>
void forwardHeads(const Heads<S>& x, const RemHeads& rem, const BiasHeads& bias, const BlockPlan& p,
                  S* out, S* stats, int64_t begin, int64_t end) {
  const int64_t T = p.T, D = x.Dh;
  Work<S> work(p);
  for (int64_t h = begin; h < end; ++h) {
    const S *q = x.q + x.at(h), *k = x.k + x.at(h), *v = x.v + x.at(h);
    const S* vf = x.vf ? x.vf + x.at(h) : nullptr;
    const int64_t r = rem.remHead(h);
    for (int64_t r0 = 0; r0 < T; r0 += p.rows) {
      const int64_t n = std::min(p.rows, T - r0), keys = p.keys(r0, n);
      S* w = work.s.data();
      S* st = stats ? stats + 2 * (h * T + r0) : work.stats.data();
      S* ob = out + x.at(h) + r0 * D;
      rowMajorGemm<S>(false, true, n, keys, D, q + r0 * D, D, k, D, 0, w, keys);  // scores
      bias.add(w, h, r0, n, keys);
      softmax_rows::softmax(w, n, keys, p.causalFirst(r0), st, r >= 0);
      if (r >= 0) {
        toeplitz::mixInto(w, n, keys, rem.diagonals<S>(r), T - 1 - r0,
                          rem.gate[static_cast<size_t>(r)]);
      }
      if (vf) {
        splitForward(w, work.sq.data(), r0, n, keys, D, v, vf, ob);
      } else {
        rowMajorGemm<S>(false, false, n, D, keys, w, keys, v, D, 0, ob, D);
      }
      if (r < 0) softmax_rows::scaleRows(ob, n, D, st);
    }
  }
}

// Split values, backward: a block's part of dv and dvf (added) from its weights w (n × keys) and
// dO, and dA = dO·vᵀ on the past part, dO·vfᵀ on the future part, into d (n × keys).
template <class S>
void splitValueGrads(const S* w, S* sq, int64_t r0, int64_t n, int64_t keys, int64_t D, const S* v,
                     const S* vf, const S* d_o, S* dv, S* dvf, S* d) {
  const int64_t tail = r0 + n, after = keys - tail;
  S *past = sq, *future = sq + n * n;  // the square's strict lower / upper triangle
  for (int64_t i = 0; i < n; ++i) {
    const S* row = w + i * keys + r0;
    for (int64_t j = 0; j < n; ++j) {
      past[i * n + j] = j < i ? row[j] : S(0);
      future[i * n + j] = j >= i ? row[j] : S(0);
    }
  }
  rowMajorGemm<S>(true, false, r0, D, n, w, keys, d_o, D, 1, dv, D);  // keys before the square
  rowMajorGemm<S>(true, false, n, D, n, past, n, d_o, D, 1, dv + r0 * D, D);
  rowMajorGemm<S>(true, false, n, D, n, future, n, d_o, D, 1, dvf + r0 * D, D);
  rowMajorGemm<S>(true, false, after, D, n, w + tail, keys, d_o, D, 1, dvf + tail * D, D);
  rowMajorGemm<S>(false, true, n, tail, D, d_o, D, v, D, 0, d, keys);
  rowMajorGemm<S>(false, true, n, after, D, d_o, D, vf + tail * D, D, 0, d + tail, keys);
  rowMajorGemm<S>(false, true, n, n, D, d_o, D, vf + r0 * D, D, 0, future,
                  n);  // the square with vf
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i; j < n; ++j) d[i * keys + r0 + j] = future[i * n + j];
  }
}

// Output gradients of a call, raw (BH, T, Dh); dvf null unless the values split.
template <class S>
struct Grads {
  S *dq, *dk, *dv, *dvf, *dc;  // dc (BH, T) null without a position bias
};

// A = (1 − g)·W + g·P (g = 0 for plain heads), W = softmax(S), out = A V. With dA = dO Vᵀ:
// dV = Aᵀ dO; dS = (1 − g)·W ⊙ (dA − rowsum(W ⊙ dA)); dQ = dS K; dK = dSᵀ Q (FlashAttention's
// backward, recomputing W from the forward's row statistics; for plain heads
// rowsum(W ⊙ dA) = rowsum(dO ⊙ out), once for all rows). For REM heads the sums gather dA per
// diagonal and rowsum(W ⊙ dA): dP = g·Σ dA, dg = Σ (P − W) ⊙ dA.
// Split values (StarSaber): A = W, out_i = Σ_{j<i} W_ij v_j + Σ_{j≥i} W_ij vf_j; the softmax
// backward is then the plain one (rowsum(W ⊙ dA) = rowsum(dO ⊙ out) still).
template <class S>
void backwardHeads(const Heads<S>& x, const S* out, const S* d_out, const S* stats,
                   const RemHeads& rem, const BiasHeads& bias, const BlockPlan& p,
                   const Grads<S>& g, RemGradSums& sums, int64_t begin, int64_t end) {
  const int64_t T = p.T, D = x.Dh;
  Work<S> work(p);
  for (int64_t h = begin; h < end; ++h) {
    const int64_t at = x.at(h);
    const S *q = x.q + at, *k = x.k + at, *v = x.v + at, *d_o = d_out + at;
    const S* vf = x.vf ? x.vf + at : nullptr;
    S *dq = g.dq + at, *dk = g.dk + at, *dv = g.dv + at, *dvf = vf ? g.dvf + at : nullptr;
    const int64_t r = rem.remHead(h);
    if (r < 0) softmax_rows::rowDots(d_o, out + at, T, D, -1, work.delta.data());
    // The last block first: its keys are all T, so that it writes dk and dv (not split) whole.
    for (int64_t r0 = (T - 1) / p.rows * p.rows; r0 >= 0; r0 -= p.rows) {
      const int64_t n = std::min(p.rows, T - r0), keys = p.keys(r0, n), cf = p.causalFirst(r0);
      const S add = r0 + n < T ? 1 : 0;  // 0: the first block, overwriting dk and dv
      S *w = work.s.data(), *d = work.d.data();
      const S* dob = d_o + r0 * D;
      rowMajorGemm<S>(false, true, n, keys, D, q + r0 * D, D, k, D, 0, w, keys);  // scores
      bias.add(w, h, r0, n, keys);
      softmax_rows::weights(w, n, keys, cf, stats + 2 * (h * T + r0));  // W
      if (vf) {
        splitValueGrads(w, work.sq.data(), r0, n, keys, D, v, vf, dob, dv, dvf, d);
      } else {
        const S* a = w;
        if (r >= 0) {
          std::copy(w, w + n * keys, work.a.data());
          toeplitz::mixInto(work.a.data(), n, keys, rem.diagonals<S>(r), T - 1 - r0,
                            rem.gate[static_cast<size_t>(r)]);
          a = work.a.data();
        }
        rowMajorGemm<S>(true, false, keys, D, n, a, keys, dob, D, add, dv, D);  // dV += Aᵀ dO
        rowMajorGemm<S>(false, true, n, keys, D, dob, D, v, D, 0, d, keys);     // dA = dO Vᵀ
      }
      const S* delta = work.delta.data() + r0;
      S factor = 1;
      if (r >= 0) {
        S* w_da = work.delta.data();  // this block's rowsum(W ⊙ dA)
        softmax_rows::rowDots(w, d, n, keys, cf, w_da);
        toeplitz::addDiagonals(d, n, keys, sums.diagonals.data() + r * (2 * T - 1), T - 1 - r0);
        double total = 0;
        for (int64_t i = 0; i < n; ++i) total += w_da[i];
        sums.w_da[static_cast<size_t>(r)] += total;
        delta = w_da;
        factor = static_cast<S>(1 - rem.gate[static_cast<size_t>(r)]);
      }
      softmax_rows::scoreGrads(d, w, n, keys, cf, delta, factor);  // dS
      if (g.dc) bias.grad(d, n, keys, g.dc + h * T);
      rowMajorGemm<S>(false, false, n, D, keys, d, keys, k, D, 0, dq + r0 * D, D);   // dQ = dS K
      rowMajorGemm<S>(true, false, keys, D, n, d, keys, q + r0 * D, D, add, dk, D);  // dK += dSᵀ Q
    }
  }
}

// Threads take whole heads, so each writes only its own rows of out, dq, dk and dv; inside
// at::parallel_for, OpenMP OpenBLAS runs single-threaded. The OpenMP threads do not inherit the
// caller's grad mode (off inside an autograd Function): nothing here is differentiated (the
// LibTorch fallback of gemm included), so each thread turns it off.
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

template <class S>
Heads<S> rawHeads(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                  const torch::Tensor& vf) {
  return {q.data_ptr<S>(),  k.data_ptr<S>(), v.data_ptr<S>(),
          rawOrNull<S>(vf), q.size(1),       q.size(2)};
}

// out (and with stats defined, the rows' statistics) of q, k, v, vf (BH, T, Dh) contiguous.
void runForward(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                const torch::Tensor& vf, const RemHeads& rem, const BiasHeads& bias,
                const BlockPlan& p, torch::Tensor& out, torch::Tensor& stats) {
  forEachHeadRange(q.size(0), p, [&](int64_t b, int64_t end) {
    if (q.scalar_type() == torch::kFloat64) {
      forwardHeads(rawHeads<double>(q, k, v, vf), rem, bias, p, out.data_ptr<double>(),
                   stats.defined() ? stats.data_ptr<double>() : nullptr, b, end);
    } else {
      forwardHeads(rawHeads<float>(q, k, v, vf), rem, bias, p, out.data_ptr<float>(),
                   stats.defined() ? stats.data_ptr<float>() : nullptr, b, end);
    }
  });
}

template <class S>
Grads<S> rawGrads(torch::Tensor& dq, torch::Tensor& dk, torch::Tensor& dv, torch::Tensor& dvf,
                  torch::Tensor& dc) {
  return {dq.data_ptr<S>(), dk.data_ptr<S>(), dv.data_ptr<S>(),
          dvf.defined() ? dvf.data_ptr<S>() : nullptr, dc.defined() ? dc.data_ptr<S>() : nullptr};
}

class BlockedAttentionFunction : public torch::autograd::Function<BlockedAttentionFunction> {
 public:
  // q (already scaled), k, v: (BH, T, Dh) contiguous; vf (BH, T, Dh) for split values or empty;
  // e (R, 2T − 1) and gates (R), R ≥ 0; slopes (H) or c (BH, T), or empty; H heads per batch
  // element -> (BH, T, Dh).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q,
                               const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& vf, const torch::Tensor& e,
                               const torch::Tensor& gates, const torch::Tensor& slopes,
                               const torch::Tensor& c, int64_t heads, bool causal,
                               int64_t block_values) {
    const auto p = planBlocks(q.size(1), causal, block_values);
    const auto rem = remHeads({e, gates}, heads, causal, q);
    const auto bias = biasHeads(slopes, c, heads, q);
    auto out = torch::empty_like(q);
    auto stats = q.new_empty({q.size(0), q.size(1), 2});  // per row: max, 1/Σ exp
    runForward(q, k, v, vf, rem, bias, p, out, stats);
    ctx->save_for_backward({q, k, v, vf, out, e, gates, stats, slopes, c});
    ctx->saved_data["heads"] = heads;
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["block_values"] = block_values;
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &vf = saved[3], &out = saved[4],
               &e = saved[5], &gates = saved[6], &stats = saved[7], &slopes = saved[8],
               &c = saved[9];
    const bool causal = ctx->saved_data["causal"].toBool();
    const int64_t T = q.size(1);
    const auto p = planBlocks(T, causal, ctx->saved_data["block_values"].toInt());
    const int64_t heads = ctx->saved_data["heads"].toInt();
    const auto rem = remHeads({e, gates}, heads, causal, q);
    const auto bias = biasHeads(slopes, c, heads, q);
    auto d_out = grads[0].contiguous();
    // dk and dv (unless split) are written whole by each head's first block (backwardHeads).
    const bool split = vf.numel() > 0;
    auto dq = torch::empty_like(q), dk = torch::empty_like(k);
    auto dv = split ? torch::zeros_like(v) : torch::empty_like(v);
    auto dvf = split ? torch::zeros_like(vf) : torch::Tensor();
    auto dc = c.numel() > 0 ? torch::zeros_like(bias.c) : torch::Tensor();  // (BH, T)
    RemGradSums total(rem.size(), T);
    std::mutex total_mutex;
    forEachHeadRange(q.size(0), p, [&](int64_t b, int64_t end) {
      RemGradSums sums(rem.size(), T);
      if (q.scalar_type() == torch::kFloat64) {
        backwardHeads(rawHeads<double>(q, k, v, vf), out.data_ptr<double>(),
                      d_out.data_ptr<double>(), stats.data_ptr<double>(), rem, bias, p,
                      rawGrads<double>(dq, dk, dv, dvf, dc), sums, b, end);
      } else {
        backwardHeads(rawHeads<float>(q, k, v, vf), out.data_ptr<float>(), d_out.data_ptr<float>(),
                      stats.data_ptr<float>(), rem, bias, p, rawGrads<float>(dq, dk, dv, dvf, dc),
                      sums, b, end);
      }
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
    if (dc.defined()) dc = dc.to(c.scalar_type());
    return {dq,
            dk,
            dv,
            dvf,
            d_e,
            d_gates,
            torch::Tensor(),
            dc,
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor()};
  }
};

// q, k, v, vf (B, H, T, Dh); vf undefined unless the values split (StarSaber).
torch::Tensor runBlocked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& vf, double scale, bool causal, const RemMixing& rems,
                         const ScoreBias& score_bias, int64_t block_values) {
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
  const bool has_slopes = score_bias.slopes.defined() && score_bias.slopes.numel() > 0;
  const bool has_positions = score_bias.positions.defined() && score_bias.positions.numel() > 0;
  TORCH_CHECK(!has_slopes || score_bias.slopes.numel() == H,
              "blockedBiasedAttention: one slope per head");
  TORCH_CHECK(!has_positions || score_bias.positions.sizes() == torch::IntArrayRef({B, H, T}),
              "blockedBiasedAttention: positions must be (B, H, T)");
  TORCH_CHECK(!(has_slopes && has_positions), "blocked attention: slopes or positions, not both");
  TORCH_CHECK(!(has_slopes || has_positions) || (!has_rems && !vf.defined()),
              "blocked attention: a score bias with REMs or split values");
  auto slopes = has_slopes ? score_bias.slopes : q3.new_empty({0});
  auto c = has_positions ? score_bias.positions.reshape({B * H, T}) : q3.new_empty({0});
  torch::Tensor y;
  if (torch::GradMode::is_enabled() &&
      (q3.requires_grad() || k3.requires_grad() || v3.requires_grad() || vf3.requires_grad() ||
       e.requires_grad() || gates.requires_grad() || c.requires_grad())) {
    y = BlockedAttentionFunction::apply(q3, k3, v3, vf3, e, gates, slopes, c, H, causal,
                                        block_values);
  } else {
    const auto p = planBlocks(T, causal, block_values);
    const auto rem = remHeads({e, gates}, H, causal, q3);
    const auto bias = biasHeads(slopes, c, H, q3);
    y = torch::empty_like(q3);
    torch::Tensor no_stats;
    runForward(q3, k3, v3, vf3, rem, bias, p, y, no_stats);
  }
  return y.view({B, H, T, Dh});  // (B, H, T, Dh)
}

}  // namespace

torch::Tensor blockedSoftmaxAttention(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, double scale, bool causal,
                                      const RemMixing& rems, int64_t block_values) {
  return runBlocked(q, k, v, torch::Tensor(), scale, causal, rems, {}, block_values);
}

torch::Tensor blockedBiasedAttention(const torch::Tensor& q, const torch::Tensor& k,
                                     const torch::Tensor& v, double scale, bool causal,
                                     const ScoreBias& bias, int64_t block_values) {
  return runBlocked(q, k, v, torch::Tensor(), scale, causal, {}, bias, block_values);
}

torch::Tensor blockedSplitValueAttention(const torch::Tensor& q, const torch::Tensor& k,
                                         const torch::Tensor& v_past, const torch::Tensor& v_future,
                                         double scale, bool causal, int64_t block_values) {
  TORCH_CHECK(v_future.defined() && v_future.sizes() == v_past.sizes(),
              "blockedSplitValueAttention: v_future must have v_past's shape");
  return runBlocked(q, k, v_past, v_future, scale, causal, {}, {}, block_values);
}

}  // namespace rsalab
