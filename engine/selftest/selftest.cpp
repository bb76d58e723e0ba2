// SPDX-License-Identifier: GPL-3.0-or-later
// The self-test's runner: the table of checks in run order, each run on the resolved device and
// timed, and the one-line report per check.
#include "engine/selftest/selftest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "engine/core/registry/model_registry.h"
#include "engine/device.h"
#include "engine/selftest/selftest_checks.h"

namespace rsalab {

namespace selftest {

void MaxError::add(const torch::Tensor& actual, const torch::Tensor& expected,
                   const std::string& what) {
  double e = INFINITY;
  if (actual.sizes() == expected.sizes()) {
    auto a = actual.detach().to(torch::kCPU, torch::kFloat64);
    auto b = expected.detach().to(torch::kCPU, torch::kFloat64);
    e = a.numel() ? (a - b).abs().max().item<double>() : 0.0;
    if (std::isnan(e)) e = INFINITY;
  }
  addValue(e, what + (actual.sizes() == expected.sizes() ? "" : " (shapes differ)"));
}

void MaxError::addValue(double error, const std::string& what) {
  if (std::isnan(error)) error = INFINITY;
  if (error >= error_ || worst_ == "nothing compared") {
    error_ = std::max(error_, error);
    worst_ = what;
  }
}

CheckResult MaxError::result(double tolerance, const std::string& note) const {
  CheckResult r;
  r.error = error_;
  r.tolerance = tolerance;
  r.passed = error_ <= tolerance;
  r.detail = "worst: " + worst_ + (note.empty() ? "" : "; " + note);
  return r;
}

CheckResult failed(const std::string& detail) {
  CheckResult r;
  r.passed = false;
  r.error = INFINITY;
  r.detail = detail;
  return r;
}

CheckResult skipped(const std::string& why) {
  CheckResult r;
  r.skipped = true;
  r.measure = "skipped";
  r.detail = why;
  return r;
}

namespace {

struct RegisteredCheck {
  SelfCheckInfo info;
  ModelCheckFn run;
};

std::vector<RegisteredCheck>& registeredChecks() {
  static std::vector<RegisteredCheck> checks;  // filled by static initialisers
  return checks;
}

}  // namespace

// The groups a model's own checks may join (registerModelCheck), each run after the table's
// checks of that group.
constexpr const char* kRegisteredGroups[] = {"forms",        "causality", "kv-cache",
                                             "linear-forms", "gradients", "overfit"};

bool registerModelCheck(const char* group, const char* model, const char* name, ModelCheckFn run) {
  const bool known = std::any_of(std::begin(kRegisteredGroups), std::end(kRegisteredGroups),
                                 [&](const char* g) { return std::strcmp(group, g) == 0; });
  if (!known)
    throw std::logic_error(std::string("self-test check ") + name + ": no registered group " +
                           group);
  for (const auto& check : registeredChecks())
    if (check.info.name == name)
      throw std::logic_error(std::string("self-test check ") + name + " registered twice");
  registeredChecks().push_back({{group, model, name}, run});
  return true;
}

void addRegisteredChecks(std::vector<SelfCheck>& checks, const std::string& group) {
  const auto& cards = modelRegistry();
  auto rank = [&](const SelfCheckInfo& info) {
    const auto at = std::find_if(cards.begin(), cards.end(),
                                 [&](const ModelCard& card) { return info.model == card.name; });
    if (at == cards.end())
      throw std::logic_error("self-test check " + info.name + ": no card " + info.model);
    return std::make_pair(at - cards.begin(), info.name);
  };
  std::vector<RegisteredCheck> rows;
  for (const auto& check : registeredChecks())
    if (check.info.group == group) rows.push_back(check);
  std::sort(rows.begin(), rows.end(), [&](const RegisteredCheck& a, const RegisteredCheck& b) {
    return rank(a.info) < rank(b.info);
  });
  for (const auto& row : rows) checks.push_back({row.info, row.run});
}

ModelOptions smallModelOptions(const std::string& model) {
  ModelOptions o;
  o.model = model;
  o.d_model = 16;
  o.heads = 4;
  o.layers = 2;
  o.causal = true;
  o.rem.dilated_cos = 1;  // all REM kinds, one dilated: 4 REM heads
  o.dilations = {2};
  return o;
}

namespace {

const std::vector<SelfCheck>& table() {
  static const std::vector<SelfCheck> checks = [] {
    std::vector<SelfCheck> all;
    addRemChecks(all);
    addModelChecks(all);
    addRegisteredChecks(all, "forms");
    addRegisteredChecks(all, "causality");
    addRegisteredChecks(all, "kv-cache");
    addPeerChecks(all);
    addRegisteredChecks(all, "linear-forms");
    addGradientChecks(all);
    addRegisteredChecks(all, "gradients");
    addOverfitChecks(all);
    addRegisteredChecks(all, "overfit");
    return all;
  }();
  return checks;
}

}  // namespace

}  // namespace selftest

std::vector<SelfCheckInfo> selfCheckList() {
  std::vector<SelfCheckInfo> out;
  for (const auto& check : selftest::table()) out.push_back(check.info);
  return out;
}

std::vector<SelfCheckOutcome> runSelftest(
    const std::string& device, const std::string& filter,
    const std::function<void(const SelfCheckOutcome&)>& report) {
  const torch::Device resolved = resolveDevice(device);
  // The checks' tensors are small: one intra-op thread runs them faster than two, and a busy
  // machine does not stall it at OpenMP barriers (measured: a check 1 s alone, 35 s at load 7
  // on 2 cores). The kernels' threaded splits have their own tests.
  const int threads = torch::get_num_threads();
  torch::set_num_threads(1);
  std::vector<SelfCheckOutcome> outcomes;
  for (const auto& check : selftest::table()) {
    if (check.info.name.find(filter) == std::string::npos) continue;
    SelfCheckOutcome outcome;
    outcome.check = check.info;
    const auto start = std::chrono::steady_clock::now();
    try {
      torch::manual_seed(0);
      outcome.result = check.run(resolved);
    } catch (const c10::Error& e) {  // LibTorch's message, without its backtrace
      outcome.result = selftest::failed(std::string("threw: ") + e.what_without_backtrace());
    } catch (const std::exception& e) {
      outcome.result = selftest::failed(std::string("threw: ") + e.what());
    }
    outcome.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (report) report(outcome);
    outcomes.push_back(std::move(outcome));
  }
  torch::set_num_threads(threads);
  return outcomes;
}

std::string formatOutcome(const SelfCheckOutcome& outcome, const std::string& device, bool detail) {
  const auto& r = outcome.result;
  char line[512];
  if (r.skipped) {
    std::snprintf(line, sizeof line, "SKIP %-32s (%s, %.2f s)", outcome.check.name.c_str(),
                  device.c_str(), outcome.seconds);
    return std::string(line) + "\n     skipped: " + r.detail;
  }
  std::snprintf(line, sizeof line, "%s %-32s %s %-8.2g %s %-8.2g (%s, %.2f s)",
                r.passed ? "PASS" : "FAIL", outcome.check.name.c_str(), r.measure.c_str(), r.error,
                r.passed ? "≤" : ">", r.tolerance, device.c_str(), outcome.seconds);
  std::string out = line;
  if (!r.passed || detail) out += "\n     " + r.detail;
  return out;
}

}  // namespace rsalab
