// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli: RSA Lab without a window.
//   models | tasks | demo | train | sweep | sweep-cell | sweep-merge | sweep-status | report |
//   first-minute | tune | eval | inspect | export | paper-table   (--help on each)
// Every run flag can also come from --config FILE.json; flags given on the command line win.
// This file builds the CLI11 tree from the commands (app/cli/cli_command.h: one file each) and runs
// the one given.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <vector>

#include "app/cli/cli_command.h"
#include "engine/runtime.h"

using namespace rsalab;

int main(int argc, char** argv) {
  const auto& runtime = initRuntime();
  CLI::App app{
      "RSA Lab command line: train and compare RNNs, Transformers, RSA, linear attention "
      "and StarSaber"};
  app.set_version_flag("--version", [&runtime] {
    return std::string("rsalab-cli ") + RSALAB_VERSION + "\n" + runtime.summary();
  });
  app.require_subcommand(1);
  const std::vector<CliCommand> commands = {
      addModelsCommand(app),         addTasksCommand(app),       addDemoCommand(app),
      addTrainCommand(app),          addSweepCommand(app),       addSweepCellCommand(app),
      addSweepMergeCommand(app),     addSweepStatusCommand(app), addReportCommand(app),
      addFirstMinuteCliCommand(app), addEvalCommand(app),        addInspectCommand(app),
      addExportCommand(app),         addPresetDocsCommand(app),  addPaperTableCommand(app),
      addSelftestCommand(app),       addTuneCommand(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    std::cerr << runtime.summary() << "\n";
    for (const auto& command : commands)
      if (*command.app) return command.run();
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (std::bad_alloc): use a smaller model, batch, length or N\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
