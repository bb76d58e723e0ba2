// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_first_minute.h"

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include "app/cli/cli_command.h"
#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/text.h"
#include "engine/core/verdicts/first_minute_table.h"
#include "engine/core/verdicts/tuned_first_minute.h"
#include "engine/training/first_minute.h"

namespace rsalab {

namespace {

constexpr size_t kMaxBytes = size_t{16} << 20;

std::string regenerate(const FirstMinuteCommand& c) {
  return "rerun `rsalab-cli first-minute --json " + c.json_path + " --readme " + c.readme_path +
         "` (don't hand-edit)";
}

// The shared default's first minute (resources/first_minute.json), measured on today's launch.
FirstMinuteTable launchDefaults() {
  FirstMinuteTable defaults;
  if (!readLaunchFirstMinuteTable(&defaults))
    throw std::invalid_argument(std::string("resources/") + kFirstMinuteResource +
                                " is missing or was measured on another default launch: run "
                                "`rsalab-cli first-minute --json … --readme README.md` first");
  return defaults;
}

int checkTuned(const FirstMinuteCommand& command, const std::string& text) {
  const TunedFirstMinute stored = tunedFirstMinuteFromJson(text, command.json_path);
  for (const auto& m : stored.tuned) requireTunedOnLaunch(m, command.json_path);
  if (!firstMinuteTableMatchesLaunch(stored.runs)) {
    std::cerr << "error: " << command.json_path
              << " was measured on another default launch (its config or models changed): "
                 "tune and measure it again\n";
    return 1;
  }
  const std::string markdown = readTextFile(command.readme_path, kMaxBytes);
  if (tunedFirstMinuteBlockIn(markdown, command.readme_path) !=
      tunedFirstMinuteBlock(stored, launchDefaults())) {
    std::cerr << "error: " << command.readme_path << "'s tuned-first-minute block is not what "
              << command.json_path << " (and resources/" << kFirstMinuteResource
              << ") render to: rerun `rsalab-cli first-minute --tuned …` (don't hand-edit)\n";
    return 1;
  }
  std::cout << "first-minute --tuned: " << command.readme_path << " and " << command.json_path
            << " agree (" << stored.tuned.size() << " tuned models)\n";
  return 0;
}

int check(const FirstMinuteCommand& command) {
  if (command.json_path.empty() || command.readme_path.empty())
    throw std::invalid_argument("first-minute --check needs --json and --readme");
  const std::string text = readTextFile(command.json_path, kMaxBytes);
  if (isTunedFirstMinuteJson(text)) return checkTuned(command, text);
  const FirstMinuteTable stored = firstMinuteTableFromJson(text, command.json_path);
  if (!firstMinuteTableMatchesLaunch(stored)) {
    std::cerr << "error: " << command.json_path
              << " was measured on another default launch (its config or models changed): "
              << regenerate(command) << "\n";
    return 1;
  }
  const std::string readme = readTextFile(command.readme_path, kMaxBytes);
  if (firstMinuteBlockIn(readme, command.readme_path) != firstMinuteBlock(stored)) {
    std::cerr << "error: " << command.readme_path << "'s first-minute block is not what "
              << command.json_path << " renders to: " << regenerate(command) << "\n";
    return 1;
  }
  std::cout << "first-minute: " << command.readme_path << " and " << command.json_path << " agree ("
            << stored.runs.size() << " runs at step " << stored.steps << ")\n";
  return 0;
}

// The launch's models of the tuned files at their tuned configurations, over the seeds: the tuned
// first minute, written as its JSON and docs block.
int runTuned(const FirstMinuteCommand& command, int64_t steps) {
  TunedFirstMinute t;
  const FirstMinuteTable defaults = launchDefaults();
  std::map<std::string, RunConfig> configs;
  for (const auto& model : defaultModelNames()) {
    for (const auto& path : command.tuned) {
      TunedModel m = tunedModelFromJson(readTextFile(path, kMaxBytes), path);
      if (m.model != model) continue;
      requireTunedOnLaunch(m, path);
      configs[model] = tunedLaunchConfig(m);
      t.tuning_seconds += m.seconds;
      t.tuned.push_back(std::move(m));
    }
  }
  if (t.tuned.size() != command.tuned.size())
    throw std::invalid_argument("--tuned: give one file per model of the default launch (" +
                                joined(defaultModelNames()) + ")");
  if (defaults.steps != steps || defaults.seeds != command.seeds)
    throw std::invalid_argument(
        "--tuned runs beside resources/first_minute.json: use its --seeds " +
        std::to_string(defaults.seeds) + " --steps " + std::to_string(defaults.steps));
  t.runs = firstMinuteTableForLaunch(command.seeds, steps);
  t.runs.models.clear();
  for (const auto& m : t.tuned) t.runs.models.push_back(m.model);
  std::cerr << "first-minute: " << t.tuned.size() << " tuned models x " << command.seeds
            << " seeds, " << steps << " steps each\n";
  const auto start = std::chrono::steady_clock::now();
  t.runs.runs = runFirstMinute(defaultLaunchConfig(), t.runs.models, command.seeds, steps,
                               command.parallel, configs);
  t.comparison_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string block = tunedFirstMinuteBlock(t, defaults);
  std::cout << block;
  if (!command.json_path.empty()) {
    writeFileAtomically(command.json_path, tunedFirstMinuteJson(t));
    std::cout << "wrote " << command.json_path << "\n";
  }
  if (!command.readme_path.empty()) {
    const std::string markdown = readTextFile(command.readme_path, kMaxBytes);
    writeFileAtomically(command.readme_path,
                        replaceTunedFirstMinuteBlock(markdown, block, command.readme_path));
    std::cout << "wrote " << command.readme_path << "\n";
  }
  return 0;
}

}  // namespace

CLI::App* addFirstMinuteCommand(CLI::App& app, FirstMinuteCommand& command) {
  auto* cmd = app.add_subcommand(
      "first-minute",
      "The window's default launch headless over seeds: each model's validation loss at the step "
      "the window reaches in 60 s (the README's first-minute table)");
  cmd->add_option("--seeds", command.seeds, "seeds (0 … n − 1)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--steps", command.steps,
                  "steps per run (default " + std::to_string(kFirstMinuteSteps) +
                      ": what the window reaches in 60 s on 2 cores)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--parallel", command.parallel, "concurrent runs (0 = one per core)");
  cmd->add_option("--json", command.json_path, "write the measurement here (--check: read it)");
  cmd->add_option("--readme", command.readme_path,
                  "rewrite the README's first-minute block (--check: compare it)");
  cmd->add_option("--from-json", command.from_json,
                  "train nothing: render this stored measurement into --readme (when the block's "
                  "writer changed, not the launch)");
  cmd->add_option("--tuned", command.tuned,
                  "the <model>.tuned.json of `rsalab-cli tune --launch` for each default model: "
                  "run them at their tuned configurations beside resources/first_minute.json "
                  "(--json, --readme: the tuned first minute's file and block)");
  cmd->add_flag("--check", command.check,
                "train nothing: fail unless the README's block is the JSON's rendering and the "
                "JSON was measured on today's default launch");
  return cmd;
}

int runFirstMinuteCommand(const FirstMinuteCommand& command) {
  if (command.check) return check(command);
  const int64_t steps = command.steps > 0 ? command.steps : kFirstMinuteSteps;
  if (!command.tuned.empty()) return runTuned(command, steps);
  FirstMinuteTable table;
  if (!command.from_json.empty()) {
    table = firstMinuteTableFromJson(readTextFile(command.from_json, kMaxBytes), command.from_json);
    if (!firstMinuteTableMatchesLaunch(table))
      throw std::invalid_argument(command.from_json +
                                  " was measured on another default launch: measure it again");
  } else {
    table = firstMinuteTableForLaunch(command.seeds, steps);
    std::cerr << "first-minute: " << table.models.size() << " models x " << table.seeds
              << " seeds of the default launch, " << steps << " steps each\n";
    table.runs =
        runFirstMinute(defaultLaunchConfig(), table.models, table.seeds, steps, command.parallel);
  }
  const std::string block = firstMinuteBlock(table);
  std::cout << block << firstMinuteSummary(table) << "\n";
  if (!command.json_path.empty() && command.from_json.empty()) {
    writeFileAtomically(command.json_path, firstMinuteTableJson(table));
    std::cout << "wrote " << command.json_path << "\n";
  }
  if (!command.readme_path.empty()) {
    const std::string readme = readTextFile(command.readme_path, kMaxBytes);
    writeFileAtomically(command.readme_path,
                        replaceFirstMinuteBlock(readme, block, command.readme_path));
    std::cout << "wrote " << command.readme_path << "\n";
  }
  return 0;
}

CliCommand addFirstMinuteCliCommand(CLI::App& app) {
  auto command = std::make_shared<FirstMinuteCommand>();
  return {addFirstMinuteCommand(app, *command),
          [command] { return runFirstMinuteCommand(*command); }};
}

}  // namespace rsalab
