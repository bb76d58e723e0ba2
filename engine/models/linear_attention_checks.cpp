// SPDX-License-Identifier: GPL-3.0-or-later
// Linear attention's own self-test checks (engine/selftest/selftest_checks.h registers them), in
// float64:
//   - linear-forms/linear: the parallel (masked T × T), cumulative, chunked and recurrent forms
//     against each other, with key padding and chunks that do and do not divide T, and the layer's
//     running-sum, chunked and parallel paths;
//   - linear-forms/linear-gradients: the chunked form's d/d(q, k, v) against the parallel form's;
//   - gradients/linear-chunked: the chunked form's d/d(q, k, v) against central differences.
#include <limits>

#include "engine/models/linear_attention.h"
#include "engine/selftest/finite_differences.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

// Key padding (2, T): sequence 0 unpadded; sequence 1 with its last quarter and, for T > 2, its
// middle key padded.
torch::Tensor paddingFor(int64_t T, const torch::Device& device) {
  auto pad = torch::zeros({2, T}, torch::kBool);
  for (int64_t t = 0; t < T; ++t) pad[1][t] = t >= T - T / 4 || (T > 2 && t == T / 2);
  return pad.to(device);
}

// The recurrent form step after step over q, k, v (B, H, T, Dh): (B, H, T, Dv).
torch::Tensor linearRecurrent(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v) {
  torch::Tensor S, z;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < q.size(2); ++t)
    steps.push_back(
        linearAttentionStep(q.narrow(2, t, 1), k.narrow(2, t, 1), v.narrow(2, t, 1), S, z));
  return torch::cat(steps, 2);
}

// Parallel == cumulative == chunked == recurrent, over chunk lengths that divide T, do not, of 1,
// of T and beyond, with and without padding (a padded key is −inf in the recurrence: φ = 0).
CheckResult linearAttentionForms(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  MaxError err;
  torch::manual_seed(1);
  auto q = randn64({2, 3, 20, 4}, device), k = randn64({2, 3, 20, 4}, device),
       v = randn64({2, 3, 20, 4}, device);
  const auto parallel = linearAttentionParallel(q, k, v, /*causal=*/true);
  err.add(linearAttentionCumulative(q, k, v), parallel, "cumulative vs parallel");
  err.add(linearRecurrent(q, k, v), parallel, "recurrent vs parallel");
  const std::vector<std::pair<int64_t, int64_t>> grid = {{20, 4},  {20, 6}, {20, 1}, {20, 20},
                                                         {20, 64}, {7, 3},  {1, 4}};
  for (bool padded : {false, true})
    for (auto [T, chunk] : grid) {
      torch::manual_seed(4);
      auto qc = randn64({2, 3, T, 4}, device), kc = randn64({2, 3, T, 4}, device),
           vc = randn64({2, 3, T, 5}, device);
      auto pad = padded ? paddingFor(T, device) : torch::Tensor();
      const std::string where =
          "T" + std::to_string(T) + " C" + std::to_string(chunk) + (padded ? " padded" : "");
      auto chunked = linearAttentionChunked(qc, kc, vc, chunk, pad);
      err.add(chunked, linearAttentionParallel(qc, kc, vc, /*causal=*/true, pad),
              "chunked vs parallel, " + where);
      err.add(chunked, linearAttentionCumulative(qc, kc, vc, pad),
              "chunked vs cumulative, " + where);
      auto k_rec = pad.defined() ? kc.masked_fill(pad.unsqueeze(1).unsqueeze(-1),
                                                  -std::numeric_limits<double>::infinity())
                                 : kc;
      err.add(chunked, linearRecurrent(qc, k_rec, vc), "chunked vs recurrent, " + where);
    }
  // The layer: its running-sum path (the fused kernel on the CPU, chunked elsewhere), the chunked
  // path and the masked parallel path, with padding.
  auto x = randn64({2, 19, 16}, device);
  auto pad = paddingFor(19, device);
  torch::Tensor y[3];
  for (int path = 0; path < 3; ++path) {
    torch::manual_seed(8);
    auto attn = std::make_shared<LinearAttentionImpl>(16, 4, /*causal=*/true, path > 0);
    attn->setFusedKernel(path == 1);
    attn->to(device, torch::kFloat64);
    y[path] = attn->forward(x, pad);
  }
  err.add(y[1], y[0], "layer: running-sum path vs parallel path");
  err.add(y[2], y[0], "layer: chunked path vs parallel path");
  return err.result(kForms.on(device));
}

