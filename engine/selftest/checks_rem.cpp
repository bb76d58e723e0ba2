// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's REM checks: RemBuilder's closed form (engine/models/rem_builder.h) against the
// literal double loops (engine/models/rem_reference.h), every head kind with negative and zero
// λ, dilations, causal and bidirectional, in float64.
#include <cmath>

#include "engine/models/rem_builder.h"
#include "engine/models/rem_reference.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab::selftest {

namespace {

struct RemCase {
  const char* name;
  std::vector<RemHeadSpec> specs;
  std::vector<double> bases;   // λ (regular heads) or γ (cyclical heads)
  std::vector<double> thetas;  // θ of the cyclical heads
  bool causal;
  int64_t T;
};

// A float64 builder on `device` whose heads have exactly the given base and θ.
RemBuilder makeBuilder(const RemCase& c, const torch::Device& device) {
  RemBuilder b(c.specs, RemInit{}, c.causal);
  b->to(device, torch::kFloat64);
  torch::NoGradGuard no_grad;
  int64_t r = 0, k = 0;
  for (size_t h = 0; h < c.specs.size(); ++h) {
    if (c.specs[h].kind == RemKind::Regular) {
      b->eta[r++] = std::atanh(c.bases[h]);
    } else {
      b->nu[k] = std::log(c.bases[h] / (1 - c.bases[h]));
      b->theta_raw[k++] = c.thetas[h];
    }
  }
  return b;
}

CheckResult builderMatchesLoops(const RemCase& c, const torch::Device& device) {
  auto builder = makeBuilder(c, device);
  torch::NoGradGuard no_grad;
  const auto P = builder->build(c.T);  // (R, T, T)
  MaxError err;
  if (P.size(0) != static_cast<int64_t>(c.specs.size())) return failed("wrong number of REMs");
  for (size_t h = 0; h < c.specs.size(); ++h) {
    const auto& s = c.specs[h];
    auto loops = remByLoops(s.kind, c.bases[h], c.thetas[h], s.dilation, c.T, c.causal);
    auto expected = torch::tensor(loops, torch::kFloat64).view({c.T, c.T});
    err.add(P[static_cast<int64_t>(h)], expected,
            "head " + std::to_string(h) + " (" + remKindName(s.kind) + ", d" +
                std::to_string(s.dilation) + ")");
  }
  if (!c.causal) err.add(P, P.transpose(1, 2), "symmetry");
  return err.result(Tolerance{1e-12, 1e-10}.on(device));
}

}  // namespace

void addRemChecks(std::vector<SelfCheck>& checks) {
  const std::vector<RemCase> cases = {
      {"regular",
       {{RemKind::Regular, 1}, {RemKind::Regular, 1}, {RemKind::Regular, 1}},
       {0.8, -0.7, 0.0},
       {0, 0, 0},
       /*causal=*/true,
       17},
      {"cyclical",
       {{RemKind::Cos, 1}, {RemKind::Sin, 1}, {RemKind::Cos, 1}},
       {0.9, 0.85, 0.6},
       {2 * M_PI / 12, M_PI / 3, 2.5},
       /*causal=*/true,
       25},
      {"dilated",
       {{RemKind::Regular, 2}, {RemKind::Cos, 3}, {RemKind::Sin, 4}, {RemKind::Regular, 3}},
       {-0.9, 0.95, 0.7, 0.5},
       {0, 0.4, 1.1, 0},
       /*causal=*/true,
       30},
      {"bidirectional",
       {{RemKind::Regular, 1}, {RemKind::Cos, 2}, {RemKind::Sin, 1}},
       {-0.6, 0.9, 0.8},
       {0, 0.7, 0.3},
       /*causal=*/false,
       19}};
  for (const auto& c : cases) {
    checks.push_back({{"rem", "rsa", std::string("rem/") + c.name},
                      [c](const torch::Device& device) { return builderMatchesLoops(c, device); }});
  }
}

}  // namespace rsalab::selftest
