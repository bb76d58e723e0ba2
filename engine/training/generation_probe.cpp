// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/generation_probe.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>

#include "engine/core/registry/model_registry.h"
#include "engine/models/transformer.h"
#include "engine/training/trainer.h"  // globalGeneratorMutex

namespace rsalab {

namespace {

// The registry's attention-family model whose attention is `kind`.
std::string modelWithAttention(AttentionKind kind) {
  if (const ModelCard* row = findAttention(kind)) return row->name;
  throw std::invalid_argument(std::string("no model in the registry has ") +
                              attentionKindName(kind) + " attention");
}

ModelOptions optionsFor(const GenerationProbeOptions& o, AttentionKind kind) {
  ModelOptions m = o.model;
  m.model = modelWithAttention(kind);
  m.causal = true;
  return m;
}

const ModelIO kIo{1, 0, 1, false};  // one real input feature, one output

int64_t stateFloats(const GenerationState& state) {
  int64_t n = 0;
  for (const auto& layer : state.layers) {
    if (layer.S.defined()) n += layer.S.numel() + layer.z.numel();
    // The KV cache's filled rows (capacity grows by doubling; what is kept is `length` rows).
    if (layer.k.defined())
      n += 2 * layer.length * layer.k.size(0) * layer.k.size(1) * layer.k.size(3);
  }
  return n;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// max |forward − steps| of the causal linear-attention Transformer in float64.
void checkParallelEqualsRecurrent(const GenerationProbeOptions& o, LinearAttentionRnnProbe& out) {
  const int64_t T = std::max<int64_t>(2, o.check_length);
  // Seeding and drawing from LibTorch's process-wide generator under the trainers' lock: a run
  // started beside the probe (the GUI's generation tab) must not get another initialisation.
  std::unique_lock<std::mutex> lock(globalGeneratorMutex());
  torch::manual_seed(o.seed);
  TransformerModelImpl net(optionsFor(o, attentionKind("linear")), kIo);
  auto x = torch::randn({4, T, 1}, torch::TensorOptions().dtype(torch::kFloat64));
  lock.unlock();
  net.to(torch::kFloat64);
  net.eval();
  auto parallel = net.forward(x);
  GenerationState state;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < T; ++t) steps.push_back(net.step(x.narrow(1, t, 1), state));
  auto recurrent = torch::cat(steps, 1);
  out.max_error = (parallel - recurrent).abs().max().item<double>();
  out.values = parallel.numel();
}

GenerationPoint pointAt(const std::vector<double>& ms, int64_t position, int64_t window,
                        const GenerationState& state) {
  const int64_t tokens = std::min(window, position / 2);
  std::vector<double> last(ms.begin() + (position - tokens), ms.begin() + position);
  GenerationPoint p;
  p.position = position;
  p.tokens = tokens;
  p.ms_per_token = quantile(last, 0.5);
  p.ms_q1 = quantile(last, 0.25);
  p.ms_q3 = quantile(last, 0.75);
  p.state_floats = stateFloats(state);
  return p;
}

// Both methods step the same input in turn, position by position, so a change in the machine's
// load falls on both curves alike.
void timeCurves(const GenerationProbeOptions& o, const std::vector<int64_t>& positions,
                LinearAttentionRnnProbe& out,
                const std::function<void(const std::string&, const GenerationPoint&)>& progress,
                const std::atomic<bool>* stop) {
  struct Method {
    AttentionKind kind;
    GenerationCurve* curve;
    std::shared_ptr<TransformerModelImpl> net;
    GenerationState state;
    std::vector<double> ms;
  };
  const int64_t T = positions.back();
  std::vector<Method> methods;
  std::unique_lock<std::mutex> lock(globalGeneratorMutex());  // as in checkParallelEqualsRecurrent
  for (auto [kind, curve] : {std::pair{attentionKind("linear"), &out.linear},
                             std::pair{attentionKind("softmax"), &out.softmax}}) {
    torch::manual_seed(o.seed);
    auto net = std::make_shared<TransformerModelImpl>(optionsFor(o, kind), kIo);
    net->eval();
    methods.push_back({kind, curve, net, {}, std::vector<double>(static_cast<size_t>(T))});
  }
  torch::manual_seed(o.seed);
  auto x = torch::randn({1, T, 1});
  lock.unlock();
  size_t next = 0;
  for (int64_t t = 0; t < T; ++t) {
    if (stop && stop->load()) return;
    for (auto& m : methods) {
      const auto start = std::chrono::steady_clock::now();
      m.net->step(x.narrow(1, t, 1), m.state);
      m.ms[static_cast<size_t>(t)] =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    }
    if (t + 1 != positions[next]) continue;
    for (auto& m : methods) {
      m.curve->points.push_back(pointAt(m.ms, t + 1, o.window, m.state));
      if (progress) progress(attentionKindName(m.kind), m.curve->points.back());
    }
    ++next;
  }
}

}  // namespace

std::vector<int64_t> generationPositions(int64_t max_position) {
  if (max_position < 32)
    throw std::invalid_argument("generation probe: the largest T must be at least 32");
  std::vector<int64_t> out;
  for (int64_t t = 32; t <= max_position; t *= 2) out.push_back(t);
  if (out.back() != max_position) out.push_back(max_position);
  return out;
}

LinearAttentionRnnProbe probeLinearAttentionRnn(
    const GenerationProbeOptions& options,
    const std::function<void(const std::string&, const GenerationPoint&)>& progress,
    const std::atomic<bool>* stop) {
  const auto positions = generationPositions(options.max_position);
  torch::NoGradGuard no_grad;
  LinearAttentionRnnProbe out;
  out.model = "d" + std::to_string(options.model.d_model) + " h" +
              std::to_string(options.model.heads) + " L" + std::to_string(options.model.layers) +
              ", B = 1, " + std::to_string(torch::get_num_threads()) + " thread(s)";
  checkParallelEqualsRecurrent(options, out);
  out.linear.method = "linear attention, (S, z) step";
  out.softmax.method = "softmax attention, KV-cache step";
  timeCurves(options, positions, out, progress, stop);
  return out;
}

}  // namespace rsalab
