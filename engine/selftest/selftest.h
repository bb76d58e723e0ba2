// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's math checks without Qt (`rsalab-cli selftest`, and tests/test_selftest.cpp on the
// CPU): the REM builders against their double loops, causality, generation steps against the full
// forward, the linear-attention forms against each other, float64 gradients against central
// differences and a short overfit run, for every model the registry lists where a check applies
// to a kind of model. Each check states its tolerance, which on CUDA may be looser than on the CPU
// (float64 kernels there are not bit-identical to the CPU's). Plain C++: no LibTorch, no Qt (the
// checks themselves are in engine/selftest/checks_*.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rsalab {

// rem | card | peer | causality | kv-cache | linear-forms | gradients | overfit
struct SelfCheckInfo {
  std::string group;
  std::string model;  // the registry's model name the check covers
  std::string name;   // "group/what", unique: what --filter and --list see
};

struct CheckResult {
  bool passed = false;
  // Could not run here (the peer's PyTorch twin is absent, …): neither passed nor failed; `detail`
  // says why.
  bool skipped = false;
  std::string measure = "max|Δ|";  // what `error` is
  double error = 0;
  double tolerance = 0;  // on the device the check ran on
  std::string detail;    // what was compared, and what differed when it failed
};

struct SelfCheckOutcome {
  SelfCheckInfo check;
  CheckResult result;
  double seconds = 0;
};

// Every check, in run order.
std::vector<SelfCheckInfo> selfCheckList();
// The checks whose name contains `filter` (all for ""), run on `device` ("cpu", "cuda", "cuda:N";
// resolved by engine/device.h: throws std::invalid_argument when CUDA is missing). `report`, when
// given, gets each outcome as soon as its check is done. A check that throws fails, with the
// exception's message as its detail.
std::vector<SelfCheckOutcome> runSelftest(
    const std::string& device, const std::string& filter = "",
    const std::function<void(const SelfCheckOutcome&)>& report = {});
// "PASS rem/regular  max|Δ| 5.6e-17 ≤ 1e-12  (cpu, 0.00 s)": one line per outcome, then its detail
// on a second line when it failed, was skipped ("SKIP peer/rnn  (cpu, 0.00 s)" and why) or
// `detail` is set.
std::string formatOutcome(const SelfCheckOutcome& outcome, const std::string& device,
                          bool detail = false);

}  // namespace rsalab
