// SPDX-License-Identifier: GPL-3.0-or-later
// Central differences of a scalar function of several tensors: the independent check of a
// hand-written backward (float64 inputs), for the self-test's gradient checks and the engine tests.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "engine/torch_api.h"

namespace rsalab {

// d f / d inputs[i] for every i, each entry by (f(x + h) − f(x − h)) / 2h.
inline std::vector<torch::Tensor> finiteDifferences(
    const std::function<torch::Tensor(const std::vector<torch::Tensor>&)>& f,
    const std::vector<torch::Tensor>& inputs, double h = 1e-6) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto numeric = torch::zeros_like(inputs[i]);
    auto flat = numeric.view({-1});
    for (int64_t e = 0; e < inputs[i].numel(); ++e) {
      std::vector<torch::Tensor> plus, minus;
      for (const auto& x : inputs) {
        plus.push_back(x.detach().clone());
        minus.push_back(x.detach().clone());
      }
      plus[i].view({-1})[e] += h;
      minus[i].view({-1})[e] -= h;
      flat[e] = (f(plus) - f(minus)).item<double>() / (2 * h);
    }
    grads.push_back(numeric);
  }
  return grads;
}

// d loss / d p for a module's parameter p, by central differences: each entry of p is moved in
// place by ±h (and put back) while `loss` runs the module.
// With `entries` > 0, only that many entries, spread evenly over p (the others stay 0; compare
// them with sampledEntries below).
inline torch::Tensor parameterFiniteDifferences(torch::Tensor& p,
                                                const std::function<torch::Tensor()>& loss,
                                                double h = 1e-6, int64_t entries = 0) {
  torch::NoGradGuard no_grad;
  auto numeric = torch::zeros_like(p);
  auto flat = p.view({-1});
  auto out = numeric.view({-1});
  const int64_t n = p.numel(), count = entries > 0 ? std::min(entries, n) : n;
  for (int64_t e = 0; e < count; ++e) {
    const int64_t i = count == n ? e : e * n / count;
    const double v = flat[i].item<double>();
    flat[i] = v + h;
    const double up = loss().item<double>();
    flat[i] = v - h;
    const double down = loss().item<double>();
    flat[i] = v;
    out[i] = (up - down) / (2 * h);
  }
  return numeric;
}

// The entries parameterFiniteDifferences(…, entries) moved, of a tensor shaped like p: (count).
inline torch::Tensor sampledEntries(const torch::Tensor& t, int64_t entries) {
  const int64_t n = t.numel(), count = entries > 0 ? std::min(entries, n) : n;
  std::vector<int64_t> index(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e)
    index[static_cast<size_t>(e)] = count == n ? e : e * n / count;
  return t.reshape({-1}).index_select(0, torch::tensor(index, torch::kLong).to(t.device()));
}

}  // namespace rsalab
