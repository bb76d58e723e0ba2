// SPDX-License-Identifier: GPL-3.0-or-later
// GLA's own self-test checks (engine/selftest/selftest_checks.h registers them), in float64:
//   - linear-forms/gla: the layer's forward against its steps, its implicit matrix W·V against the
//     chunkwise form at several block lengths, α at its initialisation, near 0 and near 1;
//   - gradients/gla-layer: every parameter through the chunked form against central differences.
#include <cmath>

#include "engine/models/gla.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

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
    auto x = randn64({2, 35, 12}, device);
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

[[maybe_unused]] const bool kGlaForms =
    registerModelCheck("linear-forms", "gla", "linear-forms/gla", glaForms);
[[maybe_unused]] const bool kGlaGradients =
    registerModelCheck("gradients", "gla", "gradients/gla-layer", glaGradients);

}  // namespace

}  // namespace rsalab::selftest
