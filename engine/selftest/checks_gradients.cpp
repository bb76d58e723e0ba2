// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's gradient checks: autograd's d loss / d p against central differences in
// float64, loss = Σ y ⊙ w for a fixed random w, for every sequence model of the registry (a few
// entries of each parameter, spread over it). The hand-written pieces' own gradient checks (REM
// scalars, decays, gates, chunked forms, blocked kernels) are in each model's
// engine/models/<model>_checks.cpp. The error is max |analytic − numeric| / max(1, max |numeric|).
#include <cmath>

#include "engine/core/registry/model_registry.h"
#include "engine/models/model_factory.h"
#include "engine/selftest/finite_differences.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

void compareGradients(const NamedTensors& params, const std::function<torch::Tensor()>& loss,
                      MaxError& err, const std::string& where, int64_t entries) {
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

NamedTensors namedParameters(const torch::nn::Module& module) {
  NamedTensors out;
  for (const auto& p : module.named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

namespace {

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

}  // namespace

void addGradientChecks(std::vector<SelfCheck>& checks) {
  for (const auto& row : modelRegistry()) {  // the forecaster family: informer_checks.cpp
    if (row.family == ModelFamily::Seq2Seq || row.has(LongHorizonOnly)) continue;
    const std::string m = row.name;
    checks.push_back({{"gradients", m, "gradients/" + m},
                      [m](const torch::Device& device) { return modelGradients(m, device); }});
  }
}

}  // namespace rsalab::selftest
