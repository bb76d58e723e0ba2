// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli sweep-cell (one cell of a planned sweep), sweep-merge (the sweep's files from its
// cells) and sweep-status (what each cell has done).
#include <memory>
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/cli_sweep.h"

namespace rsalab {

CliCommand addSweepCellCommand(CLI::App& app) {
  auto command = std::make_shared<SweepCellCommand>();
  SweepCellCommand& cell_command = *command;
  auto* sweep_cell = app.add_subcommand(
      "sweep-cell", "Run one cell of a planned sweep; writes DIR/cells/I.json (a Slurm task)");
  sweep_cell->add_option("dir", cell_command.dir, "sweep folder (holds plan.json)")->required();
  sweep_cell->add_option("--index", cell_command.index, "cell index")->required();
  sweep_cell->add_option("--threads", cell_command.threads,
                         "intra-op threads (0 = $SLURM_CPUS_PER_TASK, else one per core)");
  sweep_cell->add_flag("--fault-kill-while-writing", cell_command.fault_kill_while_writing)
      ->group("");  // test hook

  return {sweep_cell, [command] { return runSweepCellCommand(*command); }};
}

CliCommand addSweepMergeCommand(CLI::App& app) {
  auto command = std::make_shared<SweepMergeCommand>();
  SweepMergeCommand& merge_command = *command;
  auto* sweep_merge = app.add_subcommand(
      "sweep-merge", "sweep.csv, sweep.json (fits), figures and session from a sweep's cells");
  sweep_merge->add_option("dir", merge_command.dir, "sweep folder")->required();
  sweep_merge->add_option("--session", merge_command.session_dir,
                          "also write a session bundle DIR.rsalab");
  sweep_merge->add_option("--figures", merge_command.figures_dir,
                          "also write sample_efficiency.{png,svg} and loss.{png,svg} here");
  sweep_merge->add_flag("--partial", merge_command.partial,
                        "merge the cells that have a result even if others have none");

  return {sweep_merge, [command] { return runSweepMergeCommand(*command); }};
}

CliCommand addSweepStatusCommand(CLI::App& app) {
  auto status_dir = std::make_shared<std::string>();
  auto* sweep_status = app.add_subcommand(
      "sweep-status", "Done / error / running / pending / failed / missing cells of a sweep");
  sweep_status->add_option("dir", *status_dir, "sweep folder")->required();

  return {sweep_status, [status_dir] { return runSweepStatusCommand(*status_dir); }};
}

}  // namespace rsalab
