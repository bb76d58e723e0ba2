// SPDX-License-Identifier: GPL-3.0-or-later
// RSA's own self-test check (engine/selftest/selftest_checks.h registers it): gradients/rsa-rem-
// scalars, the REM scalars η, ν, θ and the gate µ (negative λ, causal and bidirectional) against
// central differences in float64.
#include "engine/models/rsa_attention.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

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

[[maybe_unused]] const bool kRsaRemGradients =
    registerModelCheck("gradients", "rsa", "gradients/rsa-rem-scalars", rsaRemGradients);

}  // namespace

}  // namespace rsalab::selftest
