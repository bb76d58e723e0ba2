// SPDX-License-Identifier: GPL-3.0-or-later
// The run flags shared by `train` and `sweep` (--model, --task, --steps, …, --config, --preset),
// bound to a RunConfig: a preset's run (or the command's defaults), then --config, then flags.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/verdicts/presets.h"

namespace rsalab {

inline std::string seriesNameList() { return joined(bundledSeriesNames()); }

// The flag of a numeric option-table row bound to a plain variable, for the commands that keep
// their own options (models, demo, paper-table): the row's flag, help and range, so that no flag
// is declared twice with two ranges.
template <typename S, typename T>
CLI::Option* addTableFlag(CLI::App* cmd, const OptionInfo<S>& row, T& target) {
  CLI::Option* opt = cmd->add_option(row.flag, target, row.help);
  if (row.numeric()) opt->check(CLI::Range(row.minimum, row.maximum));
  return opt->capture_default_str();
}

// Run flags bound to a RunConfig; applied after --config so that flags win.
class RunFlags {
 public:
  void add(CLI::App* cmd, bool with_model) {
    cmd->add_option("--config", config_path_, "JSON config (task/model/trainer sections)");
    cmd->add_option("--preset", preset_,
                    "start from a preset's run (then --config, then flags): " + presetNameList());
    // The tables' flags (--task, --csv, --norm, --horizon, --lr, --steps, --d-model, ...): each
    // row's flag and help; validate checks the row's range after --config and the flags.
    // (sweep, the command without --model, has its own --epochs: a budget growing with N; the
    // long-horizon protocol's task.epochs comes from --config there)
    bindRows(cmd, &RunConfig::task, taskOptionTable(), with_model ? "" : "epochs");
    bind(cmd, "--series", &RunConfig::task, &TaskOptions::name,
         "a bundled real series (sets --task): " + seriesNameList());
    auto* length = cmd->add_option("--length", length_,
                                   "sequence length T, or auto (CSV and bundled series: the "
                                   "default, a T that fits the series); under --protocol "
                                   "long-horizon the input length L (auto: 96)");
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
    bindRows(cmd, &RunConfig::trainer, trainerHyperParameters());
    bindRows(cmd, &RunConfig::model, modelOptionTable(), with_model ? "" : "model");
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
    // The long-horizon protocol (etth1 / etth2 by default) starts from its own defaults.
    if (usesLongHorizonProtocol(probe.task)) return overlay(longHorizonDefaults(defaults_in), true);
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
    if (!c.task.csv_path.empty()) c.task.name = csvPathTaskName();
    if (check) validate(c);
    return c;
  }

  // Adds the flag of every row of `rows` that has one (but the row named `skip`), bound to its
  // field of config.*section.
  template <typename Section>
  void bindRows(CLI::App* cmd, Section RunConfig::*section,
                const std::vector<OptionInfo<Section>>& rows, const std::string& skip = "") {
    for (const auto& row : rows) {
      if (!row.flag || row.name == skip) continue;
      std::visit([&](auto field) { bind(cmd, row.flag, section, field, row.help); }, row.member);
    }
  }

  // Adds a flag whose value is copied into (config.*section).*field only when it was given (a
  // boolean field: a flag without a value that sets it; an enum: one of its names).
  template <typename Section, typename T>
  void bind(CLI::App* cmd, const std::string& flag, Section RunConfig::*section, T Section::*field,
            const std::string& help) {
    if constexpr (std::is_enum_v<T>) {
      auto text = std::make_shared<std::string>();
      CLI::Option* opt = cmd->add_option(flag, *text, help);
      appliers_.push_back([opt, text, flag, section, field](RunConfig& c) {
        if (!*opt) return;
        const auto value = parseEnum<T>(*text);
        if (!value) {
          throw std::invalid_argument(flag + " '" + *text + "' is unknown: use " +
                                      enumChoices<T>());
        }
        (c.*section).*field = *value;
      });
    } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
      auto value = std::make_shared<T>();
      CLI::Option* opt = nullptr;
      if constexpr (std::is_same_v<T, bool>)
        opt = cmd->add_flag(flag, *value, help);  // no value: given means true
      else
        opt = cmd->add_option(flag, *value, help);
      appliers_.push_back([opt, value, section, field](RunConfig& c) {
        if (*opt) (c.*section).*field = *value;
      });
    } else {  // lists: JSON only
      throw std::logic_error(flag + ": a list has no flag (use --config)");
    }
  }

  std::string config_path_;
  std::string preset_;
  std::string device_ = "cpu";
  std::string length_;
  bool bidirectional_ = false;
  int64_t train_size_ = 1024;
  std::vector<std::function<void(RunConfig&)>> appliers_;
};

}  // namespace rsalab
