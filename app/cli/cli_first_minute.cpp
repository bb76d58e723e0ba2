// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_first_minute.h"

#include <iostream>
#include <memory>
#include <stdexcept>

#include "app/cli/cli_command.h"
#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/verdicts/first_minute_table.h"
#include "engine/training/first_minute.h"

namespace rsalab {

namespace {

constexpr size_t kMaxBytes = size_t{16} << 20;

std::string regenerate(const FirstMinuteCommand& c) {
  return "rerun `rsalab-cli first-minute --json " + c.json_path + " --readme " + c.readme_path +
         "` (don't hand-edit)";
}

int check(const FirstMinuteCommand& command) {
  if (command.json_path.empty() || command.readme_path.empty())
    throw std::invalid_argument("first-minute --check needs --json and --readme");
  const FirstMinuteTable stored =
      firstMinuteTableFromJson(readTextFile(command.json_path, kMaxBytes), command.json_path);
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
  cmd->add_flag("--check", command.check,
                "train nothing: fail unless the README's block is the JSON's rendering and the "
                "JSON was measured on today's default launch");
  return cmd;
}

int runFirstMinuteCommand(const FirstMinuteCommand& command) {
  if (command.check) return check(command);
  const int64_t steps = command.steps > 0 ? command.steps : kFirstMinuteSteps;
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
