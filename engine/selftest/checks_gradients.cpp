// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's gradient checks: autograd's d loss / d p against central differences in
// float64, loss = Σ y ⊙ w for a fixed random w. Every sequence model of the registry (a few
// entries of each parameter, spread over it), then every parameter of the hand-written pieces:
// RSA's REM scalars η, ν, θ and gate µ (negative λ, causal and bidirectional), linear attention's
// chunked form with padding, retention's learnable decay, GLA (α at its initialisation and near
// 0), mLSTM's gates, Mamba-2's A_log, dt_bias and D (chunked and T × T) and FoX's forget gate;
// and ALiBi's and FoX's blocked kernel against their inspected path.
// The error is max |analytic − numeric| / max(1, max |numeric|).
#include <cmath>

#include "engine/core/registry/model_registry.h"
#include "engine/models/alibi.h"
#include "engine/models/fox.h"
#include "engine/models/gla.h"
#include "engine/models/linear_attention.h"
#include "engine/models/mamba2.h"
#include "engine/models/mlstm.h"
#include "engine/models/model_factory.h"
#include "engine/models/retention.h"
#include "engine/models/rsa_attention.h"
#include "engine/selftest/finite_differences.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

// Central differences with h = 1e-6 leave ~1e-9 of truncation and rounding, more where a step
// crosses a kink (mLSTM's max(|nᵀq|, 1)); CUDA's rounding may cross it elsewhere.
const Tolerance kGradients{1e-6, 1e-5};

using Named = std::vector<std::pair<std::string, torch::Tensor>>;

// Each parameter's gradient by autograd against central differences (`entries` of each, spread
// over it; 0: all); a parameter without a gradient, or with one that is 0 everywhere, fails.
void compareGradients(const Named& params, const std::function<torch::Tensor()>& loss,
                      MaxError& err, const std::string& where, int64_t entries = 0) {
  for (const auto& item : params) {
    auto p = item.second;
    p.mutable_grad() = torch::Tensor();
  }
  loss().backward();
  for (const auto& [name, param] : params) {
    auto p = param;
    const std::string what = where + "d loss / d " + name;
    if (!p.grad().defined() || !(p.grad().abs().max().item<double>() > 0)) {
      err.addValue(INFINITY, what + " gets no gradient");
      continue;
    }
    auto analytic = p.grad().clone();
    auto numeric = parameterFiniteDifferences(p, loss, 1e-6, entries);
    if (entries > 0) {
      analytic = sampledEntries(analytic, entries);
      numeric = sampledEntries(numeric, entries);
    }
    const double scale = std::max(1.0, numeric.abs().max().item<double>());
    err.add(analytic / scale, numeric / scale, what);
  }
}

