// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's table (engine/selftest/selftest.h) and what its checks share: a check is a
// function of the device that returns its largest error against its tolerance there. Each
// checks_*.cpp adds its group's rows for every card it applies to; a model's own checks (its forms
// against each other, its hand-written backward) are in its own engine/models/<model>_checks.cpp,
// which registers them (registerModelCheck), so that the self-test names no model.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/config/model_options.h"
#include "engine/models/attention.h"
#include "engine/selftest/selftest.h"
#include "engine/torch_api.h"

namespace rsalab::selftest {

// A tolerance per device kind: CUDA's float64 kernels sum in other orders than the CPU's.
struct Tolerance {
  double cpu;
  double cuda;
  double on(const torch::Device& device) const { return device.is_cuda() ? cuda : cpu; }
};

// Forms of one computation in float64 agree to their summation order.
inline constexpr Tolerance kForms{1e-10, 1e-9};
// Central differences with h = 1e-6 leave ~1e-9 of truncation and rounding, more where a step
// crosses a kink (mLSTM's max(|nᵀq|, 1)); CUDA's rounding may cross it elsewhere.
inline constexpr Tolerance kGradients{1e-6, 1e-5};

using CheckFn = std::function<CheckResult(const torch::Device&)>;

struct SelfCheck {
  SelfCheckInfo info;
  CheckFn run;
};

void addRemChecks(std::vector<SelfCheck>& checks);       // checks_rem.cpp
void addModelChecks(std::vector<SelfCheck>& checks);     // checks_models.cpp
void addPeerChecks(std::vector<SelfCheck>& checks);      // checks_peer.cpp
void addGradientChecks(std::vector<SelfCheck>& checks);  // checks_gradients.cpp
void addOverfitChecks(std::vector<SelfCheck>& checks);   // checks_models.cpp

// Registers a model's own check `name` ("linear-forms/<model>") of `group` (forms, causality,
// kv-cache, linear-forms, gradients or overfit) covering the card `model`, from a static
// initialiser of its engine/models/<model>_checks.cpp (the engine links as a whole archive);
// returns true. Throws std::logic_error for another group or a name registered twice.
using ModelCheckFn = CheckResult (*)(const torch::Device& device);
bool registerModelCheck(const char* group, const char* model, const char* name, ModelCheckFn run);
// The registered checks of `group`, in the registry's order of their models, then by name. Throws
// std::logic_error for a check whose model has no card.
void addRegisteredChecks(std::vector<SelfCheck>& checks, const std::string& group);

// Random float64 (shape) drawn on the CPU (the same numbers on every device), then on `device`.
inline torch::Tensor randn64(torch::IntArrayRef shape, const torch::Device& device) {
  return torch::randn(shape, torch::kFloat64).to(device);
}

// float64 on `device`.
inline torch::TensorOptions f64(const torch::Device& device) {
  return torch::TensorOptions().dtype(torch::kFloat64).device(device);
}

// Collects max |actual − expected| over several comparisons and names the worst one; a shape
// mismatch or a NaN counts as an infinite error.
class MaxError {
 public:
  void add(const torch::Tensor& actual, const torch::Tensor& expected, const std::string& what);
  // |value| ≤ … as its own error term (a scalar measure that is not a difference of tensors).
  void addValue(double error, const std::string& what);
  double error() const { return error_; }
  // The result against `tolerance`: "worst: WHAT" (and every note) as the detail.
  CheckResult result(double tolerance, const std::string& note = "") const;

 private:
  double error_ = 0;
  std::string worst_ = "nothing compared";
};

// A failed check whose measure is not a difference (e.g. "output at t ignores its input").
CheckResult failed(const std::string& detail);
// A check that could not run here (CheckResult::skipped), saying why.
CheckResult skipped(const std::string& why);

// The layer's parallel form (forward) against its recurrent form (step after step), into `err`.
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

// Adam (lr 1e-2) on `loss` (of `net`'s parameters, one batch of random targets) until it is 10×
// below its first value, at most 400 steps: error = best / first loss, at most 0.1 (the overfit
// checks).
CheckResult memorises(torch::nn::Module& net, const std::function<torch::Tensor()>& loss);
// Named parameters, as compareGradients takes them.
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;
NamedTensors namedParameters(const torch::nn::Module& module);
// Each parameter's gradient of loss() by autograd against central differences in float64 (h =
// 1e-6; `entries` of each, spread over it; 0: all), each relative to max(1, max |numeric|), into
// `err` named `where` + "d loss / d NAME"; a parameter without a gradient, or with one that is 0
// everywhere, is an infinite error (checks_gradients.cpp).
void compareGradients(const NamedTensors& params, const std::function<torch::Tensor()>& loss,
                      MaxError& err, const std::string& where, int64_t entries = 0);

// The options of a small model of `model` for the model-wide checks (d_model 16, 4 heads, 2
// layers, every REM kind with one dilated head).
ModelOptions smallModelOptions(const std::string& model);

}  // namespace rsalab::selftest
