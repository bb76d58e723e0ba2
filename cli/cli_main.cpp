// rsalab-cli: RSA Lab without a window.
//   models | tasks | demo | train | sweep | sweep-cell | sweep-merge | sweep-status | report |
//   first-minute | eval | inspect   (--help on each)
// Every run flag can also come from --config FILE.json; flags given on the command line win.
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <new>
#include <set>
#include <type_traits>
#include <variant>

#include "cli/cli_commands.h"
#include "cli/cli_demo.h"
#include "cli/cli_first_minute.h"
#include "cli/cli_report.h"
#include "cli/cli_sweep.h"
#include "core/io/atomic_file.h"
#include "core/registry/model_registry.h"
#include "core/registry/presets.h"
#include "core/registry/task_registry.h"
#include "core/sweep/sweep_plan.h"
#include "core/verdicts/claims.h"
#include "engine/models/model_factory.h"
#include "engine/runtime.h"

using namespace rsalab;

namespace {

std::string seriesNameList() {
  std::string all;
  for (const auto& n : bundledSeriesNames()) all += (all.empty() ? "" : ", ") + n;
  return all;
}

// Run flags bound to a RunConfig; applied after --config so that flags win.
class RunFlags {
 public:
  void add(CLI::App* cmd, bool with_model) {
    cmd->add_option("--config", config_path_, "JSON config (task/model/trainer sections)");
    cmd->add_option("--preset", preset_,
                    "start from a preset's run (then --config, then flags): " + presetNameList());
    if (with_model)
      bind(cmd, "--model", &RunConfig::model, &ModelOptions::model, "model: " + modelNameList());
    bind(cmd, "--task", &RunConfig::task, &TaskOptions::name, "task name (see `rsalab-cli tasks`)");
    bind(cmd, "--csv", &RunConfig::task, &TaskOptions::csv_path,
         "CSV time series file (sets --task csv)");
    bind(cmd, "--series", &RunConfig::task, &TaskOptions::name,
         "a bundled real series (sets --task): " + seriesNameList());
    auto* length = cmd->add_option("--length", length_,
                                   "sequence length T, or auto (CSV and bundled series: the "
                                   "default, a T that fits the series)");
    appliers_.push_back([this, length](RunConfig& c) {
      if (!*length) return;
      if (length_ == "auto") {
        c.task.length = 0;
        return;
      }
      try {
        size_t used = 0;
        c.task.length = std::stoll(length_, &used);
        if (used != length_.size()) throw std::invalid_argument(length_);
      } catch (const std::exception&) {
        throw std::invalid_argument("--length " + length_ + " is not a number or auto");
      }
    });
    bind(cmd, "--norm", &RunConfig::task, &TaskOptions::norm,
         "series normalisation: window (per input window, reversible; the CSV default), global "
         "(train part's mean and std) or none");
    bind(cmd, "--target", &RunConfig::task, &TaskOptions::target,
         "CSV: comma-separated columns to forecast (names or 1-based numbers; default all)");
    bind(cmd, "--period", &RunConfig::task, &TaskOptions::seasonal_period,
         "seasonal-naive baseline period (default: detected from the train part)");
    bind(cmd, "--horizon", &RunConfig::task, &TaskOptions::horizon,
         "forecast horizon H (series, CSV)");
    for (const auto& p : trainerHyperParameters()) {  // the trainer's flags: the table's
      if (p.flag)
        std::visit([&](auto field) { bind(cmd, p.flag, &RunConfig::trainer, field, p.help); },
                   p.member);
    }
    bind(cmd, "--d-model", &RunConfig::model, &ModelOptions::d_model, "width D");
    bind(cmd, "--heads", &RunConfig::model, &ModelOptions::heads, "attention heads H");
    bind(cmd, "--layers", &RunConfig::model, &ModelOptions::layers, "layers L");
    bind(cmd, "--skip-lags", &RunConfig::model, &ModelOptions::skip_lags,
         "linear skip path over the last K inputs beside the model (series; 0 = off; real series "
         "default 24)");
    auto* device = cmd->add_option("--device", device_, "cpu, cuda[:N] or auto");
    appliers_.push_back([this, device](RunConfig& c) {
      if (*device) c.device = device_;
    });
    auto* size =
        cmd->add_option("--size", train_size_, "training-set size N (sequences or windows)");
    appliers_.push_back([this, size](RunConfig& c) {
      if (*size) c.train_size = train_size_;
    });
    cmd->add_flag("--bidirectional", bidirectional_, "bidirectional attention and REMs");
  }

