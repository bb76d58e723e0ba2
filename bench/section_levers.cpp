// SPDX-License-Identifier: GPL-3.0-or-later
// The levers measured in this process: each speed lever before/after, interleaved in this run.
// The "before" side is the code as it was before the performance work, kept here (not in the
// engine) only to be measured.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "bench/fixtures.h"
#include "bench/sections.h"
#include "engine/kernels/blocked_attention.h"
#include "engine/kernels/linear_attention_kernel.h"
#include "engine/models/linear_attention.h"
#include "engine/models/recurrent_model.h"
#include "engine/models/rem_builder.h"
#include "engine/models/softmax_attention.h"
#include "engine/models/starsaber.h"

namespace rsalab::bench {
namespace {

// Before: softmax(matmul(q, kᵀ)·scale, bool triu mask built and masked_fill_ed) · v.
torch::Tensor originalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, double scale) {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, T, T)
  const auto T = scores.size(-1);
  auto upper = torch::ones({T, T}, scores.options().dtype(torch::kBool)).triu(1);
  scores.masked_fill_(upper, -std::numeric_limits<double>::infinity());
  return torch::matmul(torch::softmax(scores, -1), v);  // (B, H, T, Dh)
}

// Before: the REMs evaluated elementwise over all (R, Tq, Tk) entries.
torch::Tensor originalRemBuild(RemBuilder& rems, int64_t T) {
  const int64_t R = rems->size();
  auto lag = lagMatrix(T, torch::kCPU);
  std::vector<int64_t> dil;
  std::vector<float> sel;
  for (const auto& s : rems->specs()) {
    dil.push_back(s.dilation);
    sel.insert(sel.end(), {s.kind == RemKind::Regular ? 1.f : 0.f,
                           s.kind == RemKind::Cos ? 1.f : 0.f, s.kind == RemKind::Sin ? 1.f : 0.f});
  }
  auto d = torch::tensor(dil).view({R, 1, 1});
  auto selector = torch::tensor(sel).view({R, 3});
  auto valid = lag.gt(0).unsqueeze(0) & (lag.unsqueeze(0).remainder(d) == 0);
  auto k = torch::div(lag.unsqueeze(0), d, "floor")
               .masked_fill(valid.logical_not(), 1)
               .to(torch::kFloat32);
  auto powers = rems->base().view({R, 1, 1}).pow(k);
  auto angle = rems->theta().view({R, 1, 1}) * k;
  auto trig = selector.select(1, 0).view({R, 1, 1}) +
              selector.select(1, 1).view({R, 1, 1}) * torch::cos(angle) +
              selector.select(1, 2).view({R, 1, 1}) * torch::sin(angle);
  return torch::where(valid, powers * trig, torch::zeros({}, powers.options()));
}

// The alternative linear-attention step: heads folded into the batch of baddbmm/bmm.
torch::Tensor foldedLinearStep(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, torch::Tensor& S, torch::Tensor& z) {
  const auto B = q.size(0), H = q.size(1), Dh = q.size(3), Dv = v.size(3);
  auto fq = eluFeatureMap(q).reshape({B * H, 1, Dh});
  auto fk = eluFeatureMap(k).reshape({B * H, Dh, 1});
  auto vt = v.reshape({B * H, 1, Dv});
  if (!S.defined()) {
    S = torch::zeros({B, H, Dh, Dv}, fk.options());
    z = torch::zeros({B, H, Dh}, fk.options());
  }
  S = torch::baddbmm(S.view({B * H, Dh, Dv}), fk, vt).view({B, H, Dh, Dv});
  z = z + fk.view({B, H, Dh});
  auto num = torch::bmm(fq, S.view({B * H, Dh, Dv}));
  auto denom = torch::bmm(fq, z.view({B * H, Dh, 1})) + kLinearAttentionEps;
  return (num / denom).view({B, H, 1, Dv});
}

