// SPDX-License-Identifier: GPL-3.0-or-later
// Sections 1 (GEMM peaks) and 2 (training steps, MFU against the float32 peak and, beside it,
// the bfloat16 peak), on the CPU or, with --device cuda, on the GPU.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "bench/fixtures.h"
#include "bench/sections.h"
#include "engine/core/config/flops.h"
#include "engine/core/registry/model_registry.h"
#include "engine/device.h"

namespace rsalab::bench {

std::vector<GemmResult> benchGemm(const Options& o) {
  const torch::Device device = resolveDevice(o.device);
  heading("1. GEMM peaks: float32 and bfloat16 n x n matmul through LibTorch, on " +
          deviceName(device));
  // A GPU needs large products to reach its peak; the CPU's bfloat16 products have no fast
  // kernel in LibTorch 1.13 (a reference loop), so one small size tells their rate.
  struct Size {
    int64_t n;
    torch::ScalarType dtype;
  };
  const std::vector<Size> sizes = device.is_cuda() ? std::vector<Size>{{4096, torch::kFloat32},
                                                                       {8192, torch::kFloat32},
                                                                       {4096, torch::kBFloat16},
                                                                       {8192, torch::kBFloat16}}
                                                   : std::vector<Size>{{1024, torch::kFloat32},
                                                                       {2048, torch::kFloat32},
                                                                       {512, torch::kBFloat16}};
  std::vector<GemmResult> out;
  for (const auto& [n, dtype] : sizes) {
    const auto options = torch::TensorOptions().dtype(dtype).device(device);
    auto a = torch::randn({n, n}, options), b = torch::randn({n, n}, options),
         c = torch::empty({n, n}, options);
    const double flops = 2.0 * static_cast<double>(n * n * n);
    const bool bf16 = dtype == torch::kBFloat16;
    Plan plan{/*warmup=*/2, /*min_reps=*/bf16 && !device.is_cuda() ? 3 : 5,
              /*max_reps=*/n <= 1024 ? 30 : 12, /*budget_s=*/bf16 && !device.is_cuda() ? 2.0 : 4.0};
    auto t = measure(
        [&] {
          torch::mm_out(c, a, b);
          if (device.is_cuda()) torch::cuda::synchronize(device.index());
        },
        scaled(plan, o));
    GemmResult r{n, mapStats(t, [&](double s) { return flops / s / 1e9; }),
                 bf16 ? "bfloat16" : "float32"};
    std::printf("  %-8s n = %-5lld %s GFLOP/s   (%zu repeats, IQR %s-%s)\n", r.dtype.c_str(),
                static_cast<long long>(n), spread(r.gflops).c_str(), r.gflops.samples.size(),
                formatNumber(r.gflops.q1).c_str(), formatNumber(r.gflops.q3).c_str());
    out.push_back(r);
  }
  return out;
}

namespace {

// The first line of a LibTorch error (the rest is its C++ backtrace).
std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// A model whose step throws (a kernel the device lacks, out of memory) is left out of the table
// with its reason, so that one model cannot end the run; the JSON then has no row for it.
void dropFailed(std::vector<std::unique_ptr<TrainCase>>& cases) {
  cases.erase(std::remove(cases.begin(), cases.end(), nullptr), cases.end());
}
void reportFailure(const std::string& model, const std::exception& e) {
  std::printf("  %-12s FAILED, left out: %s\n", model.c_str(), firstLine(e.what()).c_str());
  std::fflush(stdout);
}

// Every round runs one step of each model still measuring.
void runRounds(std::vector<std::unique_ptr<TrainCase>>& cases, const Plan& plan) {
  for (auto& tc : cases) {
    try {
      for (int i = 0; i < plan.warmup; ++i) tc->step();
    } catch (const std::exception& e) {
      reportFailure(tc->model, e);
      tc.reset();
    }
  }
  dropFailed(cases);
  const auto start = Clock::now();
  for (;;) {
    bool any = false;
    for (auto& tc : cases) {
      if (!tc || static_cast<int>(tc->times.size()) >= tc->max_reps) continue;
      const bool needed =
          static_cast<int>(tc->times.size()) < std::min(plan.min_reps, tc->max_reps);
      if (!needed && since(start) > plan.budget_s) continue;
      try {
        tc->times.push_back(timeOnce([&] { tc->step(); }));
      } catch (const std::exception& e) {
        reportFailure(tc->model, e);
        tc.reset();
      }
      any = true;
    }
    if (!any) break;
  }
  dropFailed(cases);
}

}  // namespace

// Round-robin: drifting load on the shared machine hits all models alike and RSA ÷ softmax can
// be taken per round.
std::vector<TrainResult> benchTrain(const Options& o, double peak_flops,
                                    std::vector<PairedRatio>* ratios) {
  heading("2. Training step (forward + backward + AdamW), MFU vs this run's GEMM peak");
  std::printf("  peak used for MFU: %s GFLOP/s\n", formatNumber(peak_flops / 1e9).c_str());
  const std::string rsa_model = attentionModel(attentionKind("rsa")),
                    softmax_model = attentionModel(attentionKind("softmax"));
  const torch::Device device = resolveDevice(o.device);
  std::vector<TrainResult> out;
  for (const auto& c : trainConfigs()) {
    if (!o.wantsConfig(c.name)) continue;
    const bool large = c.name == "large" || c.name == "gpu";
    // gpu (d512 T1024): 2 warm-up steps (cuBLAS picks its kernels, the allocator fills its
    // cache), and a budget that keeps scripts/gpu-check.sh within its 8 minutes.
    Plan plan = scaled(c.name == "gpu"     ? Plan{2, 3, 8, 20}
                       : large             ? Plan{1, 3, 7, 90}
                       : c.name == "small" ? Plan{2, 5, 25, 25}
                                           : Plan{3, 10, 60, 8},
                       o);
    std::vector<std::unique_ptr<TrainCase>> cases;
    for (const auto& m : o.models) {
      try {
        cases.push_back(std::make_unique<TrainCase>(m, c, /*flat=*/true, device));
      } catch (const std::exception& e) {
        reportFailure(m, e);
        continue;
      }
      // Recurrent models at T = 512 run 2048 sequential cell steps per pass: 2 repeats.
      cases.back()->max_reps = large && isRecurrent(m) ? std::min(2, plan.max_reps) : plan.max_reps;
    }
    std::printf("  %s: d%lld h%lld L%lld B%lld T%lld (warm-up %d step(s) each)\n", c.name.c_str(),
                static_cast<long long>(c.d), static_cast<long long>(c.h),
                static_cast<long long>(c.L), static_cast<long long>(c.B),
                static_cast<long long>(c.T), plan.warmup);
    runRounds(cases, plan);
    std::printf("  %-12s %-22s %10s %12s %10s %8s\n", "model", "step ms (min-max)", "steps/s",
                "tokens/s", "GFLOP/s", "MFU");
    for (auto& tc : cases) {
      TrainResult r;
      r.config = c.name;
      r.model = tc->model;
      r.tokens = c.B * c.T;
      StepShape shape{c.B, c.T, c.d, c.h, c.L};
      shape.rem_heads = remHeads(tc->model, c.h);
      shape.lookback = tc->net->options().lookback;
      r.flops = trainStepFlops(tc->model, shape);
      r.seconds = summarize(tc->times);
      if (static_cast<int>(tc->times.size()) < plan.min_reps) {
        r.note = std::to_string(tc->times.size()) + " repeat(s): sequential over T, slow";
      }
      const double sec = r.seconds.median;
      std::printf("  %-12s %-22s %10s %12s %10s %7s%%%s\n", r.model.c_str(),
                  spread(r.seconds, 1e3).c_str(), formatNumber(1 / sec).c_str(),
                  formatNumber(static_cast<double>(r.tokens) / sec).c_str(),
                  formatNumber(r.flops / sec / 1e9).c_str(),
                  formatNumber(100 * r.flops / sec / peak_flops).c_str(),
                  r.note.empty() ? "" : ("  [" + r.note + "]").c_str());
      out.push_back(r);
    }
    // RSA ÷ softmax per round.
    const TrainCase *rsa = nullptr, *softmax = nullptr;
    for (auto& tc : cases) {
      if (tc->model == rsa_model) rsa = tc.get();
      if (tc->model == softmax_model) softmax = tc.get();
    }
    if (rsa && softmax && ratios) {
      std::vector<double> r;
      for (size_t i = 0; i < std::min(rsa->times.size(), softmax->times.size()); ++i) {
        r.push_back(rsa->times[i] / softmax->times[i]);
      }
      ratios->push_back({c.name, summarize(r)});
    }
  }
  return out;
}

}  // namespace rsalab::bench
