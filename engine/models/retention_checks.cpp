// SPDX-License-Identifier: GPL-3.0-or-later
// Retention's own self-test checks (engine/selftest/selftest_checks.h registers them), in float64:
//   - linear-forms/retnet: the layer's parallel form against its recurrent form (step after step),
//     fixed and learnable decays, with and without rotation;
//   - gradients/retnet-decay: ν of the learnable decay, through the decay matrix, its normaliser
//     and R̃'s, against central differences, rotation on and off.
#include "engine/models/retention.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

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
      parallelVsRecurrent(layer, randn64({2, 19, 12}, device), err,
                          std::string(learnable ? "learnable" : "fixed") +
                              (rotation ? ", rotation" : ", no rotation"));
    }
  return err.result(kForms.on(device));
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

[[maybe_unused]] const bool kRetentionForms =
    registerModelCheck("linear-forms", "retnet", "linear-forms/retnet", retentionForms);
[[maybe_unused]] const bool kRetentionGradients =
    registerModelCheck("gradients", "retnet", "gradients/retnet-decay", retentionDecayGradients);

}  // namespace

}  // namespace rsalab::selftest
