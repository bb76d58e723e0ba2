// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli train: one model on one task, writing a run folder; with --preset, the preset runs
// through the PresetRunner (engine/core/verdicts/preset_runner.h): a train preset trains and prints
// its claim's verdict, a computed one prints its verdict, the probe measures, a sweep is refused.
#include <iostream>
#include <memory>
#include <stdexcept>

#include "app/cli/cli_command.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_run_flags.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/sweep/tuned_set.h"
#include "engine/core/verdicts/preset_runner.h"
#include "engine/core/verdicts/presets.h"

namespace rsalab {

namespace {

struct TrainFlags {
  TrainCommand command;
  RunFlags flags;
  std::string tuned;  // a <model>.tuned.json of `rsalab-cli tune`
};

// The tuned file's chosen configuration, then --config and flags on top; the model stays the
// tuned one.
RunConfig tunedRun(const TrainFlags& t) {
  if (!t.flags.preset().empty())
    throw std::invalid_argument("--tuned and --preset both set the run: give one");
  const TunedModel tuned = tunedModelFromJson(readTextFile(t.tuned, 1 << 24), t.tuned);
  RunConfig c = t.flags.resolve(tunedConfig(tuned));
  if (c.model.model != tuned.model)
    throw std::invalid_argument(t.tuned + " tunes " + tuned.model + ", not " + c.model.model);
  return c;
}

class TrainPresetRunner : public PresetRunner {
 public:
  explicit TrainPresetRunner(TrainFlags& t) : t_(t) {}

 protected:
  int train(const Preset& p) override {
    t_.command.rule = p.rule;
    t_.command.preset = p.name;
    t_.command.config = t_.flags.resolve(defaultRunConfig());
    return runTrain(t_.command);
  }
  int sweep(const Preset& p) override {
    throw std::invalid_argument("preset '" + p.name +
                                "' is a sweep: use `rsalab-cli sweep --preset " + p.name + "`");
  }
  int probe(const Preset& p) override {  // no training: generation, measured here
    return runGenerationProbe(t_.flags.resolve(defaultRunConfig()), p, t_.command.out_dir);
  }
  int paperTable(const Preset& p) override {
    throw std::invalid_argument("preset '" + p.name +
                                "' is the RSA paper's table: use `rsalab-cli paper-table`");
  }
  int computed(const Preset& p, const std::vector<ClaimVerdict>& verdicts) override {
    std::cout << p.claim << "\n";
    for (const auto& v : verdicts) std::cout << verdictLine(v) << "\n";
    return 0;
  }

 private:
  TrainFlags& t_;
};

}  // namespace

CliCommand addTrainCommand(CLI::App& app) {
  auto t = std::make_shared<TrainFlags>();
  TrainCommand& train_command = t->command;
  auto* train = app.add_subcommand("train", "Train one model on one task; writes a run folder");
  t->flags.add(train, /*with_model=*/true);
  train->add_option("--out", train_command.out_dir, "run folder")->capture_default_str();
  train->add_option(
      "--tuned", t->tuned,
      "start from the configuration `rsalab-cli tune` chose (its <model>.tuned.json); "
      "--config and flags go on top");
  train->add_option("--session", train_command.session_dir,
                    "also write a session bundle DIR.rsalab (open it with rsalab --session)");
  // Test hooks (hidden): make one step diverge or throw, to test the exit codes.
  train->add_option("--fault-nan-at-step", train_command.fault_nan_at_step)->group("");
  train->add_option("--fault-throw-at-step", train_command.fault_throw_at_step)->group("");
  train->add_option("--fault-kind", train_command.fault_kind)->group("");
  return {train, [t] {
            if (!t->flags.preset().empty())
              return TrainPresetRunner(*t).run(presetOrThrow(t->flags.preset()));
            t->command.config =
                t->tuned.empty() ? t->flags.resolve(defaultRunConfig()) : tunedRun(*t);
            if (!t->tuned.empty()) t->command.tuned = tunedSetFromFiles({t->tuned});
            return runTrain(t->command);
          }};
}

}  // namespace rsalab
