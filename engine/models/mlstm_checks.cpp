// SPDX-License-Identifier: GPL-3.0-or-later
// mLSTM's own self-test checks (engine/selftest/selftest_checks.h registers them;
// tests/test_mlstm.cpp runs them too), in float64:
//   - linear-forms/mlstm: the layer's parallel form (forward) against its stabilised recurrence
//     (step after step), gate weights ×1 and ×20 (ĩ, f̃ over tens), and the cell at gate
//     pre-activations of ±30 by random signs, relative to H̃'s size (which follows exp(ĩ));
//   - gradients/mlstm-layer: every parameter (projections, the three gates through log D, its row
//     maximum and the normaliser, the norm) against central differences, ĩ over a few units.
#include <algorithm>

#include "engine/models/mlstm.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

// |a − b| / max|b|: H̃'s size follows exp(ĩ).
void addRelativeToSize(MaxError& err, const torch::Tensor& a, const torch::Tensor& b,
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
    parallelVsRecurrent(layer, randn64({2, 19, 12}, device), err,
                        "layer forward vs step, gates ×" + std::to_string(int(gate_scale)));
  }
  // The cell at gate pre-activations of ±30 by random signs: parallel vs stabilised recurrence.
  torch::NoGradGuard no_grad;
  torch::manual_seed(42);
  const int64_t B = 2, H = 2, T = 17, Dh = 4;
  auto q = randn64({B, H, T, Dh}, device), k = randn64({B, H, T, Dh}, device),
       v = randn64({B, H, T, Dh}, device);
  auto ig = 30.0 * torch::sign(randn64({B, H, T}, device)),
       fg = 30.0 * torch::sign(randn64({B, H, T}, device));
  const auto parallel = mlstmParallel(q, k, v, ig, fg);
  torch::Tensor C, n, m;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < T; ++t)
    steps.push_back(mlstmStep(q.narrow(2, t, 1), k.narrow(2, t, 1), v.narrow(2, t, 1),
                              ig.select(2, t), fg.select(2, t), C, n, m));
  addRelativeToSize(err, torch::cat(steps, 2), parallel, "cell at ±30: recurrent vs parallel");
  return err.result(kForms.on(device));
}

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

[[maybe_unused]] const bool kMlstmForms =
    registerModelCheck("linear-forms", "mlstm", "linear-forms/mlstm", mlstmForms);
[[maybe_unused]] const bool kMlstmGradients =
    registerModelCheck("gradients", "mlstm", "gradients/mlstm-layer", mlstmGradients);

}  // namespace

}  // namespace rsalab::selftest
