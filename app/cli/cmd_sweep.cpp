// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli sweep: models x sizes x seeds (x a task axis), planned, run here or on Slurm, merged
// (app/cli/cli_sweep.h); with --preset, the preset runs through the PresetRunner
// (engine/core/verdicts/preset_runner.h): a sweep preset sets the sweep's axes unless flags give
// them, any other preset is refused.
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/cli_run_flags.h"
#include "app/cli/cli_sweep.h"
#include "engine/core/config/model_variant.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/verdicts/preset_runner.h"
#include "engine/core/verdicts/presets.h"

namespace rsalab {

namespace {

struct SweepFlags {
  SweepCommand command;
  RunFlags flags;
  std::string axis_text;
  std::string models_text;  // --models, split by splitModelList (a variant's commas kept)
  std::vector<CLI::Option*> slurm_flags;
  CLI::Option* dry_run = nullptr;
  CLI::App* app = nullptr;
};

class SweepPresetRunner : public PresetRunner {
 public:
  explicit SweepPresetRunner(SweepFlags& s) : s_(s) {}

 protected:
  int sweep(const Preset& p) override {
    // A sweep preset also sets the sweep's axes, unless flags give them.
    SweepCommand& c = s_.command;
    if (!s_.app->count("--models")) c.models = p.models;
    if (!s_.app->count("--sizes")) c.sizes = p.sweep_sizes;
    if (!s_.app->count("--seeds")) c.seeds = p.sweep_seeds;
    if (!s_.app->count("--axis")) c.axis = p.axis;
    if (!s_.app->count("--epochs")) c.budget_epochs = p.sweep_epochs;
    c.rule = p.rule;
    return runSweepCommand(c);
  }
  int train(const Preset& p) override { return refuse(p); }
  int probe(const Preset& p) override { return refuse(p); }
  int computed(const Preset& p, const std::vector<ClaimVerdict>&) override { return refuse(p); }
  int paperTable(const Preset& p) override {
    throw std::invalid_argument("preset '" + p.name +
                                "' is the RSA paper's table: use `rsalab-cli paper-table`");
  }

