// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli eval (test metrics of a run folder), inspect (REMs, attention and gates of a run
// folder as CSV + JSON) and export (its weights for PyTorch).
#include <memory>
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/cli_commands.h"

namespace rsalab {

CliCommand addEvalCommand(CLI::App& app) {
  auto run_dir = std::make_shared<std::string>();
  auto* eval = app.add_subcommand("eval", "Test metrics of a finished or stopped run");
  eval->add_option("--run", *run_dir, "run folder")->required();
  return {eval, [run_dir] { return runEval(*run_dir); }};
}

CliCommand addInspectCommand(CLI::App& app) {
  struct Flags {
    std::string run_dir, out = "runs/inspect";
    int64_t sample = 0;
  };
  auto flags = std::make_shared<Flags>();
  auto* inspect = app.add_subcommand(
      "inspect", "REMs, (lambda, gamma, theta, gate), attention and gates as CSV + JSON");
  inspect->add_option("--run", flags->run_dir, "run folder")->required();
  inspect->add_option("--sample", flags->sample, "validation sample index")->capture_default_str();
  inspect->add_option("--out", flags->out, "output folder")->capture_default_str();
  return {inspect, [flags] { return runInspect(flags->run_dir, flags->sample, flags->out); }};
}

CliCommand addExportCommand(CLI::App& app) {
  struct Flags {
    std::string run_dir, format = "safetensors", out;
    bool sample = false;
  };
  auto flags = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "export", "The weights of a run for PyTorch (names of bench/peer/models.py's models)");
  cmd->add_option("--run", flags->run_dir, "run folder")->required();
  cmd->add_option("--format", flags->format, "file format: safetensors")
      ->check(CLI::IsMember({"safetensors"}))
      ->capture_default_str();
  cmd->add_option("--out", flags->out, "output file (default: RUN/model.safetensors)");
  cmd->add_flag("--sample", flags->sample,
                "also write OUT.sample.safetensors: 4 inputs and the model's outputs on them "
                "(bench/peer/check_export.py)");
  return {cmd,
          [flags] { return runExport(flags->run_dir, flags->format, flags->out, flags->sample); }};
}

}  // namespace rsalab