  // `defaults` are the command's own (defaultRunConfig or defaultSweepConfig); then --config,
  // then flags. Other heads than the defaults' with the defaults' REM heads: the REM heads follow
  // the heads by defaultRemHeads, as in the GUI.
  const std::string& preset() const { return preset_; }

  RunConfig resolve(const RunConfig& defaults) const {
    // A preset's run, else the command's defaults; a real series (csv or bundled) starts from
    // realSeriesDefaults; flags and --config win.
    const RunConfig& defaults_in = preset_.empty() ? defaults : presetOrThrow(preset_).config;
    const RunConfig probe = overlay(defaults_in, /*check=*/false);
    if (isRealSeriesTask(probe.task.name)) return overlay(realSeriesDefaults(defaults_in), true);
    return overlay(defaults_in, true);
  }

 private:
  RunConfig overlay(const RunConfig& base, bool check) const {
    RunConfig c = base;
    if (!config_path_.empty()) {
      // mergeRunConfigJson validates; a probe must not fail on what the real-series defaults fix
      try {
        c = mergeRunConfigJson(c, readTextFile(config_path_, 1 << 20));
      } catch (const std::invalid_argument&) {
        if (check) throw;
      }
    }
    for (const auto& apply : appliers_) apply(c);
    const RemHeadCounts& d = base.model.rem;
    const RemHeadCounts& r = c.model.rem;
    const bool default_rems = r.regular == d.regular && r.cos == d.cos && r.sin == d.sin &&
                              r.dilated_regular == d.dilated_regular &&
                              r.dilated_cos == d.dilated_cos && r.dilated_sin == d.dilated_sin;
    if (c.model.heads != base.model.heads && default_rems)
      c.model.rem = defaultRemHeads(c.model.heads);
    if (bidirectional_) c.model.causal = false;
    if (!c.task.csv_path.empty()) c.task.name = "csv";
    if (check) validate(c);
    return c;
  }

  // Adds a flag whose value is copied into (config.*section).*field only when it was given (a
  // boolean field: a flag without a value that sets it).
  template <typename Section, typename T>
  void bind(CLI::App* cmd, const std::string& flag, Section RunConfig::*section, T Section::*field,
            const std::string& help) {
    auto value = std::make_shared<T>();
    CLI::Option* opt = nullptr;
    if constexpr (std::is_same_v<T, bool>)
      opt = cmd->add_flag(flag, *value, help);  // no value: given means true
    else
      opt = cmd->add_option(flag, *value, help);
    appliers_.push_back([opt, value, section, field](RunConfig& c) {
      if (*opt) (c.*section).*field = *value;
    });
  }

  std::string config_path_;
  std::string preset_;
  std::string device_ = "cpu";
  std::string length_;
  bool bidirectional_ = false;
  int64_t train_size_ = 1024;
  std::vector<std::function<void(RunConfig&)>> appliers_;
};

}  // namespace

