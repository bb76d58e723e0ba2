// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_demo.h"

#include <iomanip>
#include <iostream>
#include <memory>

#include "app/cli/cli_command.h"
#include "app/cli/cli_run_flags.h"
#include "engine/core/registry/model_registry.h"
#include "engine/tasks/task.h"
#include "engine/training/trainer.h"

namespace rsalab {

namespace {

// Heads for width D: 4 where they divide it, else 2, else 1.
int64_t headsFor(int64_t d_model) {
  for (int64_t h : {4, 2}) {
    if (d_model % h == 0) return h;
  }
  return 1;
}

}  // namespace

int runDemo(const DemoOptions& options, std::ostream& out) {
  RunConfig base;
  base.task.name = "seasonal";
  base.task.length = 48;
  base.task.validation_size = 64;  // evaluated every eval_every steps only
  base.task.test_size = 256;
  base.train_size = 512;
  base.model.d_model = options.d_model;
  base.model.heads = headsFor(options.d_model);
  base.model.rem = defaultRemHeads(base.model.heads);
  base.trainer.seed = static_cast<uint64_t>(options.seed);
  base.trainer.max_steps = 100000000;  // the wall-time budget ends each run
  base.trainer.max_seconds = options.seconds_per_model;
  base.trainer.eval_every = 100;
  // One dataset for every model, so their losses compare.
  auto data = std::make_shared<const TaskData>(
      makeTask(base.task, base.train_size, static_cast<uint64_t>(options.seed)));
  out << "demo: " << data->summary << "; " << options.seconds_per_model
      << " s of training per model\n";
  out << std::left << std::setw(13) << "model" << std::right << std::setw(10) << "params"
      << std::setw(8) << "steps" << std::setw(12) << "train loss" << std::setw(12) << "test before"
      << std::setw(12) << "test after"
      << "\n";
  for (const auto& name : modelNames(/*sequence_only=*/true)) {
    RunConfig config = base;
    config.model.model = name;
    Trainer trainer(config, data);
    const double before = trainer.evaluate("test").loss;
    double train_loss = 0;
    trainer.onStep = [&](const StepMetrics& m) { train_loss = m.train_loss; };
    trainer.run();
    const double after = trainer.evaluate("test").loss;
    out << std::left << std::setw(13) << name << std::right << std::setw(10)
        << trainer.parameterCount() << std::setw(8) << trainer.stepsDone() << std::fixed
        << std::setprecision(4) << std::setw(12) << train_loss << std::setw(12) << before
        << std::setw(12) << after << "\n";
    out.unsetf(std::ios::fixed);
  }
  return 0;
}

CliCommand addDemoCommand(CLI::App& app) {
  auto options = std::make_shared<DemoOptions>();
  DemoOptions& demo_options = *options;
  auto* demo = app.add_subcommand("demo", "Train each model briefly on a built-in seasonal series");
  demo->add_option("--seconds", demo_options.seconds_per_model, "training seconds per model")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  addTableFlag(demo, *findModelOption("d_model"), demo_options.d_model);
  demo->add_option("--seed", demo_options.seed, "random seed")->capture_default_str();

  return {demo, [options] { return runDemo(*options, std::cout); }};
}

}  // namespace rsalab
