// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's linear-forms checks: each linear token mixer's forms against each other in
// float64: linear attention's parallel (masked T × T), cumulative, chunkwise and recurrent forms
// (with key padding, chunks that do and do not divide T) and the layer's paths; retention's
// parallel and recurrent forms (fixed and learnable decays, with and without rotation); GLA's
// implicit matrix W·V, its chunkwise form at several block lengths and its recurrence (α near 0
// and near 1); Mamba-2's SSD as the full T × T form, the chunked algorithm and the recurrence
// (final state, a recurrence resumed from a state, the model's two training paths); mLSTM's
// parallel form and its stabilised recurrence (gate pre-activations of ±30 included).
#include <cmath>
#include <limits>

#include "engine/models/gla.h"
#include "engine/models/linear_attention.h"
#include "engine/models/mamba2.h"
#include "engine/models/mlstm.h"
#include "engine/models/model_factory.h"
#include "engine/models/retention.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

const Tolerance kForms{1e-10, 1e-9};

// Random float64 (shape) drawn on the CPU (the same numbers on every device), then on `device`.
torch::Tensor randn(torch::IntArrayRef shape, const torch::Device& device) {
  return torch::randn(shape, torch::kFloat64).to(device);
}

// Key padding (2, T): sequence 0 unpadded; sequence 1 with its last quarter and, for T > 2, its
// middle key padded.
torch::Tensor paddingFor(int64_t T, const torch::Device& device) {
  auto pad = torch::zeros({2, T}, torch::kBool);
  for (int64_t t = 0; t < T; ++t) pad[1][t] = t >= T - T / 4 || (T > 2 && t == T / 2);
  return pad.to(device);
}

// The recurrent form step after step over q, k, v (B, H, T, Dh): (B, H, T, Dv).
torch::Tensor linearRecurrent(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v) {
  torch::Tensor S, z;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < q.size(2); ++t)
    steps.push_back(
        linearAttentionStep(q.narrow(2, t, 1), k.narrow(2, t, 1), v.narrow(2, t, 1), S, z));
  return torch::cat(steps, 2);
}

// Parallel == cumulative == chunked == recurrent, over chunk lengths that divide T, do not, of 1,
// of T and beyond, with and without padding (a padded key is −inf in the recurrence: φ = 0).
CheckResult linearAttentionForms(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  MaxError err;
  torch::manual_seed(1);
  auto q = randn({2, 3, 20, 4}, device), k = randn({2, 3, 20, 4}, device),
       v = randn({2, 3, 20, 4}, device);
  const auto parallel = linearAttentionParallel(q, k, v, /*causal=*/true);
  err.add(linearAttentionCumulative(q, k, v), parallel, "cumulative vs parallel");
  err.add(linearRecurrent(q, k, v), parallel, "recurrent vs parallel");
  const std::vector<std::pair<int64_t, int64_t>> grid = {{20, 4},  {20, 6}, {20, 1}, {20, 20},
                                                         {20, 64}, {7, 3},  {1, 4}};
  for (bool padded : {false, true})
    for (auto [T, chunk] : grid) {
      torch::manual_seed(4);
      auto qc = randn({2, 3, T, 4}, device), kc = randn({2, 3, T, 4}, device),
           vc = randn({2, 3, T, 5}, device);
      auto pad = padded ? paddingFor(T, device) : torch::Tensor();
      const std::string where =
          "T" + std::to_string(T) + " C" + std::to_string(chunk) + (padded ? " padded" : "");
      auto chunked = linearAttentionChunked(qc, kc, vc, chunk, pad);
      err.add(chunked, linearAttentionParallel(qc, kc, vc, /*causal=*/true, pad),
              "chunked vs parallel, " + where);
      err.add(chunked, linearAttentionCumulative(qc, kc, vc, pad),
              "chunked vs cumulative, " + where);
      auto k_rec = pad.defined() ? kc.masked_fill(pad.unsqueeze(1).unsqueeze(-1),
                                                  -std::numeric_limits<double>::infinity())
                                 : kc;
      err.add(chunked, linearRecurrent(qc, k_rec, vc), "chunked vs recurrent, " + where);
    }
  // The layer: its running-sum path (the fused kernel on the CPU, chunked elsewhere), the chunked
  // path and the masked parallel path, with padding.
  auto x = randn({2, 19, 16}, device);
  auto pad = paddingFor(19, device);
  torch::Tensor y[3];
  for (int path = 0; path < 3; ++path) {
    torch::manual_seed(8);
    auto attn = std::make_shared<LinearAttentionImpl>(16, 4, /*causal=*/true, path > 0);
    attn->setFusedKernel(path == 1);
    attn->to(device, torch::kFloat64);
    y[path] = attn->forward(x, pad);
  }
  err.add(y[1], y[0], "layer: running-sum path vs parallel path");
  err.add(y[2], y[0], "layer: chunked path vs parallel path");
  return err.result(kForms.on(device));
}

