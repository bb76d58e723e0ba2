// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli tune: each model's search space (the option tables' search ranges) searched by
// synchronous successive halving with the same trials and step budget for every model, chosen on
// validation only (engine/training/tune_run.h); one <model>.tuned.json per model for
// `train --tuned` and `first-minute --tuned`.
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "app/cli/cli_command.h"
#include "app/cli/cli_run_flags.h"
#include "engine/core/config/search_space.h"
#include "engine/training/tune_run.h"

namespace rsalab {

namespace {

struct TuneFlags {
  RunFlags flags;
  std::vector<std::string> models;
  int64_t trials = 27, budget = 0, workers = 1;
  double cap_factor = 4;
  bool launch = false;
  std::string out = "tune";
};

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

void printTuned(const TunedModel& t) {
  const TunedTrial& c = t.chosenTrial();
  std::cout << t.model << ": trial " << c.index << " of " << t.trials << ", validation "
            << sci(c.losses.empty() ? NAN : c.losses.back()) << " (shared default "
            << sci(t.default_validation) << ") at " << t.budget << " steps; " << c.parameters
            << " parameters (default " << t.default_parameters << ", cap " << t.parameter_cap
            << " = " << t.cap_factor << " x default), " << sci(c.flops_per_step)
            << " FLOPs/step (default " << sci(t.default_flops_per_step) << "), tuning "
            << sci(t.total_flops) << " FLOPs\n  ";
  for (const auto& [k, v] : c.knobs) std::cout << k << " = " << sci(v) << "  ";
  std::cout << "\n";
}

}  // namespace

CliCommand addTuneCommand(CLI::App& app) {
  auto t = std::make_shared<TuneFlags>();
  auto* cmd = app.add_subcommand(
      "tune",
      "Tune each model on one task: random configurations from its search space, synchronous "
      "successive halving (eta 3), the same trials and step budget per model, chosen on "
      "validation only (the test split is never read). Writes OUT/<model>.tuned.json");
  t->flags.add(cmd, /*with_model=*/false);
  cmd->add_flag("--launch", t->launch,
                "start from the window's default launch (what `first-minute` measures) instead "
                "of the CLI's defaults");
  cmd->add_option("--models", t->models, "models to tune (default: the default launch's)")
      ->delimiter(',');
  cmd->add_option("--trials", t->trials, "configurations drawn per model")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--budget", t->budget,
                  "steps of the last rung, the budget of the one configuration that reaches it "
                  "(default: --steps)")
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--cap-factor", t->cap_factor,
                  "parameter cap = this x the shared default's parameter count")
      ->check(CLI::Range(0.01, 1000.0))
      ->capture_default_str();
  cmd->add_option("--workers", t->workers, "runs trained at once (one thread each)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--out", t->out,
                  "folder: a subfolder per model and trial; run again with the same settings "
                  "to resume")
      ->capture_default_str();
  cmd->footer(
      "Search spaces (the option tables' search ranges; --config and flags set the "
      "rest):\n" +
      searchSpaceText(modelNames(/*sequence_only=*/false)));
  return {cmd, [t] {
            TuneRequest q;
            q.base = t->flags.resolve(t->launch ? defaultLaunchConfig() : defaultRunConfig());
            q.models = t->models.empty() ? defaultModelNames() : t->models;
            q.trials = t->trials;
            q.budget = t->budget;
            q.cap_factor = t->cap_factor;
            q.workers = t->workers;
            q.out_dir = t->out;
            q.progress = [](const std::string& line) { std::cerr << "tune: " << line << "\n"; };
            for (const auto& tuned : runTune(q)) printTuned(tuned);
            std::cout << "wrote " << t->out << "/<model>.tuned.json\n";
            return 0;
          }};
}

}  // namespace rsalab