int main(int argc, char** argv) {
  const auto& runtime = initRuntime();
  CLI::App app{
      "RSA Lab command line: train and compare RNNs, Transformers, RSA, linear attention "
      "and StarSaber"};
  app.set_version_flag("--version", [&runtime] {
    return std::string("rsalab-cli ") + RSALAB_VERSION + "\n" + runtime.summary();
  });
  app.require_subcommand(1);

  ModelOptions model_options;
  ModelIO io;
  auto* models = app.add_subcommand("models", "List the models with parameter counts for a config");
  models->add_option("--d-model", model_options.d_model, "width D")->capture_default_str();
  models->add_option("--heads", model_options.heads, "attention heads H")->capture_default_str();
  models->add_option("--layers", model_options.layers, "layers L")->capture_default_str();
  models->add_option("--input-dim", io.input_dim, "input features per position")
      ->capture_default_str();
  models->add_option("--vocab", io.vocab, "token vocabulary (0: real-valued input)")
      ->capture_default_str();

  auto* tasks = app.add_subcommand("tasks", "List the built-in tasks");

  DemoOptions demo_options;
  auto* demo = app.add_subcommand("demo", "Train each model briefly on a built-in seasonal series");
  demo->add_option("--seconds", demo_options.seconds_per_model, "training seconds per model")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  demo->add_option("--d-model", demo_options.d_model, "width D")
      ->check(CLI::Range(4, 1024))
      ->capture_default_str();
  demo->add_option("--seed", demo_options.seed, "random seed")->capture_default_str();

  TrainCommand train_command;
  RunFlags train_flags;
  auto* train = app.add_subcommand("train", "Train one model on one task; writes a run folder");
  train_flags.add(train, /*with_model=*/true);
  train->add_option("--out", train_command.out_dir, "run folder")->capture_default_str();
  train->add_option("--session", train_command.session_dir,
                    "also write a session bundle DIR.rsalab (open it with rsalab --session)");
  // Test hooks (hidden): make one step diverge or throw, to test the exit codes.
  train->add_option("--fault-nan-at-step", train_command.fault_nan_at_step)->group("");
  train->add_option("--fault-throw-at-step", train_command.fault_throw_at_step)->group("");
  train->add_option("--fault-kind", train_command.fault_kind)->group("");

  SweepCommand sweep_command;
  RunFlags sweep_flags;
  auto* sweep = app.add_subcommand("sweep", "Sample-efficiency sweep: models x sizes x seeds");
  sweep_flags.add(sweep, /*with_model=*/false);
  sweep->add_option("--models", sweep_command.models, "comma-separated models: " + modelNameList())
      ->delimiter(',');
  sweep->add_option("--sizes", sweep_command.sizes, "comma-separated training-set sizes")
      ->delimiter(',');
  std::string axis_text;
  sweep->add_option("--axis", axis_text,
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
  const std::vector<CLI::Option*> slurm_flags = {
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
  auto* dry_run = sweep->add_flag("--dry-run", sweep_command.dry_run,
                                  "with --slurm: write DIR/sweep.sbatch, do not submit");

  SweepCellCommand cell_command;
  auto* sweep_cell = app.add_subcommand(
      "sweep-cell", "Run one cell of a planned sweep; writes DIR/cells/I.json (a Slurm task)");
  sweep_cell->add_option("dir", cell_command.dir, "sweep folder (holds plan.json)")->required();
  sweep_cell->add_option("--index", cell_command.index, "cell index")->required();
  sweep_cell->add_option("--threads", cell_command.threads,
                         "intra-op threads (0 = $SLURM_CPUS_PER_TASK, else one per core)");
  sweep_cell->add_flag("--fault-kill-while-writing", cell_command.fault_kill_while_writing)
      ->group("");  // test hook

  SweepMergeCommand merge_command;
  auto* sweep_merge = app.add_subcommand(
      "sweep-merge", "sweep.csv, sweep.json (fits), figures and session from a sweep's cells");
  sweep_merge->add_option("dir", merge_command.dir, "sweep folder")->required();
  sweep_merge->add_option("--session", merge_command.session_dir,
                          "also write a session bundle DIR.rsalab");
  sweep_merge->add_option("--figures", merge_command.figures_dir,
                          "also write sample_efficiency.{png,svg} and loss.{png,svg} here");
  sweep_merge->add_flag("--partial", merge_command.partial,
                        "merge the cells that have a result even if others have none");

  std::string status_dir;
  auto* sweep_status = app.add_subcommand(
      "sweep-status", "Done / error / running / pending / failed / missing cells of a sweep");
  sweep_status->add_option("dir", status_dir, "sweep folder")->required();

  ReportCommand report_command;
  auto* report = app.add_subcommand(
      "report", "Real-series report: the default models on the bundled series, with baselines");
  report->add_option("--series", report_command.series, "bundled series, comma-separated, or all")
      ->delimiter(',')
      ->capture_default_str();
  report
      ->add_option("--models", report_command.models,
                   "comma-separated models (default: the default launch's)")
      ->delimiter(',');
  report->add_option("--seeds", report_command.seeds, "seeds per (series, model)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  report->add_option("--steps", report_command.steps,
                     "step budget per run (default: the real-series defaults')");
  report->add_option("--parallel", report_command.parallel, "concurrent runs (0 = one per core)")
      ->capture_default_str();
  report->add_option("--markdown", report_command.markdown, "also write the table to this file");

  FirstMinuteCommand first_minute_command;
  auto* first_minute = addFirstMinuteCommand(app, first_minute_command);

  std::string run_dir, inspect_out = "runs/inspect";
  int64_t sample = 0;
  auto* eval = app.add_subcommand("eval", "Test metrics of a finished or stopped run");
  eval->add_option("--run", run_dir, "run folder")->required();
  auto* inspect = app.add_subcommand(
      "inspect", "REMs, (lambda, gamma, theta, gate), attention and gates as CSV + JSON");
  inspect->add_option("--run", run_dir, "run folder")->required();
  inspect->add_option("--sample", sample, "validation sample index")->capture_default_str();
  inspect->add_option("--out", inspect_out, "output folder")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    std::cerr << runtime.summary() << "\n";
    if (*models) {
      auto rows = describeModels(model_options, io);
      std::cout << "models for d_model=" << model_options.d_model
                << " heads=" << model_options.heads << " layers=" << model_options.layers
                << " input_dim=" << io.input_dim << "\n";
      for (const auto& row : rows) {
        std::cout << "  " << std::left << std::setw(12) << row.name << std::right << std::setw(10)
                  << row.parameters << "  " << std::left << std::setw(38) << row.title
                  << row.equation << "\n";
      }
      return 0;
    }
    if (*tasks) return listTasks();
    if (*demo) return runDemo(demo_options, std::cout);
    if (*train) {
      if (!train_flags.preset().empty() && presetOrThrow(train_flags.preset()).isSweep()) {
        throw std::invalid_argument("preset '" + train_flags.preset() +
                                    "' is a sweep: use `rsalab-cli sweep --preset " +
                                    train_flags.preset() + "`");
      }
      if (!train_flags.preset().empty()) {
        const Preset& p = presetOrThrow(train_flags.preset());
        if (p.verdict == "linear-rnn") {  // no training: the decomposition, computed here
          std::cout << p.claim << "\n" << verdictLine(linearRnnDemoVerdict()) << "\n";
          return 0;
        }
        if (p.verdict == "linear-attention")  // no training: generation, measured here
          return runGenerationProbe(train_flags.resolve(defaultRunConfig()), p.claim);
        train_command.verdict = p.verdict;
      }
      train_command.config = train_flags.resolve(defaultRunConfig());
      return runTrain(train_command);
    }
    if (*sweep) {
      for (auto* flag : slurm_flags) sweep_command.slurm_options_given |= flag->count() > 0;
      if ((sweep_command.slurm_options_given || *dry_run) && !sweep_command.slurm)
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
        sweep_command.config = sweep_flags.resolve(defaultSweepConfig());
        if (!axis_text.empty()) sweep_command.axis = parseSweepAxis(axis_text);
        if (!sweep_flags.preset().empty()) {
          // A sweep preset also sets the sweep's axes, unless flags give them.
          const Preset& p = presetOrThrow(sweep_flags.preset());
          if (!p.isSweep()) {
            throw std::invalid_argument("preset '" + p.name +
                                        "' is a single run: use `rsalab-cli train --preset " +
                                        p.name + "`");
          }
          if (!sweep->count("--models")) sweep_command.models = p.models;
          if (!sweep->count("--sizes")) sweep_command.sizes = p.sweep_sizes;
          if (!sweep->count("--seeds")) sweep_command.seeds = p.sweep_seeds;
          if (!sweep->count("--axis")) sweep_command.axis = p.axis;
          if (!sweep->count("--epochs")) sweep_command.budget_epochs = p.sweep_epochs;
          sweep_command.verdict = p.verdict;
        }
      }
      return runSweepCommand(sweep_command);
    }
    if (*sweep_cell) return runSweepCellCommand(cell_command);
    if (*sweep_merge) return runSweepMergeCommand(merge_command);
    if (*sweep_status) return runSweepStatusCommand(status_dir);
    if (*report) return runReport(report_command, std::cout);
    if (*first_minute) return runFirstMinuteCommand(first_minute_command);
    if (*eval) return runEval(run_dir);
    if (*inspect) return runInspect(run_dir, sample, inspect_out);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (std::bad_alloc): use a smaller model, batch, length or N\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