 private:
  static int refuse(const Preset& p) {
    throw std::invalid_argument(
        "preset '" + p.name + "' is a single run: use `rsalab-cli train --preset " + p.name + "`");
  }
  SweepFlags& s_;
};

}  // namespace

CliCommand addSweepCommand(CLI::App& app) {
  auto s = std::make_shared<SweepFlags>();
  SweepCommand& sweep_command = s->command;
  auto* sweep = app.add_subcommand("sweep", "Sample-efficiency sweep: models x sizes x seeds");
  s->flags.add(sweep, /*with_model=*/false);
  sweep->add_option("--models", s->models_text,
                    "comma-separated models: " + modelNameList() +
                        "; a named variant as name[key=value,flag], e.g. 'rsa[rem_heads=regular]'");
  sweep->add_option("--sizes", sweep_command.sizes, "comma-separated training-set sizes")
      ->delimiter(',');
  sweep->add_option("--axis", s->axis_text,
                    "a task parameter as a second axis, NAME=V1,V2,… (e.g. "
                    "mix.share=0,0.25,0.5,0.75,1: the regime map)");
  sweep->add_option("--seeds", sweep_command.seeds, "seeds per (model, size)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sweep->add_option("--parallel", sweep_command.parallel, "concurrent runs (0 = one per core)")
      ->capture_default_str();
  sweep
      ->add_option("--epochs", sweep_command.budget_epochs,
                   "a budget that grows with N: each run trains max(--steps, ceil(E * N / "
                   "batch)) steps (0 = --steps for every N)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  sweep
      ->add_option("--tuned", sweep_command.tuned,
                   "<model>.tuned.json files of `rsalab-cli tune` (one per model; comma-separated "
                   "or repeated): each model trains at its tuned knobs, the sweep's steps, N and "
                   "seeds kept; every model of the sweep needs one, tuned on its task")
      ->delimiter(',');
  sweep->add_option("--out", sweep_command.out_dir, "output folder")->capture_default_str();
  sweep->add_option("--session", sweep_command.session_dir,
                    "also write a session bundle DIR.rsalab (open it with rsalab --session)");
  sweep->add_option("--figures", sweep_command.figures_dir,
                    "also write sample_efficiency.{png,svg} and loss.{png,svg} to this folder "
                    "(needs a GUI build)");
  sweep->add_option("--threads", sweep_command.threads,
                    "intra-op threads per run (0 = cores / --parallel)");
  sweep->add_option("--plan", sweep_command.plan_dir,
                    "write DIR/plan.json (the cells with stable indices) and run nothing");
  sweep->add_option("--resume", sweep_command.resume_dir,
                    "run the cells of DIR/plan.json that have no result (here, or with --slurm)");
  sweep->add_flag("--slurm", sweep_command.slurm,
                  "submit the cells as a Slurm job array (DIR/sweep.sbatch, sbatch --parsable)");
  SlurmOptions& slurm = sweep_command.slurm_options;
  s->slurm_flags = {
      sweep->add_option("--partition", slurm.partition, "Slurm partition"),
      sweep->add_option("--time", slurm.time, "Slurm time limit per cell, HH:MM:SS"),
      sweep
          ->add_option("--cpus-per-task", slurm.cpus_per_task,
                       "CPUs per cell (its intra-op threads)")
          ->capture_default_str(),
      sweep->add_option("--gpus-per-task", slurm.gpus_per_task,
                        "GPUs per cell (with --device cuda or auto)"),
      sweep->add_option("--max-parallel", slurm.max_parallel,
                        "at most K cells at once (--array=...%K; 0 = no limit)"),
      sweep
          ->add_option("--sbatch-arg", slurm.sbatch_args,
                       "an extra #SBATCH line, e.g. --sbatch-arg=--account=proj (repeatable)")
          ->allow_extra_args(false)};
  s->dry_run = sweep->add_flag("--dry-run", sweep_command.dry_run,
                               "with --slurm: write DIR/sweep.sbatch, do not submit");

  s->app = sweep;
  return {
      sweep, [s] {
        SweepCommand& sweep_command = s->command;
        CLI::App* sweep = s->app;
        if (sweep->count("--models")) sweep_command.models = splitModelList(s->models_text);
        for (auto* flag : s->slurm_flags) sweep_command.slurm_options_given |= flag->count() > 0;
        if ((sweep_command.slurm_options_given || *s->dry_run) && !sweep_command.slurm)
          throw std::invalid_argument(
              "--partition, --time, --cpus-per-task, --gpus-per-task, "
              "--max-parallel, --sbatch-arg and --dry-run need --slurm");
        if (!sweep_command.plan_dir.empty() && sweep->count("--out"))
          throw std::invalid_argument("give the sweep folder once: --plan DIR or --out DIR");
        if (!sweep_command.resume_dir.empty()) {
          // The plan fixes what runs: flags that define a sweep cannot change it.
          const std::set<std::string> allowed = {
              "--resume",        "--slurm",        "--partition",  "--time",    "--cpus-per-task",
              "--gpus-per-task", "--max-parallel", "--sbatch-arg", "--dry-run", "--parallel",
              "--threads",       "--session",      "--figures",    "--help"};
          for (const auto* opt : sweep->get_options()) {
            if (opt->count() > 0 && !allowed.count(opt->get_name())) {
              throw std::invalid_argument("--resume runs the plan in " + sweep_command.resume_dir +
                                          "/plan.json; " + opt->get_name() +
                                          " cannot change it (write a new plan in a new folder)");
            }
          }
        } else {
          sweep_command.config = s->flags.resolve(defaultSweepConfig());
          if (!s->axis_text.empty()) sweep_command.axis = parseSweepAxis(s->axis_text);
          if (!s->flags.preset().empty())
            return SweepPresetRunner(*s).run(presetOrThrow(s->flags.preset()));
        }
        return runSweepCommand(sweep_command);
      }};
}

}  // namespace rsalab