// d(chunked)/d(q, k, v) == d(parallel)/d(q, k, v) for a random linear functional of the output.
CheckResult linearAttentionGradientForms(const torch::Device& device) {
  MaxError err;
  for (auto [T, chunk, padded] : std::vector<std::tuple<int64_t, int64_t, bool>>{
           {24, 8, false}, {23, 8, false}, {23, 5, true}, {23, 1, true}, {23, 32, true}}) {
    torch::manual_seed(5);
    auto pad = padded ? paddingFor(T, device) : torch::Tensor();
    auto w = randn({2, 3, T, 4}, device);
    std::vector<torch::Tensor> grads[2];
    for (int form = 0; form < 2; ++form) {
      torch::manual_seed(6);
      auto q = randn({2, 3, T, 4}, device).requires_grad_();
      auto k = randn({2, 3, T, 4}, device).requires_grad_();
      auto v = randn({2, 3, T, 4}, device).requires_grad_();
      auto y = form == 0 ? linearAttentionChunked(q, k, v, chunk, pad)
                         : linearAttentionParallel(q, k, v, /*causal=*/true, pad);
      (y * w).sum().backward();
      grads[form] = {q.grad(), k.grad(), v.grad()};
    }
    const std::string where = " T" + std::to_string(T) + " C" + std::to_string(chunk);
    const char* names[] = {"dq", "dk", "dv"};
    for (int i = 0; i < 3; ++i) err.add(grads[0][i], grads[1][i], names[i] + where);
  }
  return err.result(Tolerance{1e-9, 1e-8}.on(device));
}

// The layer's parallel form (forward) == its recurrent form (step after step), T = 19.
template <typename Layer>
void parallelVsRecurrent(Layer& layer, const torch::Tensor& x, MaxError& err,
                         const std::string& what) {
  torch::NoGradGuard no_grad;
  const auto parallel = layer.forward(x);
  AttentionState state;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < x.size(1); ++t) steps.push_back(layer.step(x.narrow(1, t, 1), state));
  err.add(torch::cat(steps, 1), parallel, what);
}

CheckResult retentionForms(const torch::Device& device) {
  MaxError err;
  for (bool learnable : {false, true})
    for (bool rotation : {false, true}) {
      torch::manual_seed(31);
      RetentionImpl layer(/*d_model=*/12, /*heads=*/3, learnable, rotation);
      layer.to(device, torch::kFloat64);
      {
        torch::NoGradGuard no_grad;
        if (learnable) layer.decay_logit.copy_(torch::tensor({0.3, 2.0, 4.5}, torch::kFloat64));
        layer.groupNorm()->weight.normal_(1.0, 0.3);
        layer.groupNorm()->bias.normal_(0.0, 0.3);
      }
      parallelVsRecurrent(layer, randn({2, 19, 12}, device), err,
                          std::string(learnable ? "learnable" : "fixed") +
                              (rotation ? ", rotation" : ", no rotation"));
    }
  return err.result(kForms.on(device));
}

// Decay biases: the initialisation (α ≈ 0.96), α near 0 (−30, and −1000: a block's Σ log α
// beyond exp's float64 range) and α near 1 (+30).
CheckResult glaForms(const torch::Device& device) {
  MaxError err;
  for (double bias : {std::nan(""), -30.0, -1000.0, 30.0}) {
    torch::manual_seed(41);
    GatedLinearAttentionImpl layer(/*d_model=*/12, /*heads=*/3);
    layer.to(device, torch::kFloat64);
    torch::NoGradGuard no_grad;
    layer.groupNorm()->weight.normal_(1.0, 0.3);
    layer.groupNorm()->bias.normal_(0.0, 0.3);
    if (!std::isnan(bias)) layer.decayUp()->bias.fill_(bias);
    const std::string where = std::isnan(bias) ? "init" : "bias " + std::to_string(int(bias));
    auto x = randn({2, 35, 12}, device);
    parallelVsRecurrent(layer, x, err, "layer forward vs step, " + where);
    auto [q, k, v, log_alpha] = layer.project(x);
    const auto W = glaAttentionMatrix(q, k, log_alpha);  // (B, H, T, T)
    const auto o = torch::matmul(W, v);
    for (int64_t chunk : {1, 3, 8, 16, 64})
      err.add(glaChunked(q, k, v, log_alpha, chunk), o,
              "chunked C" + std::to_string(chunk) + " vs W V, " + where);
  }
  return err.result(kForms.on(device));
}

SsdInputs randomSsdInputs(int64_t B, int64_t H, int64_t T, int64_t P, int64_t N,
                          const torch::Device& device) {
  SsdInputs in;  // Δ = softplus(·) > 0, A < 0, so a_t ∈ (0, 1)
  in.x = randn({B, H, T, P}, device);
  in.dt = torch::softplus(randn({B, H, T}, device));
  in.A = -torch::exp(randn({H}, device));
  in.Bm = randn({B, T, N}, device);
  in.Cm = randn({B, T, N}, device);
  return in;
}