// Prints one lever's variants (median (min-max) and the speed-up against the first) into `out`.
void reportLever(std::vector<LeverResult>& out, const std::string& lever,
                 const std::vector<std::string>& names, const std::vector<Stats>& stats,
                 double unit, const char* unit_name) {
  std::printf("  %s\n", lever.c_str());
  for (size_t i = 0; i < names.size(); ++i) {
    std::printf("    %-58s %s %s  (x%s vs first)\n", names[i].c_str(),
                spread(stats[i], unit).c_str(), unit_name,
                formatNumber(stats[0].median / stats[i].median).c_str());
    out.push_back({lever, names[i], stats[i]});
  }
}

}  // namespace

std::vector<LeverResult> benchLinearLevers(const Options& o) {
  heading("Linear attention, causal training path: fwd+bwd of the core, interleaved");
  std::vector<LeverResult> out;
  const int64_t B = 16, H = 8, T = 512, Dh = 16;
  torch::manual_seed(0);
  // The (B, H, T, Dh, Dh) cumulative sum (the training path before), the masked T × T form, the
  // chunked form (kLinearAttentionChunk: the engine's before the fused kernel, its CUDA path now)
  // at other chunk lengths, and the fused kernel: on per-head tensors (packed first) and on the
  // packed projection (B, T, 3D) as the layer calls it (the engine's).
  auto q = torch::randn({B, H, T, Dh}, torch::requires_grad());
  auto k = torch::randn({B, H, T, Dh}, torch::requires_grad());
  auto v = torch::randn({B, H, T, Dh}, torch::requires_grad());
  auto grad = torch::randn({B, H, T, Dh});
  std::vector<std::string> names = {"cumulative sum over (B, H, T, Dh, Dh) (before)",
                                    "masked T x T (parallel)"};
  std::vector<std::function<void()>> fns = {
      [&] { linearAttentionCumulative(q, k, v).backward(grad); },
      [&] { linearAttentionParallel(q, k, v, /*causal=*/true).backward(grad); }};
  for (int64_t C : {16, 32, 64, 128}) {
    names.push_back("chunked, C = " + std::to_string(C) +
                    (C == kLinearAttentionChunk ? " (before the fused kernel)" : ""));
    fns.push_back([&, C] { linearAttentionChunked(q, k, v, C).backward(grad); });
  }
  auto qkv = torch::randn({B, T, 3 * H * Dh}, torch::requires_grad());
  auto grad_merged = torch::randn({B, T, H * Dh});
  names.push_back("fused kernel on (B, H, T, Dh) q, k, v");
  fns.push_back([&] { linearAttentionFused(q, k, v).backward(grad); });
  names.push_back("fused kernel on the packed qkv (B, T, 3D) (engine)");
  fns.push_back([&] { fusedCausalLinearAttention(qkv, H).backward(grad_merged); });
  reportLever(out, "causal linear-attention core fwd+bwd, B16 H8 T512 Dh16", names,
              interleave(fns, scaled(Plan{1, 5, 12, 10}, o)), 1e3, "ms");
  // The whole layer (projections, core, output projection), chunked core vs fused kernel, at
  // the large and the tiny training configs' shapes.
  struct LayerShape {
    const char* name;
    int64_t B, T, D, H;
    double unit;
    const char* unit_name;
  };
  for (const auto& s : {LayerShape{"d128 h8 B16 T512", 16, 512, 128, 8, 1e3, "ms"},
                        LayerShape{"d32 h2 B8 T32", 8, 32, 32, 2, 1e6, "us"}}) {
    torch::manual_seed(1);
    auto layer = std::make_shared<LinearAttentionImpl>(s.D, s.H, /*causal=*/true,
                                                       /*cumulative=*/true);
    auto x = torch::randn({s.B, s.T, s.D}, torch::requires_grad());
    auto g = torch::randn({s.B, s.T, s.D});
    auto step = [&, layer](bool fused) {
      layer->setFusedKernel(fused);
      layer->forward(x).backward(g);
    };
    reportLever(out, std::string("causal linear-attention layer fwd+bwd, ") + s.name,
                {"chunked core, C = 64 (before)", "fused kernel (engine)"},
                interleave({[&] { step(false); }, [&] { step(true); }},
                           scaled(s.B == 16 ? Plan{1, 5, 12, 10} : Plan{20, 50, 400, 3}, o)),
                s.unit, s.unit_name);
  }
  return out;
}