Named namedParameters(const torch::nn::Module& module) {
  Named out;
  for (const auto& p : module.named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

// A float64 model of `model` (d_model 8, 4 heads, 1 layer, T = 19: across GLA's blocks of 16),
// 8 entries of each parameter.
CheckResult modelGradients(const std::string& model, const torch::Device& device) {
  torch::manual_seed(23);
  auto o = smallModelOptions(model);
  o.d_model = 8;
  o.layers = 1;
  o.lookback = 5;
  const bool series = modelInfo(model).has(SeriesOnly);
  const int64_t T = 19;
  auto net = makeSequenceModel(o, ModelIO{3, 0, series ? 6 : 2, false});
  net->to(device, torch::kFloat64);
  auto x = torch::randn({2, T, 3}, torch::kFloat64).to(device);
  auto w = torch::randn({2, T, series ? 6 : 2}, torch::kFloat64).to(device);
  MaxError err;
  compareGradients(
      namedParameters(*net), [&] { return (net->forward(x) * w).sum(); }, err, "",
      /*entries=*/8);
  return err.result(kGradients.on(device));
}

CheckResult rsaRemGradients(const torch::Device& device) {
  MaxError err;
  for (bool causal : {true, false}) {
    torch::manual_seed(21);
    RemHeadCounts counts;  // regular, cos, sin, dilated sin, plus one plain head
    counts.dilated_sin = 1;
    RsaAttentionImpl attn(20, 5, causal, counts, {2}, RemInit{});
    attn.to(device, torch::kFloat64);
    {
      torch::NoGradGuard no_grad;
      attn.rems()->eta.fill_(-0.9);  // negative λ
      attn.mu.copy_(torch::tensor({0.3, -0.2, 0.1, 0.5}, torch::kFloat64));
    }
    auto x = torch::randn({2, 13, 20}, torch::kFloat64).to(device);
    auto w = torch::randn({2, 13, 20}, torch::kFloat64).to(device);
    compareGradients(
        {{"eta", attn.rems()->eta},
         {"nu", attn.rems()->nu},
         {"theta", attn.rems()->theta_raw},
         {"mu", attn.mu}},
        [&] { return (attn.forward(x) * w).sum(); }, err, causal ? "causal: " : "bidirectional: ");
  }
  return err.result(kGradients.on(device));
}

// d/d(q, k, v) of the chunked form (chunks of 2, one padded key) by central differences.
CheckResult linearChunkedGradients(const torch::Device& device) {
  torch::manual_seed(7);
  std::vector<torch::Tensor> in = {torch::randn({1, 2, 5, 2}, torch::kFloat64).to(device),
                                   torch::randn({1, 2, 5, 2}, torch::kFloat64).to(device),
                                   torch::randn({1, 2, 5, 3}, torch::kFloat64).to(device)};
  auto pad = torch::tensor({false, false, true, false, false}).view({1, 5}).to(device);
  auto w = torch::randn({1, 2, 5, 3}, torch::kFloat64).to(device);
  auto f = [&](const std::vector<torch::Tensor>& x) {
    return (linearAttentionChunked(x[0], x[1], x[2], /*chunk=*/2, pad) * w).sum();
  };
  for (auto& x : in) x.requires_grad_();
  f(in).backward();
  const auto numeric = finiteDifferences(f, in);
  MaxError err;
  const char* names[] = {"dq", "dk", "dv"};
  for (size_t i = 0; i < in.size(); ++i) err.add(in[i].grad(), numeric[i], names[i]);
  return err.result(kGradients.on(device));
}

// ν of the learnable decay, through the decay matrix, its normaliser and R̃'s; rotation on, off.
CheckResult retentionDecayGradients(const torch::Device& device) {
  MaxError err;
  for (bool rotation : {false, true}) {
    torch::manual_seed(35);
    RetentionImpl layer(/*d_model=*/12, /*heads=*/3, /*learnable_decay=*/true, rotation);
    layer.to(device, torch::kFloat64);
    {
      torch::NoGradGuard no_grad;
      layer.decay_logit.copy_(torch::tensor({0.3, 2.0, 4.5}, torch::kFloat64));
      layer.groupNorm()->weight.normal_(1.0, 0.3);
      layer.groupNorm()->bias.normal_(0.0, 0.3);
    }
    auto x = torch::randn({2, 11, 12}, torch::kFloat64).to(device);
    auto w = torch::randn({2, 11, 12}, torch::kFloat64).to(device);
    compareGradients(
        {{"nu", layer.decay_logit}}, [&] { return (layer.forward(x) * w).sum(); }, err,
        rotation ? "rotation: " : "no rotation: ");
  }
  return err.result(kGradients.on(device));
}

// Every parameter, through the chunked form with T = 19 (not a multiple of 16), α at its
// initialisation and near 0 (decay bias −30).
CheckResult glaGradients(const torch::Device& device) {
  MaxError err;
  for (double bias : {std::nan(""), -30.0}) {
    torch::manual_seed(47);
    GatedLinearAttentionImpl layer(/*d_model=*/8, /*heads=*/2);
    layer.to(device, torch::kFloat64);
    {
      torch::NoGradGuard no_grad;
      layer.groupNorm()->weight.normal_(1.0, 0.3);
      if (!std::isnan(bias)) layer.decayUp()->bias.fill_(bias);
    }
    auto x = torch::randn({2, 19, 8}, torch::kFloat64).to(device);
    auto w = torch::randn({2, 19, 8}, torch::kFloat64).to(device);
    compareGradients(
        namedParameters(layer), [&] { return (layer.forward(x) * w).sum(); }, err,
        std::isnan(bias) ? "init: " : "bias -30: ");
  }
  return err.result(kGradients.on(device));
}

// Every parameter: the projections, the three gates (through log D, its row maximum and the
// normaliser) and the norm; ĩ over a few units.
CheckResult mlstmGradients(const torch::Device& device) {
  torch::manual_seed(46);
  MlstmImpl layer(/*d_model=*/8, /*heads=*/2);
  layer.to(device, torch::kFloat64);
  {
    torch::NoGradGuard no_grad;
    auto p = layer.named_parameters();
    p["norm.weight"].normal_(1.0, 0.3);
    p["norm.bias"].normal_(0.0, 0.3);
    p["input_gate.weight"].mul_(3.0);
  }
  auto x = torch::randn({2, 7, 8}, torch::kFloat64).to(device);
  auto w = torch::randn({2, 7, 8}, torch::kFloat64).to(device);
  MaxError err;
  compareGradients(
      namedParameters(layer), [&] { return (layer.forward(x) * w).sum(); }, err, "");
  return err.result(kGradients.on(device));
}

// A_log, dt_bias and D of both layers through the whole model, chunked (T = 70: two chunks) and
// T × T.
CheckResult mamba2DecayGradients(const torch::Device& device) {
  MaxError err;
  for (bool chunked : {true, false}) {
    torch::manual_seed(6);
    auto net = smallMamba2(device);
    net->setChunked(chunked);
    auto x = torch::randn({2, 70, 3}, torch::kFloat64).to(device);
    auto w = torch::randn({2, 70, 2}, torch::kFloat64).to(device);
    Named decays;
    for (const auto& [name, p] : namedParameters(*net))
      if (name.find("A_log") != std::string::npos || name.find("dt_bias") != std::string::npos ||
          name.find(".D") != std::string::npos)
        decays.emplace_back(name, p);
    if (decays.size() != 6) return failed("expected A_log, dt_bias and D of 2 layers");
    compareGradients(
        decays, [&] { return (net->forward(x) * w).sum(); }, err,
        chunked ? "chunked: " : "T × T: ");
  }
  return err.result(kGradients.on(device));
}

// w and b of FoX's forget gates, gates spread over (0, 1).
CheckResult foxGateGradients(const torch::Device& device) {
  torch::manual_seed(44);
  ForgettingAttentionImpl layer(12, 3);
  {
    torch::NoGradGuard no_grad;
    layer.named_parameters()["forget.bias"].copy_(torch::tensor({3.0, 0.0, -2.0}));
  }
  layer.to(device, torch::kFloat64);
  auto x = torch::randn({2, 9, 12}, torch::kFloat64).to(device);
  auto w = torch::randn({2, 9, 12}, torch::kFloat64).to(device);
  auto p = layer.named_parameters();
  MaxError err;
  compareGradients(
      {{"forget.weight", p["forget.weight"]}, {"forget.bias", p["forget.bias"]}},
      [&] { return (layer.forward(x) * w).sum(); }, err, "");
  return err.result(kGradients.on(device));
}

// ALiBi's and FoX's CPU training path (the blocked kernel: the bias added block by block, FoX's
// dc from dS's column sums) against their inspected path (the (B, H, T, T) weights written out):
// output and every parameter's gradient, float64, T = 37 over several row blocks. On the CPU
// whatever the device: the kernel is CPU code (elsewhere the models take the written-out path).
CheckResult blockedBiasGradients(const torch::Device&) {
  MaxError err;
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  for (bool fox : {false, true}) {
    torch::manual_seed(3);
    std::shared_ptr<SelfAttentionImpl> attn;
    if (fox)
      attn = std::make_shared<ForgettingAttentionImpl>(16, 4);
    else
      attn = std::make_shared<AlibiAttentionImpl>(16, 4, AlibiSlopes::PaperText);
    attn->to(torch::kFloat64);
    auto x = torch::randn({2, 37, 16}, f64), w = torch::randn({2, 37, 16}, f64);
    auto run = [&](LayerInspection* record) {
      attn->zero_grad();
      auto y = attn->forward(x, {}, LayerObserver(record, 0));
      (y * w).sum().backward();
      std::vector<torch::Tensor> out = {y.detach()};
      for (const auto& p : attn->named_parameters()) out.push_back(p.value().grad().clone());
      return out;
    };
    const auto kernel = run(nullptr);
    LayerInspection record;
    const auto inspected = run(&record);
    const auto names = attn->named_parameters().keys();
    const std::string model = fox ? "fox: " : "alibi: ";
    for (size_t i = 0; i < kernel.size(); ++i)
      err.add(kernel[i], inspected[i], model + (i == 0 ? "output" : "d " + names[i - 1]));
  }
  return err.result(1e-9, "on the CPU");
}

}  // namespace

void addGradientChecks(std::vector<SelfCheck>& checks) {
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Seq2Seq) continue;
    const std::string m = row.name;
    checks.push_back({{"gradients", m, "gradients/" + m},
                      [m](const torch::Device& device) { return modelGradients(m, device); }});
  }
  checks.push_back({{"gradients", "rsa", "gradients/rsa-rem-scalars"}, rsaRemGradients});
  checks.push_back({{"gradients", "linear", "gradients/linear-chunked"}, linearChunkedGradients});
  checks.push_back({{"gradients", "retnet", "gradients/retnet-decay"}, retentionDecayGradients});
  checks.push_back({{"gradients", "gla", "gradients/gla-layer"}, glaGradients});
  checks.push_back({{"gradients", "mlstm", "gradients/mlstm-layer"}, mlstmGradients});
  checks.push_back({{"gradients", "mamba2", "gradients/mamba2-decay"}, mamba2DecayGradients});
  checks.push_back({{"gradients", "fox", "gradients/fox-forget-gate"}, foxGateGradients});
  checks.push_back({{"gradients", "alibi", "gradients/blocked-bias"}, blockedBiasGradients});
}

}  // namespace rsalab::selftest
