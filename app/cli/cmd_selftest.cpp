// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli selftest: the engine's math checks (engine/selftest/selftest.h) without Qt, on the
// CPU or on CUDA; one line per check with its error and tolerance, a summary, exit code 0 only
// when no check failed (a check that could not run here is skipped, saying why, and counted as
// such).
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "app/cli/cli_command.h"
#include "engine/selftest/selftest.h"

namespace rsalab {

namespace {

struct SelftestFlags {
  std::string device = "cpu";
  std::string filter;
  bool list = false;
  bool details = false;
};

int runSelftestCommand(const SelftestFlags& flags) {
  if (flags.list) {
    for (const auto& check : selfCheckList())
      if (check.name.find(flags.filter) != std::string::npos)
        std::cout << check.name << "  (" << check.group << ", " << check.model << ")\n";
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<SelfCheckOutcome> outcomes;
  try {
    outcomes = runSelftest(flags.device, flags.filter, [&](const SelfCheckOutcome& outcome) {
      std::cout << formatOutcome(outcome, flags.device, flags.details) << std::endl;
    });
  } catch (const std::invalid_argument& e) {
    std::cerr << "selftest: " << e.what() << "\n";
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t failures = 0, skips = 0;
  for (const auto& outcome : outcomes) {
    skips += outcome.result.skipped ? 1 : 0;
    failures += outcome.result.passed || outcome.result.skipped ? 0 : 1;
  }
  if (outcomes.empty()) {
    std::cerr << "selftest: no check matches --filter " << flags.filter << "\n";
    return 1;
  }
  std::cout << "selftest on " << flags.device << ": " << outcomes.size() - failures - skips
            << " of " << outcomes.size() << " checks passed";
  if (failures) std::cout << ", " << failures << " failed";
  if (skips) std::cout << ", " << skips << " skipped (SKIP lines above say why)";
  std::cout << " (" << static_cast<int>(seconds * 10) / 10.0 << " s)\n";
  return failures ? 1 : 0;
}

}  // namespace

CliCommand addSelftestCommand(CLI::App& app) {
  auto flags = std::make_shared<SelftestFlags>();
  auto* cmd = app.add_subcommand(
      "selftest",
      "Check the engine's math without Qt: REM builders, causality, KV cache, linear-attention "
      "forms, float64 gradients, overfit, each card against its model and the peer's classes");
  cmd->add_option("--device", flags->device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--filter", flags->filter, "run only the checks whose name contains this");
  cmd->add_flag("--list", flags->list, "list the checks (group, model) without running them");
  cmd->add_flag("--details", flags->details,
                "print what each check compared (its worst comparison) under its line");
  return {cmd, [flags] { return runSelftestCommand(*flags); }};
}

}  // namespace rsalab