CheckResult mamba2Forms(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  MaxError err;
  torch::manual_seed(2);
  const auto in = randomSsdInputs(2, 3, 37, 4, 5, device);
  const auto quadratic = ssdQuadratic(in);
  torch::Tensor state;
  err.add(ssdRecurrent(in, state), quadratic, "recurrent vs T × T");
  for (int64_t chunk : {1, 5, 8, 37, 64}) {
    torch::Tensor final_state;
    err.add(ssdChunked(in, chunk, &final_state), quadratic,
            "chunked C" + std::to_string(chunk) + " vs T × T");
    err.add(final_state, state, "final state C" + std::to_string(chunk));
  }
  // The recurrence goes on from a state: two halves equal the whole.
  torch::Tensor resumed;
  auto first = in, second = in;
  first.x = in.x.narrow(2, 0, 20), second.x = in.x.narrow(2, 20, 17);
  first.dt = in.dt.narrow(2, 0, 20), second.dt = in.dt.narrow(2, 20, 17);
  first.Bm = in.Bm.narrow(1, 0, 20), second.Bm = in.Bm.narrow(1, 20, 17);
  first.Cm = in.Cm.narrow(1, 0, 20), second.Cm = in.Cm.narrow(1, 20, 17);
  err.add(torch::cat({ssdRecurrent(first, resumed), ssdRecurrent(second, resumed)}, 2), quadratic,
          "resumed recurrence");
  // The model's chunked training path and its T × T path (T = 70: two chunks of 64).
  torch::manual_seed(4);
  auto net = smallMamba2(device);
  auto x = randn({2, 70, 3}, device);
  const auto chunked = net->forward(x);
  net->setChunked(false);
  err.add(net->forward(x), chunked, "model: T × T path vs chunked path");
  return err.result(kForms.on(device));
}

// |a − b| / max|b|: H̃'s size follows exp(ĩ).
void addRelative(MaxError& err, const torch::Tensor& a, const torch::Tensor& b,
                 const std::string& what) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-300);
  err.add(a / scale, b / scale, what + " (relative)");
}

CheckResult mlstmForms(const torch::Device& device) {
  MaxError err;
  for (double gate_scale : {1.0, 20.0}) {  // ĩ, f̃ over a few units, or over tens
    torch::manual_seed(41);
    MlstmImpl layer(/*d_model=*/12, /*heads=*/3);
    layer.to(device, torch::kFloat64);
    {
      torch::NoGradGuard no_grad;
      auto p = layer.named_parameters();
      p["norm.weight"].normal_(1.0, 0.3);
      p["norm.bias"].normal_(0.0, 0.3);
      p["input_gate.weight"].mul_(gate_scale);
      p["forget_gate.weight"].mul_(gate_scale);
    }
    parallelVsRecurrent(layer, randn({2, 19, 12}, device), err,
                        "layer forward vs step, gates ×" + std::to_string(int(gate_scale)));
  }
  // The cell at gate pre-activations of ±30 by random signs: parallel vs stabilised recurrence.
  torch::NoGradGuard no_grad;
  torch::manual_seed(42);
  const int64_t B = 2, H = 2, T = 17, Dh = 4;
  auto q = randn({B, H, T, Dh}, device), k = randn({B, H, T, Dh}, device),
       v = randn({B, H, T, Dh}, device);
  auto ig = 30.0 * torch::sign(randn({B, H, T}, device)),
       fg = 30.0 * torch::sign(randn({B, H, T}, device));
  const auto parallel = mlstmParallel(q, k, v, ig, fg);
  torch::Tensor C, n, m;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < T; ++t)
    steps.push_back(mlstmStep(q.narrow(2, t, 1), k.narrow(2, t, 1), v.narrow(2, t, 1),
                              ig.select(2, t), fg.select(2, t), C, n, m));
  addRelative(err, torch::cat(steps, 2), parallel, "cell at ±30: recurrent vs parallel");
  return err.result(kForms.on(device));
}

}  // namespace

void addFormChecks(std::vector<SelfCheck>& checks) {
  checks.push_back({{"linear-forms", "linear", "linear-forms/linear"}, linearAttentionForms});
  checks.push_back(
      {{"linear-forms", "linear", "linear-forms/linear-gradients"}, linearAttentionGradientForms});
  checks.push_back({{"linear-forms", "retnet", "linear-forms/retnet"}, retentionForms});
  checks.push_back({{"linear-forms", "gla", "linear-forms/gla"}, glaForms});
  checks.push_back({{"linear-forms", "mamba2", "linear-forms/mamba2"}, mamba2Forms});
  checks.push_back({{"linear-forms", "mlstm", "linear-forms/mlstm"}, mlstmForms});
}

std::shared_ptr<Mamba2ModelImpl> smallMamba2(const torch::Device& device) {
  ModelOptions o;
  o.model = "mamba2";
  o.d_model = 8;
  o.heads = 2;
  o.layers = 2;
  auto net =
      std::dynamic_pointer_cast<Mamba2ModelImpl>(makeSequenceModel(o, ModelIO{3, 0, 2, false}));
  net->to(device, torch::kFloat64);
  return net;
}

}  // namespace rsalab::selftest
