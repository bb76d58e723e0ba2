// SPDX-License-Identifier: GPL-3.0-or-later
// The bench's sections (docs/PERFORMANCE.md): each measures, prints its table and returns plain
// results that bench/report.cpp turns into targets and JSON.
//   gemm        float32 and bfloat16 n×n matmul peaks (GFLOP/s) and the BLAS actually loaded
//   train       forward + backward + AdamW per model × {tiny, small, large}: steps/s, tokens/s, MFU
//   rsa         RSA ÷ softmax step time (paired rounds) and the cost of building the REMs alone
//   breakdown   where the large softmax step's time goes: its dense products, its attention
//               core and the rest, each timed alone; the MFU ceiling those parts set
//   attention   one attention layer's forward time vs T, and the fitted log-log exponent
//   generation  per-token time near T = 2048: linear (S, z) vs softmax KV cache vs recompute
//   linear-levers  the causal linear-attention core: cumulative sum vs masked T × T vs chunked
//               at several chunk lengths (also run by "levers")
//   recurrent-levers  lstm/gru/rnn training step at tiny and small, lstm at large (--configs,
//               --models): torch::nn's modules vs the fused path (also run by "levers")
//   starsaber-levers  StarSaber's training step per config: materialised G vs the blocked
//               kernel with split values (also run by "levers")
//   levers      each speed lever before/after (interleaved A/B); the OpenBLAS flavour is
//               measured in a child process started with the pthread build on its library path
//   sweep       wall time of `rsalab-cli sweep` with defaults (only with --with-sweep)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/harness.h"

namespace rsalab::bench {

// 1. GEMM peaks, float32 and bfloat16, on the bench's --device.
struct GemmResult {
  int64_t n;
  Stats gflops;
  std::string dtype = "float32";  // or "bfloat16"
};
std::vector<GemmResult> benchGemm(const Options& o);

// 2. Training steps, round-robin over the models of each configuration.
struct TrainResult {
  std::string config, model;
  int64_t tokens = 0;
  double flops = 0;  // per step
  Stats seconds;
  std::string note;
};
struct PairedRatio {
  std::string config;
  Stats ratio;  // RSA step ÷ softmax step, per round
};
std::vector<TrainResult> benchTrain(const Options& o, double peak_flops,
                                    std::vector<PairedRatio>* ratios);

// 2b. The large softmax step against its parts, each timed alone.
struct Breakdown {
  std::string part;
  double flops = 0;  // per step
  Stats seconds;
};
std::vector<Breakdown> benchBreakdown(const Options& o, double peak);

// 3. RSA ÷ softmax (printed from `ratios`) and the REMs alone.
struct RemResult {
  std::string config;
  int64_t T, R, layers;
  Stats seconds;        // one build + backward
  double softmax_step;  // median softmax step of this run (0 if not measured)
};
std::vector<RemResult> benchRems(const Options& o, const std::vector<TrainResult>& train,
                                 const std::vector<PairedRatio>& ratios);

// 4. One attention layer's forward time against T.
struct ScalingResult {
  std::string kind;  // attentionKindName of the layer's kind, as the JSON report keeps it
  std::vector<int64_t> T;
  std::vector<Stats> seconds;
  double slope = 0, slope_upper = 0;  // all T; T ≥ 512
};
std::vector<ScalingResult> benchAttention(const Options& o);

// 5. Generation per token near position kGenerationT.
constexpr int64_t kGenerationT = 2048;
struct GenerationResult {
  std::string method;
  Stats seconds;  // per token near position T
};
// Method names (JSON "method" and the targets).
extern const char* const kLinearStep;
extern const char* const kSoftmaxKvStep;
extern const char* const kSoftmaxRecompute;
std::vector<GenerationResult> benchGeneration(const Options& o);

// Levers: each as A/B within this run, interleaved round by round.
struct LeverResult {
  std::string lever, variant;
  Stats seconds;
};
std::vector<LeverResult> benchLevers(const Options& o);
// The causal linear-attention core's forms (--sections linear-levers; part of "levers").
std::vector<LeverResult> benchLinearLevers(const Options& o);
// The recurrent training step, torch::nn vs fused (--sections recurrent-levers; part of "levers").
std::vector<LeverResult> benchRecurrentLevers(const Options& o);
// StarSaber's training step, materialised G vs the blocked kernel (--sections starsaber-levers;
// part of "levers").
std::vector<LeverResult> benchStarSaberLevers(const Options& o);
// The OpenBLAS build and kernel levers, each side in child processes (--sections blas-child).
std::vector<LeverResult> benchBlasLevers(const Options& o);
// The child: times the large softmax step and prints "blas-child <blas>, kernels <k>|<seconds>".
void blasChild();

// 7. `rsalab-cli sweep` with defaults.
struct SweepTiming {
  bool ran = false;
  int exit_code = 0;
  double seconds = 0;
  std::string command;
};
SweepTiming benchSweep(const Options& o);

}  // namespace rsalab::bench
