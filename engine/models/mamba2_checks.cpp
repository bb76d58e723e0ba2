// SPDX-License-Identifier: GPL-3.0-or-later
// Mamba-2's own self-test checks (engine/selftest/selftest_checks.h registers them;
// tests/test_mamba2.cpp runs them too), in float64:
//   - linear-forms/mamba2: the SSD scan's recurrence and its chunked algorithm (chunks that divide
//     T, that do not, of 1 and of more than T) against the full T × T form, the chunked final state
//     against the recurrence's, a recurrence resumed from a state (two halves equal the whole), and
//     the model's two training paths (chunked, T × T);
//   - gradients/mamba2-decay: A_log, dt_bias and D of both layers through the whole model, chunked
//     (T = 70: two chunks of 64) and T × T, against central differences.
#include "engine/models/mamba2.h"
#include "engine/models/model_factory.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

// A two-layer Mamba-2 (width 8, 2 heads, 3 inputs, 2 outputs) in float64 on `device`, initialised
// from the current seed: T = 70 spans two of its chunks of 64.
std::shared_ptr<Mamba2ModelImpl> smallMamba2(const torch::Device& device) {
  ModelOptions o;
  o.model = "mamba2";
  o.d_model = 8;
  o.heads = 2;
  o.layers = 2;
  auto net =
      std::dynamic_pointer_cast<Mamba2ModelImpl>(makeSequenceModel(o, ModelIO{3, 0, 2, false}));
  net->to(device, torch::kFloat64);
  return net;
}

SsdInputs randomSsdInputs(int64_t B, int64_t H, int64_t T, int64_t P, int64_t N,
                          const torch::Device& device) {
  SsdInputs in;  // Δ = softplus(·) > 0, A < 0, so a_t ∈ (0, 1)
  in.x = randn64({B, H, T, P}, device);
  in.dt = torch::softplus(randn64({B, H, T}, device));
  in.A = -torch::exp(randn64({H}, device));
  in.Bm = randn64({B, T, N}, device);
  in.Cm = randn64({B, T, N}, device);
  return in;
}

CheckResult mamba2Forms(const torch::Device& device) {
  torch::NoGradGuard no_grad;
  MaxError err;
  torch::manual_seed(2);
  const auto in = randomSsdInputs(2, 3, 37, 4, 5, device);
  const auto quadratic = ssdQuadratic(in);
  torch::Tensor state;
  err.add(ssdRecurrent(in, state), quadratic, "recurrent vs T × T");
  for (int64_t chunk : {1, 5, 8, 37, 64}) {
    torch::Tensor final_state;
    err.add(ssdChunked(in, chunk, &final_state), quadratic,
            "chunked C" + std::to_string(chunk) + " vs T × T");
    err.add(final_state, state, "final state C" + std::to_string(chunk));
  }
  // The recurrence goes on from a state: two halves equal the whole.
  torch::Tensor resumed;
  auto first = in, second = in;
  first.x = in.x.narrow(2, 0, 20), second.x = in.x.narrow(2, 20, 17);
  first.dt = in.dt.narrow(2, 0, 20), second.dt = in.dt.narrow(2, 20, 17);
  first.Bm = in.Bm.narrow(1, 0, 20), second.Bm = in.Bm.narrow(1, 20, 17);
  first.Cm = in.Cm.narrow(1, 0, 20), second.Cm = in.Cm.narrow(1, 20, 17);
  err.add(torch::cat({ssdRecurrent(first, resumed), ssdRecurrent(second, resumed)}, 2), quadratic,
          "resumed recurrence");
  // The model's chunked training path and its T × T path (T = 70: two chunks of 64).
  torch::manual_seed(4);
  auto net = smallMamba2(device);
  auto x = randn64({2, 70, 3}, device);
  const auto chunked = net->forward(x);
  net->setChunked(false);
  err.add(net->forward(x), chunked, "model: T × T path vs chunked path");
  return err.result(kForms.on(device));
}

CheckResult mamba2DecayGradients(const torch::Device& device) {
  MaxError err;
  for (bool chunked : {true, false}) {
    torch::manual_seed(6);
    auto net = smallMamba2(device);
    net->setChunked(chunked);
    auto x = torch::randn({2, 70, 3}, torch::kFloat64).to(device);
    auto w = torch::randn({2, 70, 2}, torch::kFloat64).to(device);
    NamedTensors decays;
    for (const auto& [name, p] : namedParameters(*net))
      if (name.find("A_log") != std::string::npos || name.find("dt_bias") != std::string::npos ||
          name.find(".D") != std::string::npos)
        decays.emplace_back(name, p);
    if (decays.size() != 6) return failed("expected A_log, dt_bias and D of 2 layers");
    compareGradients(
        decays, [&] { return (net->forward(x) * w).sum(); }, err,
        chunked ? "chunked: " : "T × T: ");
  }
  return err.result(kGradients.on(device));
}

[[maybe_unused]] const bool kMamba2Forms =
    registerModelCheck("linear-forms", "mamba2", "linear-forms/mamba2", mamba2Forms);
[[maybe_unused]] const bool kMamba2Gradients =
    registerModelCheck("gradients", "mamba2", "gradients/mamba2-decay", mamba2DecayGradients);

}  // namespace

}  // namespace rsalab::selftest
