// SPDX-License-Identifier: GPL-3.0-or-later
// Section 2b: where the large softmax step's time goes. Its attention products are timed with
// at::parallel_for, as the engine's blocked kernel runs them: the OpenMP pragma is header code, so
// this file alone is compiled with -fopenmp (bench/CMakeLists.txt).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "bench/fixtures.h"
#include "bench/sections.h"
#include "engine/core/config/flops.h"
#include "engine/kernels/blocked_attention.h"

namespace rsalab::bench {

// The large softmax Transformer step against its own parts, each timed alone with the step's
// shapes: the dense products (every Linear, forward + both backward products), the attention
// core (blocked, fwd + bwd) and the rest (LayerNorm, GELU, reshapes, loss, AdamW). The parts'
// FLOP/s say how close each kind of work gets to the GEMM peak, and the MFU the step could reach
// if the rest cost nothing is the ceiling that the products themselves set.
std::vector<Breakdown> benchBreakdown(const Options& o, double peak) {
  heading("2b. Where the large softmax step's time goes (d128 h8 L4 B16 T512), parts timed alone");
  const TrainConfig& c = trainConfig("large");
  const std::string softmax_model = attentionModel(attentionKind("softmax"));
  const int64_t N = c.B * c.T, D = c.d, Dh = c.d / c.h, F = 4 * c.d;
  torch::manual_seed(0);
  // Dense: per layer QKV (D→3D), output (D→D), FFN (D→4D, 4D→D); each Linear = 3 products.
  struct Dense {
    torch::Tensor x, w, grad;
  };
  std::vector<Dense> dense;
  for (int64_t l = 0; l < c.L; ++l) {
    for (auto [in, out] : {std::pair<int64_t, int64_t>{D, 3 * D}, {D, D}, {D, F}, {F, D}}) {
      dense.push_back(
          {torch::randn({N, in}, torch::requires_grad()),
           torch::randn({out, in}, torch::requires_grad()).mul(0.05).detach().requires_grad_(),
           torch::randn({N, out})});
    }
  }
  double dense_flops = 0;
  for (const auto& d : dense) dense_flops += 3 * 2.0 * N * d.x.size(1) * d.w.size(0);
  auto q = torch::randn({c.B, c.h, c.T, Dh}, torch::requires_grad());
  auto k = torch::randn({c.B, c.h, c.T, Dh}, torch::requires_grad());
  auto v = torch::randn({c.B, c.h, c.T, Dh}, torch::requires_grad());
  auto grad = torch::randn({c.B, c.h, c.T, Dh});
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  const double attention_flops = c.L * 3 * 4.0 * c.B * c.T * c.T * D;  // counted in full, as MFU
  TrainCase step(softmax_model, c);
  // The blocked kernel's matrix products alone, with its shapes and threading (heads over the
  // threads; blocks of `rows` query rows × the keys up to the block's last row; forward 2
  // products, backward 5 with the weights recomputed), and nothing else: no mask, softmax or
  // elementwise work. What OpenBLAS's GEMMs give at Dh = 16 bounds the core from above.
  const int64_t BH = c.B * c.h, rows = std::clamp<int64_t>(kAttentionBlockValues / c.T, 16, c.T);
  auto q3 = q.detach().reshape({BH, c.T, Dh}), k3 = k.detach().reshape({BH, c.T, Dh});
  auto v3 = v.detach().reshape({BH, c.T, Dh}), g3 = grad.reshape({BH, c.T, Dh});
  auto products_only = [&] {
    torch::NoGradGuard no_grad;
    auto out = torch::empty_like(q3), dq = torch::empty_like(q3);
    auto dk = torch::zeros_like(k3), dv = torch::zeros_like(v3);
    at::parallel_for(0, BH, 1, [&](int64_t begin, int64_t end) {
      for (int64_t h = begin; h < end; ++h) {
        for (int64_t r0 = 0; r0 < c.T; r0 += rows) {
          const int64_t n = std::min(rows, c.T - r0), keys = r0 + n;
          auto qb = q3.narrow(0, h, 1).narrow(1, r0, n), kb = k3.narrow(0, h, 1).narrow(1, 0, keys);
          auto vb = v3.narrow(0, h, 1).narrow(1, 0, keys), gb = g3.narrow(0, h, 1).narrow(1, r0, n);
          auto w = torch::bmm(qb, kb.transpose(1, 2));  // forward: scores
          auto ob = out.narrow(0, h, 1).narrow(1, r0, n), dqb = dq.narrow(0, h, 1).narrow(1, r0, n);
          torch::bmm_out(ob, w, vb);                     // W V
          auto w2 = torch::bmm(qb, kb.transpose(1, 2));  // backward: recompute
          dv.narrow(0, h, 1).narrow(1, 0, keys).baddbmm_(w2.transpose(1, 2), gb);
          auto ds = torch::bmm(gb, vb.transpose(1, 2));  // dO Vᵀ
          torch::bmm_out(dqb, ds, kb);
          dk.narrow(0, h, 1).narrow(1, 0, keys).baddbmm_(ds.transpose(1, 2), qb);
        }
      }
    });
  };
  std::vector<std::function<void()>> fns = {
      [&] { step.step(); },
      [&] {
        for (auto& d : dense) torch::linear(d.x, d.w).backward(d.grad);
      },
      [&] {
        for (int64_t l = 0; l < c.L; ++l)
          blockedSoftmaxAttention(q, k, v, scale, true).backward(grad);
      },
      [&] {
        for (int64_t l = 0; l < c.L; ++l) products_only();
      }};
  const auto t = interleave(fns, scaled(Plan{1, 3, 7, 40}, o));
  StepShape shape{c.B, c.T, c.d, c.h, c.L};
  const double step_flops = trainStepFlops(softmax_model, shape);
  std::vector<Breakdown> out = {{"whole step", step_flops, t[0]},
                                {"dense products (every Linear, fwd + 2 bwd)", dense_flops, t[1]},
                                {"attention core (blocked, fwd + bwd) x L", attention_flops, t[2]}};
  std::vector<double> rest;
  for (size_t i = 0; i < t[0].samples.size(); ++i) {
    rest.push_back(std::max(0.0, t[0].samples[i] - t[1].samples[i] - t[2].samples[i]));
  }
  out.push_back({"the rest (norms, GELU, copies, loss, AdamW)", 0, summarize(rest)});
  out.push_back({"  attention core's products alone (7 bmm/block) x L", attention_flops, t[3]});
  std::printf("  %-46s %-24s %8s %10s %8s\n", "part", "ms (min-max)", "share", "GFLOP/s",
              "of peak");
  for (const auto& b : out) {
    const double sec = b.seconds.median;
    std::printf("  %-46s %-24s %7s%% %10s %7s%%\n", b.part.c_str(), spread(b.seconds, 1e3).c_str(),
                formatNumber(100 * sec / t[0].median).c_str(),
                b.flops > 0 ? formatNumber(b.flops / sec / 1e9).c_str() : "-",
                b.flops > 0 ? formatNumber(100 * b.flops / sec / peak).c_str() : "-");
  }
  const double ceiling = step_flops / (t[1].median + t[2].median) / peak;
  std::printf(
      "  MFU if the rest were free (dense + attention time only): %s%%; measured step: %s%%\n",
      formatNumber(100 * ceiling).c_str(),
      formatNumber(100 * step_flops / t[0].median / peak).c_str());
  const double products_ceiling = step_flops / (t[1].median + t[3].median) / peak;
  std::printf(
      "  MFU if softmax, masks and all elementwise work were free (dense + attention products "
      "only): %s%%\n",
      formatNumber(100 * products_ceiling).c_str());
  return out;
}

}  // namespace rsalab::bench