// d(chunked)/d(q, k, v) == d(parallel)/d(q, k, v) for a random linear functional of the output.
CheckResult linearAttentionGradientForms(const torch::Device& device) {
  MaxError err;
  for (auto [T, chunk, padded] : std::vector<std::tuple<int64_t, int64_t, bool>>{
           {24, 8, false}, {23, 8, false}, {23, 5, true}, {23, 1, true}, {23, 32, true}}) {
    torch::manual_seed(5);
    auto pad = padded ? paddingFor(T, device) : torch::Tensor();
    auto w = randn64({2, 3, T, 4}, device);
    std::vector<torch::Tensor> grads[2];
    for (int form = 0; form < 2; ++form) {
      torch::manual_seed(6);
      auto q = randn64({2, 3, T, 4}, device).requires_grad_();
      auto k = randn64({2, 3, T, 4}, device).requires_grad_();
      auto v = randn64({2, 3, T, 4}, device).requires_grad_();
      auto y = form == 0 ? linearAttentionChunked(q, k, v, chunk, pad)
                         : linearAttentionParallel(q, k, v, /*causal=*/true, pad);
      (y * w).sum().backward();
      grads[form] = {q.grad(), k.grad(), v.grad()};
    }
    const std::string where = " T" + std::to_string(T) + " C" + std::to_string(chunk);
    const char* names[] = {"dq", "dk", "dv"};
    for (int i = 0; i < 3; ++i) err.add(grads[0][i], grads[1][i], names[i] + where);
  }
  return err.result(Tolerance{1e-9, 1e-8}.on(device));
}

// d/d(q, k, v) of the chunked form (chunks of 2, one padded key) by central differences.
CheckResult linearChunkedGradients(const torch::Device& device) {
  torch::manual_seed(7);
  std::vector<torch::Tensor> in = {torch::randn({1, 2, 5, 2}, torch::kFloat64).to(device),
                                   torch::randn({1, 2, 5, 2}, torch::kFloat64).to(device),
                                   torch::randn({1, 2, 5, 3}, torch::kFloat64).to(device)};
  auto pad = torch::tensor({false, false, true, false, false}).view({1, 5}).to(device);
  auto w = torch::randn({1, 2, 5, 3}, torch::kFloat64).to(device);
  auto f = [&](const std::vector<torch::Tensor>& x) {
    return (linearAttentionChunked(x[0], x[1], x[2], /*chunk=*/2, pad) * w).sum();
  };
  for (auto& x : in) x.requires_grad_();
  f(in).backward();
  const auto numeric = finiteDifferences(f, in);
  MaxError err;
  const char* names[] = {"dq", "dk", "dv"};
  for (size_t i = 0; i < in.size(); ++i) err.add(in[i].grad(), numeric[i], names[i]);
  return err.result(kGradients.on(device));
}

[[maybe_unused]] const bool kLinearForms =
    registerModelCheck("linear-forms", "linear", "linear-forms/linear", linearAttentionForms);
[[maybe_unused]] const bool kLinearGradientForms = registerModelCheck(
    "linear-forms", "linear", "linear-forms/linear-gradients", linearAttentionGradientForms);
[[maybe_unused]] const bool kLinearChunkedGradients =
    registerModelCheck("gradients", "linear", "gradients/linear-chunked", linearChunkedGradients);

}  // namespace

}  // namespace rsalab::selftest
