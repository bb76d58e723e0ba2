// SPDX-License-Identifier: GPL-3.0-or-later
// Shared helpers for the engine tests: the test main() and checkClose.
#pragma once

#include <QCoreApplication>
#include <QtTest>
#include <cstdio>
#include <string>

#include "engine/runtime.h"
#include "engine/selftest/selftest.h"
#include "engine/torch_api.h"
#include "support/test_registry.h"

namespace rsalab::test {

// True when |a − b| ≤ tol everywhere; otherwise prints the first differing values and the max
// difference (so a failure says where and by how much).
inline bool checkClose(const torch::Tensor& actual, const torch::Tensor& expected, double tol,
                       const std::string& what) {
  if (actual.sizes() != expected.sizes()) {
    std::fprintf(stderr, "%s: shapes differ\n", what.c_str());
    return false;
  }
  auto a = actual.detach().to(torch::kCPU, torch::kFloat64).flatten();
  auto e = expected.detach().to(torch::kCPU, torch::kFloat64).flatten();
  auto diff = (a - e).abs();
  const double max_diff = diff.numel() ? diff.max().item<double>() : 0.0;
  if (max_diff <= tol && !std::isnan(max_diff)) return true;
  std::fprintf(stderr, "%s: max |diff| = %.3g > %.3g\n", what.c_str(), max_diff, tol);
  auto bad = (diff > tol).logical_or(diff.isnan()).nonzero().flatten();
  for (int64_t n = 0; n < std::min<int64_t>(5, bad.numel()); ++n) {
    const auto i = bad[n].item<int64_t>();
    std::fprintf(stderr, "  [%lld] actual %.9g expected %.9g\n", static_cast<long long>(i),
                 a[i].item<double>(), e[i].item<double>());
  }
  return false;
}

// Runs on the CPU the self-test's checks of `group` ("linear-forms", "gradients") that cover
// `model`: those its own file registers (engine/models/<model>_checks.cpp: its forms against each
// other, its gradients) and the group's row for every card; prints each and returns how many ran,
// with the lines of those that failed in `failures`.
inline int runModelChecks(const std::string& model, const std::string& group,
                          std::string& failures) {
  int ran = 0;
  for (const auto& check : selfCheckList()) {
    if (check.model != model || check.group != group) continue;
    for (const auto& outcome : runSelftest("cpu", check.name)) {
      if (outcome.check.name != check.name) continue;  // the filter is a substring
      ++ran;
      const std::string line = formatOutcome(outcome, "cpu", /*detail=*/true);
      std::printf("%s\n", line.c_str());
      if (!outcome.result.passed) failures += line + "\n";
    }
  }
  return ran;
}

}  // namespace rsalab::test

// The file's test class: registered in the engine runner (support/test_registry.h), or its own
// main when built alone.
#ifdef RSALAB_TEST_RUNNER
#define RSALAB_TEST_MAIN(TestClass) RSALAB_REGISTER_TEST(TestClass, unused)
#else
#define RSALAB_TEST_MAIN(TestClass)         \
  int main(int argc, char** argv) {         \
    rsalab::initRuntime();                  \
    QCoreApplication app(argc, argv);       \
    TestClass test;                         \
    return QTest::qExec(&test, argc, argv); \
  }
#endif