namespace {

bool selected(const std::vector<std::string>& chosen, const std::string& name) {
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), name) != chosen.end();
}

// One model's training step before / after a switch, interleaved: `before` is called on the
// first of two identical TrainCases.
void stepLever(std::vector<LeverResult>& out, const Options& o, const std::string& model,
               const std::string& config, const std::vector<std::string>& names,
               const std::function<void(TrainCase&)>& before) {
  const auto& c = trainConfig(config);
  TrainCase a(model, c), b(model, c);
  before(a);
  const Plan plan = config == "tiny"    ? Plan{5, 20, 200, 6}
                    : config == "small" ? Plan{2, 5, 40, 8}
                                        : Plan{1, 3, 8, 20};
  reportLever(out,
              "training step (fwd+bwd+AdamW), " + model + " " + config + " d" +
                  std::to_string(c.d) + " h" + std::to_string(c.h) + " L" + std::to_string(c.L) +
                  " B" + std::to_string(c.B) + " T" + std::to_string(c.T),
              names, interleave({[&] { a.step(); }, [&] { b.step(); }}, scaled(plan, o)), 1e3,
              "ms");
}

}  // namespace

std::vector<LeverResult> benchRecurrentLevers(const Options& o) {
  heading("Recurrent models: training step, torch::nn vs fused, interleaved");
  std::vector<LeverResult> out;
  for (const std::string config : {"tiny", "small", "large"}) {
    for (const std::string model : {"lstm", "gru", "rnn"}) {
      if (!selected(o.configs, config) || !selected(o.models, model) ||
          (config == "large" && model != "lstm")) {
        continue;  // at large only LSTM (as the PyTorch peer)
      }
      stepLever(out, o, model, config, {"torch::nn module (before)", "fused layers (engine)"},
                [](TrainCase& t) { dynamic_cast<RecurrentModelImpl&>(*t.net).setFused(false); });
    }
  }
  return out;
}

std::vector<LeverResult> benchStarSaberLevers(const Options& o) {
  heading("StarSaber: training step, materialised G vs blocked split values, interleaved");
  std::vector<LeverResult> out;
  for (const std::string config : {"tiny", "small", "large"}) {
    if (!selected(o.configs, config)) continue;
    stepLever(out, o, "starsaber", config,
              {"materialised (B, H, T, T) G, two products (before)",
               "blocked kernel, split values (engine)"},
              [](TrainCase& t) { dynamic_cast<StarSaberModelImpl&>(*t.net).setBlocked(false); });
  }
  return out;
}

