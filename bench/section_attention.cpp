// SPDX-License-Identifier: GPL-3.0-or-later
// Sections 3 (RSA ÷ softmax and the REMs alone), 4 (attention against T) and 5 (generation).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/fixtures.h"
#include "bench/sections.h"
#include "engine/core/registry/model_registry.h"
#include "engine/models/rem_builder.h"
#include "engine/models/transformer.h"

namespace rsalab::bench {

const char* const kLinearStep = "linear (S, z) step";
const char* const kSoftmaxKvStep = "softmax KV cache step";
const char* const kSoftmaxRecompute = "softmax recompute prefix";

std::vector<RemResult> benchRems(const Options& o, const std::vector<TrainResult>& train,
                                 const std::vector<PairedRatio>& ratios) {
  heading("3. RSA / softmax step time, and the REMs alone (diagonals(T) with grad, fwd+bwd)");
  std::printf("  %-7s %-30s\n", "config",
              "RSA step / softmax step: median (min-max) over paired rounds");
  for (const auto& r : ratios) {
    std::printf("  %-7s %s  (IQR %s-%s, %zu rounds)\n", r.config.c_str(), spread(r.ratio).c_str(),
                formatNumber(r.ratio.q1).c_str(), formatNumber(r.ratio.q3).c_str(),
                r.ratio.samples.size());
  }
  const std::string softmax_model = attentionModel(attentionKind("softmax"));
  std::vector<RemResult> out;
  std::printf("  %-7s %5s %3s %-24s %s\n", "config", "T", "R", "ms per build+bwd",
              "x L layers / softmax step");
  for (const auto& c : trainConfigs()) {
    if (!o.wantsConfig(c.name)) continue;
    const auto counts = defaultRemHeads(c.h);
    torch::manual_seed(0);
    RemBuilder rems(assignRemHeads(counts, {2}), RemInit{}, /*causal=*/true);
    auto t = measure(
        [&] {
          rems->zero_grad();
          rems->diagonals(c.T).sum().backward();  // what a training step builds (O(R·T))
        },
        scaled(Plan{2, 5, 40, 2}, o));
    double softmax_step = 0;
    for (const auto& r : train) {
      if (r.config == c.name && r.model == softmax_model) softmax_step = r.seconds.median;
    }
    RemResult r{c.name, c.T, counts.total(), c.L, t, softmax_step};
    std::printf(
        "  %-7s %5lld %3lld %-24s %s\n", c.name.c_str(), static_cast<long long>(c.T),
        static_cast<long long>(r.R), spread(t, 1e3).c_str(),
        softmax_step > 0
            ? (formatNumber(100 * t.median * static_cast<double>(c.L) / softmax_step) + "%").c_str()
            : "-");
    out.push_back(r);
  }
  return out;
}

std::vector<ScalingResult> benchAttention(const Options& o) {
  const int64_t B = 4, D = 128, H = 8;
  heading("4. One attention layer, forward (no grad), B=4 D=128 H=8, causal");
  const std::vector<int64_t> lengths = {128, 256, 512, 1024, 2048};
  std::vector<ScalingResult> out;
  for (const auto& model : attentionModels()) {
    const AttentionKind kind = *modelInfo(model).attention;  // an attention-family row's kind
    torch::manual_seed(0);
    SelfAttention attn = makeSelfAttention(kind, modelOptions(model, D, H, 1), /*causal=*/true);
    attn->eval();
    torch::NoGradGuard no_grad;
    ScalingResult r;
    r.kind = attentionKindName(kind);
    std::vector<double> x, y, xu, yu;
    for (int64_t T : lengths) {
      auto input = torch::randn({B, T, D});
      Plan plan = T <= 512 ? Plan{2, 5, 20, 1.5} : Plan{1, 3, 7, 3};
      auto t = measure([&] { attn->forward(input); }, scaled(plan, o));
      r.T.push_back(T);
      r.seconds.push_back(t);
      x.push_back(static_cast<double>(T));
      y.push_back(t.median);
      if (T >= 512) {
        xu.push_back(static_cast<double>(T));
        yu.push_back(t.median);
      }
    }
    r.slope = logLogSlope(x, y);
    r.slope_upper = logLogSlope(xu, yu);
    out.push_back(r);
  }
  std::printf("  %-8s", "T");
  for (int64_t T : lengths) std::printf(" %-20lld", static_cast<long long>(T));
  std::printf(" %s\n", "slope (all T; T>=512)");
  for (const auto& r : out) {
    std::printf("  %-8s", r.kind.c_str());
    for (const auto& s : r.seconds) std::printf(" %-20s", (spread(s, 1e3) + "ms").c_str());
    std::printf(" %s; %s\n", formatNumber(r.slope).c_str(), formatNumber(r.slope_upper).c_str());
  }
  return out;
}

std::vector<GenerationResult> benchGeneration(const Options& o) {
  const int64_t T = kGenerationT;
  const int64_t timed = std::max<int64_t>(16, std::lround(64 * std::min(1.0, o.scale)));
  heading("5. Generation per token near position 2048 (d128 h8 L4, B=1)");
  std::vector<GenerationResult> out;
  ModelIO io;
  io.input_dim = 1;
  io.output_dim = 1;
  torch::NoGradGuard no_grad;
  auto x = torch::randn({1, T, 1});
  // Every attention model by its recurrent step: the state its card names (ModelCard::step_state),
  // a KV cache else.
  for (const auto& model : attentionModels()) {
    torch::manual_seed(0);
    TransformerModelImpl net(modelOptions(model, 128, 8, 4), io);
    net.eval();
    GenerationState state;
    for (int64_t t = 0; t < T - timed; ++t) net.step(x.narrow(1, t, 1), state);
    std::vector<double> times;
    for (int64_t t = T - timed; t < T; ++t) {
      times.push_back(timeOnce([&] { net.step(x.narrow(1, t, 1), state); }));
    }
    const ModelCard& card = modelInfo(model);  // "linear (S, z) step", "alibi KV cache step"
    const std::string label = std::string(card.attention_name) + " " +
                              (card.step_state ? card.step_state : "KV cache") + " step";
    out.push_back({label, summarize(times)});
  }
  {
    torch::manual_seed(0);
    TransformerModelImpl net(modelOptions(attentionModel(attentionKind("softmax")), 128, 8, 4), io);
    net.eval();
    std::vector<double> times;
    const int64_t recompute = std::max<int64_t>(3, std::lround(8 * std::min(1.0, o.scale)));
    net.forward(x.narrow(1, 0, T - recompute - 1));  // warm-up
    for (int64_t t = T - recompute; t < T; ++t) {
      times.push_back(timeOnce([&] { net.forward(x.narrow(1, 0, t + 1)); }));
    }
    out.push_back({kSoftmaxRecompute, summarize(times)});
  }
  for (const auto& r : out) {
    std::printf("  %-26s %s ms per token (%zu tokens, IQR %s-%s)\n", r.method.c_str(),
                spread(r.seconds, 1e3).c_str(), r.seconds.samples.size(),
                formatNumber(r.seconds.q1 * 1e3).c_str(), formatNumber(r.seconds.q3 * 1e3).c_str());
  }
  return out;
}

}  // namespace rsalab::bench
