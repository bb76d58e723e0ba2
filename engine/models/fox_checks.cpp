// SPDX-License-Identifier: GPL-3.0-or-later
// FoX's own self-test checks (engine/selftest/selftest_checks.h registers them), in float64:
//   - gradients/fox-forget-gate: w and b of the forget gates, gates spread over (0, 1), against
//     central differences;
//   - gradients/fox-blocked: its blocked kernel against its inspected path (blocked_bias_check.h).
#include "engine/models/blocked_bias_check.h"
#include "engine/models/fox.h"

namespace rsalab::selftest {

namespace {

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

CheckResult foxBlockedGradients(const torch::Device&) {
  torch::manual_seed(3);
  return blockedKernelAgreesWithInspection(std::make_shared<ForgettingAttentionImpl>(16, 4), "fox");
}

[[maybe_unused]] const bool kFoxGate =
    registerModelCheck("gradients", "fox", "gradients/fox-forget-gate", foxGateGradients);
[[maybe_unused]] const bool kFoxBlocked =
    registerModelCheck("gradients", "fox", "gradients/fox-blocked", foxBlockedGradients);

}  // namespace

}  // namespace rsalab::selftest
