// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's table (engine/selftest/selftest.h) and what its checks share: a check is a
// function of the device that returns its largest error against its tolerance there. Each
// checks_*.cpp adds its group's rows.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/config/model_options.h"
#include "engine/selftest/selftest.h"
#include "engine/torch_api.h"

namespace rsalab {
class Mamba2ModelImpl;
}  // namespace rsalab

namespace rsalab::selftest {

// A tolerance per device kind: CUDA's float64 kernels sum in other orders than the CPU's.
struct Tolerance {
  double cpu;
  double cuda;
  double on(const torch::Device& device) const { return device.is_cuda() ? cuda : cpu; }
};

using CheckFn = std::function<CheckResult(const torch::Device&)>;

struct SelfCheck {
  SelfCheckInfo info;
  CheckFn run;
};

void addRemChecks(std::vector<SelfCheck>& checks);       // checks_rem.cpp
void addModelChecks(std::vector<SelfCheck>& checks);     // checks_models.cpp
void addFormChecks(std::vector<SelfCheck>& checks);      // checks_forms.cpp
void addGradientChecks(std::vector<SelfCheck>& checks);  // checks_gradients.cpp
void addOverfitChecks(std::vector<SelfCheck>& checks);   // checks_models.cpp

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

// The options of a small model of `model` for the model-wide checks (d_model 16, 4 heads, 2
// layers, every REM kind with one dilated head).
ModelOptions smallModelOptions(const std::string& model);

// A two-layer Mamba-2 (width 8, 2 heads, 3 inputs, 2 outputs) in float64 on `device`, initialised
// from the current seed: T = 70 spans two of its chunks of 64 (engine/selftest/checks_forms.cpp).
std::shared_ptr<Mamba2ModelImpl> smallMamba2(const torch::Device& device);

}  // namespace rsalab::selftest