std::vector<LeverResult> benchLevers(const Options& o) {
  heading("Levers: before / after, interleaved in this run");
  std::vector<LeverResult> out;
  auto report = [&](const std::string& lever, const std::vector<std::string>& names,
                    const std::vector<Stats>& stats, double unit, const char* unit_name) {
    reportLever(out, lever, names, stats, unit, unit_name);
  };
  const int64_t B = 16, H = 8, T = 512, Dh = 16, R = defaultRemHeads(H).total();
  const double scale = 1.0 / std::sqrt(static_cast<double>(Dh));
  torch::manual_seed(0);
  {
    auto q = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto k = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto v = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto grad = torch::randn({B, H, T, Dh});
    auto mask = torch::full({T, T}, -std::numeric_limits<double>::infinity()).triu(1);
    std::vector<std::function<torch::Tensor()>> fns = {
        [&] { return originalAttention(q, k, v, scale); },
        [&] {
          auto q3 = (q * scale).reshape({B * H, T, Dh}), k3 = k.reshape({B * H, T, Dh});
          auto w = torch::softmax(torch::baddbmm(mask, q3, k3.transpose(1, 2)), -1);
          return torch::bmm(w, v.reshape({B * H, T, Dh})).view({B, H, T, Dh});
        },
        [&] { return blockedSoftmaxAttention(q, k, v, scale, /*causal=*/true); }};
    std::vector<std::function<void()>> train, infer;
    for (auto& f : fns) {
      train.push_back([&] { f().backward(grad); });
      infer.push_back([&] {
        torch::NoGradGuard ng;
        f();
      });
    }
    const std::vector<std::string> names = {
        "original: matmul, x scale, bool triu mask + masked_fill_",
        "scale folded into q, cached additive mask (baddbmm)",
        "blocked, recomputing backward (engine now)"};
    report("attention core fwd+bwd, B16 H8 T512 Dh16 causal", names,
           interleave(train, scaled(Plan{1, 5, 15, 12}, o)), 1e3, "ms");
    report("attention core forward only (no grad)", names,
           interleave(infer, scaled(Plan{1, 5, 15, 6}, o)), 1e3, "ms");
    // Block size of the blocked kernel: scores per block (engine default kAttentionBlockValues).
    std::vector<int64_t> sizes = {16 * 1024, 32 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024};
    std::vector<std::function<void()>> blocked;
    std::vector<std::string> block_names;
    for (int64_t values : sizes) {
      blocked.push_back([&, values] {
        blockedSoftmaxAttention(q, k, v, scale, true, {}, values).backward(grad);
      });
      block_names.push_back(std::to_string(values / 1024) + " Ki scores per block (" +
                            std::to_string(values * 4 / 1024) + " KB)" +
                            (values == kAttentionBlockValues ? " (engine default)" : ""));
    }
    report("attention block size, blocked fwd+bwd, B16 H8 T512 Dh16 causal", block_names,
           interleave(blocked, scaled(Plan{1, 5, 15, 12}, o)), 1e3, "ms");
  }
  {
    // RSA's attention core (R = 3 REM heads of H = 8) against softmax's, fwd+bwd with the REM
    // scalars and gates learning: what RSA adds to the step.
    RemBuilder rems(assignRemHeads(defaultRemHeads(H), {2}), RemInit{}, /*causal=*/true);
    auto mu = torch::zeros({R}, torch::requires_grad());
    auto q = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto k = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto v = torch::randn({B, H, T, Dh}, torch::requires_grad());
    auto grad = torch::randn({B, H, T, Dh});
    std::vector<std::function<void()>> fns = {
        [&] { blockedSoftmaxAttention(q, k, v, scale, true).backward(grad); },
        [&] {
          auto y = blockedSoftmaxAttention(q, k, v, scale, true);  // (B, H, T, Dh)
          auto P = rems->build(T);                                 // (R, T, T)
          auto v_rem = v.narrow(1, 0, R).permute({1, 2, 0, 3}).reshape({R, T, B * Dh});
          auto pv = torch::bmm(P, v_rem).view({R, T, B, Dh}).permute({2, 0, 1, 3});
          auto g = torch::sigmoid(mu).view({1, R, 1, 1});
          auto mixed = (1 - g) * y.narrow(1, 0, R) + g * pv;
          torch::cat({mixed, y.narrow(1, R, H - R)}, 1).backward(grad);
        },
        [&] {
          blockedSoftmaxAttention(q, k, v, scale, true, {rems->diagonals(T), torch::sigmoid(mu)})
              .backward(grad);
        }};
    report("RSA attention core fwd+bwd, B16 H8 T512 Dh16, R=3 REM heads",
           {"softmax only (blocked, for comparison)",
            "RSA: REMs (R,T,T) built, P V as one bmm, outputs mixed",
            "RSA: REMs mixed into the blocks from their diagonals (engine)"},
           interleave(fns, scaled(Plan{1, 5, 12, 10}, o)), 1e3, "ms");
  }
  {
    RemBuilder rems(assignRemHeads(defaultRemHeads(H), {2}), RemInit{}, /*causal=*/true);
    std::vector<std::function<void()>> fns = {[&] {
                                                rems->zero_grad();
                                                originalRemBuild(rems, T).sum().backward();
                                              },
                                              [&] {
                                                rems->zero_grad();
                                                rems->build(T).sum().backward();
                                              },
                                              [&] {
                                                rems->zero_grad();
                                                rems->diagonals(T).sum().backward();
                                              }};
    report(
        "REM build(512) fwd+bwd, R=3",
        {"elementwise over (R, T, T)", "per lag, then gathered to (R, T, T) (inspection, KV steps)",
         "diagonals only, (R, 2T-1) (training: mixed in the attention blocks)"},
        interleave(fns, scaled(Plan{2, 10, 40, 4}, o)), 1e3, "ms");
  }
  {
    torch::NoGradGuard ng;
    auto q = torch::randn({1, 8, 1, 16}), k = torch::randn({1, 8, 1, 16}),
         v = torch::randn({1, 8, 1, 16});
    torch::Tensor S0, z0, S1, z1;
    const int calls = 200;
    std::vector<std::function<void()>> fns = {[&] {
                                                for (int i = 0; i < calls; ++i)
                                                  foldedLinearStep(q, k, v, S0, z0);
                                              },
                                              [&] {
                                                for (int i = 0; i < calls; ++i)
                                                  linearAttentionStep(q, k, v, S1, z1);
                                              }};
    report("linear-attention recurrent step, B1 H8 Dh16 (per call)",
           {"heads folded into baddbmm/bmm", "outer product + matmul over (B, H, ...) (engine)"},
           interleave(fns, scaled(Plan{2, 10, 30, 3}, o)), 1e6 / calls, "us");
  }
  {
    // The optimizer over one flat buffer (engine/training/flat_adam.h) against LibTorch's
    // per-tensor AdamW, same model and data, at the config where per-op dispatch dominates.
    TrainCase per_tensor(attentionModel(attentionKind("softmax")), trainConfig("tiny"),
                         /*flat=*/false);
    TrainCase flat(attentionModel(attentionKind("softmax")), trainConfig("tiny"), /*flat=*/true);
    std::vector<std::function<void()>> fns = {[&] { per_tensor.step(); }, [&] { flat.step(); }};
    report("training step (fwd+bwd+AdamW), transformer tiny d32 h2 L2 B8 T32",
           {"per-tensor torch::optim::AdamW", "flat parameter buffer (engine)"},
           interleave(fns, scaled(Plan{5, 20, 200, 6}, o)), 1e3, "ms");
  }
  {
    TrainCase tc(attentionModel(attentionKind("softmax")), trainConfig("large"));
    const int threads = torch::get_num_threads();
    std::vector<std::function<void()>> fns = {[&] {
                                                torch::set_num_threads(1);
                                                tc.step();
                                                torch::set_num_threads(threads);
                                              },
                                              [&] { tc.step(); }};
    report("threads: softmax Transformer large training step",
           {"1 thread", std::to_string(threads) + " threads (= cores, initRuntime)"},
           interleave(fns, scaled(Plan{1, 3, 5, 20}, o)), 1e3, "ms");
    std::vector<std::function<void()>> malloc_fns = {
        [&] {
          mallopt(M_MMAP_MAX, 65536);             // glibc defaults (the mmap threshold was never
          mallopt(M_TRIM_THRESHOLD, 128 * 1024);  // set, so it still adapts as by default)
          tc.step();
          mallopt(M_MMAP_MAX, 0);  // back to initRuntime's settings
          mallopt(M_TRIM_THRESHOLD, 1 << 30);
        },
        [&] { tc.step(); }};
    report("malloc: softmax Transformer large training step",
           {"glibc defaults (mmap for big blocks, trim 128 KiB)",
            "mmap off, trim 1 GiB (initRuntime)"},
           interleave(malloc_fns, scaled(Plan{1, 3, 5, 20}, o)), 1e3, "ms");
  }
  return out;
}

}  // namespace rsalab::bench
