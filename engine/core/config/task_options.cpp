// SPDX-License-Identifier: GPL-3.0-or-later
// TaskOptions' table: one row per field (engine/core/config/option_table.h).
#include "engine/core/config/task_options.h"

#include "engine/core/config/task_limits.h"

namespace rsalab {

const std::vector<OptionInfo<TaskOptions>>& taskOptionTable() {
  using T = TaskOptions;
  constexpr double kMaxLength = static_cast<double>(kMaxTaskLength);
  constexpr double kMaxLanguage = static_cast<double>(kMaxTaskLanguageLength);
  // clang-format off
  static const std::vector<OptionInfo<TaskOptions>> rows = {
      // name, label, unit, minimum, maximum, log scale, hot, member, flag, help
      {"name", "Task", "", 0, 0, false, false, &T::name, "--task",
       "task name (see `rsalab-cli tasks`)"},
      // 0 = auto, real series only (validate); --length takes "auto" (cli_run_flags.h)
      {"length", "Length T", "steps", 0, kMaxLength, false, false, &T::length},
      {"validation_size", "Validation set", "sequences", 1, static_cast<double>(kMaxEvalSize),
       false, false, &T::validation_size},
      {"test_size", "Test set", "sequences", 1, static_cast<double>(kMaxEvalSize), false, false,
       &T::test_size},
      {"ar_poles", "AR(1) poles", "", 0, 0, false, false, &T::ar_poles},
      {"periods", "Season periods", "", 0, 0, false, false, &T::periods},
      {"dampings", "Season dampings", "", 0, 0, false, false, &T::dampings},
      {"noise", "Noise (std)", "", 0, 1000, false, false, &T::noise},
      {"horizon", "Horizon H", "steps", 1, static_cast<double>(kMaxHorizon), false, false,
       &T::horizon, "--horizon", "forecast horizon H (series, CSV)"},
      {"teacher_kinds", "Teacher terms", "", 0, 0, false, false, &T::teacher_kinds},
      {"teacher_bases", "Teacher bases", "", 0, 0, false, false, &T::teacher_bases},
      {"teacher_thetas", "Teacher angles", "", 0, 0, false, false, &T::teacher_thetas},
      {"teacher_process", "Teacher process", "", 0, 0, false, false, &T::teacher_process,
       "--teacher-process", teacherProcessHelp()},
      {"teacher_seed", "Teacher seed", "", 0, 0, false, false, &T::teacher_seed, "--teacher-seed",
       "teacher and mix: the seed of the teacher process's random parameters (nonlinear), apart "
       "from the run's seed; every task: the seed of its Monte-Carlo streams (scale, reach)"},
      {"teacher_alpha", "Power-law exponent α", "", 0.05, 10, false, false, &T::teacher_alpha,
       "--teacher-alpha", "teacher process power: kernel k^(-alpha)"},
      {"teacher_lambda", "Jordan λ", "", -0.999, 0.999, false, false, &T::teacher_lambda,
       "--teacher-lambda", "teacher process jordan: kernel k*lambda^k"},
      {"teacher_hidden", "Teacher RNN state", "", 1, 64, false, false, &T::teacher_hidden,
       "--teacher-hidden", "teacher process nonlinear: tanh RNN state size"},
      {"teacher_gain", "Teacher RNN gain", "", 0, 4, false, false, &T::teacher_gain,
       "--teacher-gain", "teacher process nonlinear: recurrent matrix = gain x a random orthogonal"},
      {"teacher_input_scale", "Teacher RNN input scale", "", 0.001, 100, false, false,
       &T::teacher_input_scale, "--teacher-input-scale",
       "teacher process nonlinear: input weights ~ N(0, scale^2)"},
      {"teacher_decay_min", "Selective decay min", "", 0, 0.999, false, false,
       &T::teacher_decay_min, "--teacher-decay-min",
       "teacher process selective: a_t = min + (max - min)*sigmoid(w*x_t + b)"},
      {"teacher_decay_max", "Selective decay max", "", 0, 0.999, false, false,
       &T::teacher_decay_max, "--teacher-decay-max", "teacher process selective: the decay's top"},
      {"teacher_gate_weight", "Selective gate w", "", -100, 100, false, false,
       &T::teacher_gate_weight, "--teacher-gate-weight", "teacher process selective: w"},
      {"teacher_gate_bias", "Selective gate b", "", -100, 100, false, false, &T::teacher_gate_bias,
       "--teacher-gate-bias", "teacher process selective: b"},
      {"series_d", "Series ARFIMA d", "", -0.499, 0.499, false, false, &T::series_d,
       "--series-d", "seasonal/ar process power: ARFIMA(0, d, 0)"},
      {"series_lambda", "Series Jordan λ", "", -0.999, 0.999, false, false, &T::series_lambda,
       "--series-lambda", "seasonal/ar process jordan: repeated AR root lambda"},
      {"series_phi_high", "SETAR φ (x ≥ 0)", "", -0.999, 0.999, false, false, &T::series_phi_high,
       "--series-phi-high", "seasonal/ar process nonlinear: SETAR coefficient when x_{t-1} >= 0"},
      {"series_phi_low", "SETAR φ (x < 0)", "", -0.999, 0.999, false, false, &T::series_phi_low,
       "--series-phi-low", "seasonal/ar process nonlinear: SETAR coefficient when x_{t-1} < 0"},
      {"series_decay_min", "Series selective decay min", "", 0, 0.999, false, false,
       &T::series_decay_min, "--series-decay-min",
       "seasonal/ar process selective: a_t = min + (max - min)*exp(-e_{t-1}^2/2)"},
      {"series_decay_max", "Series selective decay max", "", 0, 0.999, false, false,
       &T::series_decay_max, "--series-decay-max", "seasonal/ar process selective: the decay's top"},
      {"min_length", "Shortest train string", "", 1, kMaxLanguage - 1, false, false,
       &T::min_length},
      {"max_length", "Longest train string", "", 1, kMaxLanguage - 1, false, false,
       &T::max_length},
      {"test_max_length", "Longest test string", "", 2, kMaxLanguage, false, false,
       &T::test_max_length},
      {"symbols", "Symbols", "", 1, static_cast<double>(kMaxTaskSymbols), false, false,
       &T::symbols},
      {"text_path", "Text file", "", 0, 0, false, false, &T::text_path},
      {"csv_path", "CSV file", "", 0, 0, false, false, &T::csv_path, "--csv",
       "CSV time series file (sets --task " + csvPathTaskName() + ")"},
      {"norm", "Normalisation", "", 0, 0, false, false, &T::norm, "--norm",
       "series normalisation: window (per input window, reversible; the CSV default), global "
       "(train part's mean and std), none, or revin (window plus a learned scale and shift per "
       "column, RevIN; saved with the model)"},
      {"target", "Target columns", "", 0, 0, false, false, &T::target, "--target",
       "CSV: comma-separated columns to forecast (names or 1-based numbers; default all)"},
      {"seasonal_period", "Seasonal period (0 = auto)", "steps", 0, kMaxLength, false, false,
       &T::seasonal_period, "--period",
       "seasonal period of the seasonal naive and the anchors (default: from the time "
       "column's calendar step, else detected from the train part)"},
      {"mix_share", "Recurrent share a", "", 0, 1, false, false, &T::mix_share},
      {"mix_keys", "Lookup keys", "", 2, 256, false, false, &T::mix_keys},
      {"anchors", "Anchors", "", 0, 0, false, false, &T::anchors, "--anchors",
       "real series: the forecasting anchors (ETS, auto ARIMA, Theta) to fit: all (default; on "
       "at most the last 8192 and 48000/period train rows), fast (2000 and 12000/period rows, "
       "seasonal ARIMA orders <= 1) or none"},
      {"protocol", "Protocol", "", 0, 0, false, false, &T::protocol, "--protocol",
       "real series: split (70/15/15%, rolling origin), long-horizon (the ETT papers' 12/4/4 "
       "months, direct windows, epochs budget; --length is then the input length L, auto = 96) "
       "or auto (default: long-horizon on etth1 and etth2, split elsewhere)"},
      {"features", "Features", "", 0, 0, false, false, &T::features, "--features",
       "long-horizon protocol: M (every column in and out, default) or S (OT alone)"},
      {"epochs", "Epochs", "epochs", 1, 10000, false, false, &T::epochs, "--epochs",
       "long-horizon protocol: at most this many passes over the train windows, one validation "
       "evaluation per epoch (--patience counts epochs; --steps still caps)"},
  };
  // clang-format on
  return rows;
}

const OptionInfo<TaskOptions>* findTaskOption(const std::string& name) {
  return findOption(taskOptionTable(), name);
}

}  // namespace rsalab
