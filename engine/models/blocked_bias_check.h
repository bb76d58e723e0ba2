// SPDX-License-Identifier: GPL-3.0-or-later
// ALiBi's and FoX's CPU training path (the blocked kernel: the bias added block by block, FoX's dc
// from dS's column sums) against their inspected path (the (B, H, T, T) weights written out):
// output and every parameter's gradient, float64, T = 37 over several row blocks: a self-test
// check of each (their <model>_checks.cpp). On the CPU whatever the device: the kernel is CPU code
// (elsewhere the models take the written-out path).
#pragma once

#include "engine/models/attention.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

// `attn`: a width-16 attention of the blocked kind, on the CPU, float32 (made float64 here).
inline CheckResult blockedKernelAgreesWithInspection(const std::shared_ptr<SelfAttentionImpl>& attn,
                                                     const std::string& model) {
  MaxError err;
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
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
  for (size_t i = 0; i < kernel.size(); ++i)
    err.add(kernel[i], inspected[i], model + ": " + (i == 0 ? "output" : "d " + names[i - 1]));
  return err.result(1e-9, "on the CPU");
}

}  // namespace rsalab::selftest
