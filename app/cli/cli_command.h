// SPDX-License-Identifier: GPL-3.0-or-later
// One rsalab-cli subcommand: the node it adds to the CLI11 tree and what runs it once the command
// line is parsed. cli_main builds the tree from these and runs the one that was given; each
// command's flags and dispatch live in its own file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace rsalab {

struct CliCommand {
  CLI::App* app = nullptr;
  std::function<int()> run;  // the process exit code (app/cli/cli_commands.h)
};

CliCommand addModelsCommand(CLI::App& app);          // app/cli/cmd_models.cpp
CliCommand addTasksCommand(CLI::App& app);           // app/cli/cmd_models.cpp
CliCommand addDemoCommand(CLI::App& app);            // app/cli/cli_demo.cpp
CliCommand addTrainCommand(CLI::App& app);           // app/cli/cmd_train.cpp
CliCommand addSweepCommand(CLI::App& app);           // app/cli/cmd_sweep.cpp
CliCommand addSweepCellCommand(CLI::App& app);       // app/cli/cmd_sweep_cells.cpp
CliCommand addSweepMergeCommand(CLI::App& app);      // app/cli/cmd_sweep_cells.cpp
CliCommand addSweepStatusCommand(CLI::App& app);     // app/cli/cmd_sweep_cells.cpp
CliCommand addReportCommand(CLI::App& app);          // app/cli/cli_report.cpp
CliCommand addPaperTableCommand(CLI::App& app);      // app/cli/cli_paper_table.cpp
CliCommand addFirstMinuteCliCommand(CLI::App& app);  // app/cli/cli_first_minute.cpp
CliCommand addEvalCommand(CLI::App& app);            // app/cli/cmd_inspect.cpp
CliCommand addInspectCommand(CLI::App& app);         // app/cli/cmd_inspect.cpp
CliCommand addExportCommand(CLI::App& app);          // app/cli/cmd_inspect.cpp
CliCommand addPresetDocsCommand(CLI::App& app);      // app/cli/cmd_preset_docs.cpp
CliCommand addSelftestCommand(CLI::App& app);        // app/cli/cmd_selftest.cpp
CliCommand addTuneCommand(CLI::App& app);            // app/cli/cmd_tune.cpp

}  // namespace rsalab
