// SPDX-License-Identifier: GPL-3.0-or-later
// Task settings as plain data (no LibTorch), so configs, the CLI and the GUI can use them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/config/option_table.h"
#include "engine/core/forecast/long_horizon.h"  // LongHorizonFeatures
#include "engine/core/io/enums.h"
#include "engine/core/registry/task_registry.h"  // taskNames(), taskDescription()

namespace rsalab {

struct TaskOptions {
  // A name of the task registry (engine/core/registry/task_registry.h).
  std::string name = "seasonal";
  // T (series windows, LM context, seq2seq length). CSV and bundled series: 0 = auto, a T that
  // fits the series (engine/tasks/csv_series.h says how; the task's summary says which).
  int64_t length = 64;
  int64_t validation_size = 256;  // sequences / windows
  int64_t test_size = 512;
  // Synthetic series: Σ AR(1) components (poles λ) + damped stochastic seasons (AR(2) with
  // period P, damping γ), each of unit variance, + noise.
  std::vector<double> ar_poles = {0.8};
  std::vector<double> periods = {12};
  std::vector<double> dampings = {0.97};
  double noise = 0.1;
  int64_t horizon = 1;  // series and CSV: predict the next `horizon` values from every position
  // Linear-recurrence teacher: y_t = Σ_terms Σ_{s<t} base^(t−s)·{1 | cos θ(t−s)} x_s (every
  // term with weight 1).
  std::vector<TeacherKind> teacher_kinds = {TeacherKind::Regular};  // per term: regular | cos
  std::vector<double> teacher_bases = {0.8};                        // λ (regular) or γ (cos)
  std::vector<double> teacher_thetas = {0.0};                       // θ per term (cos terms)
  // The process behind the teacher's (and the mix's recurrent part's) target
  // (engine/tasks/teacher_process.h): rem is the kernel of the terms above; the others ignore
  // them and are scaled to unit variance. Their defaults give each the recover kernel's reach
  // (tests/test_teacher_processes.cpp computes them); nonlinear's also meet a minimum nonlinear
  // share and start-state fade (teacher_process.h). Random parameters (nonlinear) come from
  // teacher_seed, not the run's seed, so every run seed sees the same process.
  TeacherProcess teacher_process = TeacherProcess::Rem;
  uint64_t teacher_seed = 1;
  double teacher_alpha = 1.1;        // power: w_k ∝ k^(−α)
  double teacher_lambda = 0.83;      // jordan: w_k ∝ k·λ^k
  int64_t teacher_hidden = 8;        // nonlinear: tanh RNN state size
  double teacher_gain = 1.64;        // nonlinear: the recurrent matrix is gain × an orthogonal one
  double teacher_input_scale = 3.0;  // nonlinear: input weights ~ N(0, scale²)
  double teacher_decay_min = 0.82;   // selective: a_t = min + (max − min)·σ(w·x_t + b)
  double teacher_decay_max = 0.99;
  double teacher_gate_weight = 2.0;  // selective: w
  double teacher_gate_bias = 0.0;    // selective: b
  // The series tasks' processes (seasonal, ar; engine/tasks/series_process.h): a teacher_process
  // other than rem replaces the AR(1) components (ar_poles); the seasons and the noise stay. The
  // defaults give each the reach of the default pole's AR(1) (tests/test_series_processes.cpp).
  double series_d = -0.435;         // power: ARFIMA(0, d, 0), d ∈ (−0.5, 0.5)
  double series_lambda = 0.715;     // jordan: x_t = 2λ x_{t−1} − λ² x_{t−2} + e_t
  double series_phi_high = 0.885;   // nonlinear (SETAR): x_t = φ x_{t−1} + e_t, φ = high when
  double series_phi_low = 0.2;      //   x_{t−1} ≥ 0, low otherwise
  double series_decay_min = 0.355;  // selective: x_t = a_t x_{t−1} + e_t,
  double series_decay_max = 0.99;   //   a_t = min + (max − min)·exp(−e_{t−1}²/2)
  // Mix (engine/tasks/mix_task.h): the recurrent part is the teacher above, the other part a
  // lookup over mix_keys keys; mix_share a ∈ [0, 1] is the recurrent share of the signal's
  // variance. `noise` is the noise's standard deviation in the signal's units.
  double mix_share = 0.5;
  int64_t mix_keys = 8;
  // Regular languages: train lengths in [min_length, max_length]; validation and test strings
  // are longer, in [max_length + 1, test_max_length] (length generalisation).
  int64_t min_length = 2;
  int64_t max_length = 16;
  int64_t test_max_length = 32;
  // Seq2seq and MLM symbol count (excluding specials).
  int64_t symbols = 10;
  // Character LM: a UTF-8/ASCII text file; empty = the bundled public-domain text.
  std::string text_path;
  // CSV series: a file with one or more numeric columns, optional header and time column.
  std::string csv_path;
  // Series tasks: window | global | none (NormMode in engine/core/io/enums.h). "global" here for
  // the synthetic series; realSeriesDefaults() (engine/core/config/run_config.h) makes it "window"
  // for real ones.
  NormMode norm = NormMode::Global;
  // CSV and bundled series: comma-separated names (or 1-based numbers) of the columns to
  // forecast; empty = every column.
  std::string target;
  // The seasonal-naive baseline's (and the anchors') period P; 0 = the synthetic task's first
  // season, or for real series the time column's calendar step (engine/core/io/calendar.h), else
  // detected from the train part's autocorrelation (engine/core/forecast/baselines.h,
  // choosePeriod).
  int64_t seasonal_period = 0;
  // Real series: which forecasting anchors are fitted (AnchorMode in engine/core/io/enums.h): all |
  // fast | none.
  AnchorMode anchors = AnchorMode::All;
  // Real series: the protocol (SeriesProtocol in engine/core/io/enums.h; auto: long-horizon on
  // etth1 / etth2, the 70/15/15 split elsewhere). Under long-horizon, `length` is the input length
  // L (0 = auto: forecast::kLongHorizonDefaultInput), `features` M (every column) or S (OT alone),
  // and the budget is `epochs` passes over the train windows with one validation evaluation per
  // epoch (the trainer's patience then counts epochs; its max_steps still caps a run).
  SeriesProtocol protocol = SeriesProtocol::Auto;
  forecast::LongHorizonFeatures features = forecast::LongHorizonFeatures::Multivariate;
  int64_t epochs = 3;
};

// The rows of TaskOptions' fields (engine/core/config/option_table.h): JSON key, label, the one
// range validate (engine/core/config/task_validation.h), the run setup's spin boxes and the CLI's
// flags use, flag. validate narrows some ranges by task (length 0 = auto for real series only;
// the regular languages' lengths follow each other).
const std::vector<OptionInfo<TaskOptions>>& taskOptionTable();
// nullptr when `name` is no row's.
const OptionInfo<TaskOptions>* findTaskOption(const std::string& name);

}  // namespace rsalab
