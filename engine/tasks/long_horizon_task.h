// SPDX-License-Identifier: GPL-3.0-or-later
// The long-horizon protocol's task (engine/core/forecast/long_horizon.h states it with its
// formula): the bundled ETT series (etth1, etth2) split 12 / 4 / 4 months, z-scored with the train
// part's statistics, cut into direct windows of input length L and horizon H at stride 1. Tensors:
// x (N, L, C) float32 = z rows s .. s+L−1; y (N, 1, H·C) with y[n, 0, h·C + c] = z[s_n + L + h, c].
// The trainer scores the last position only (y holds one position), so one forward pass gives all H
// steps of all C columns from the whole input (direct), in training, validation and test alike.
// Norm (TaskData::norm): global (the papers' setting) hands the model the z values; window / none
// map them as on every series task (engine/training/series_norm.h).
// One implementation for `rsalab-cli paper-table` and every run with TaskOptions::protocol
// long-horizon (`train --series etth1`, the GUI, sweeps): makeTask builds it through
// makeLongHorizonTaskData, the paper table through makeLongHorizonTask, both here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/forecast/anchors.h"
#include "engine/core/forecast/long_horizon.h"
#include "engine/tasks/task.h"

namespace rsalab {

constexpr const char* kLongHorizonTarget = "OT";  // the ETT target column

struct LongHorizonTaskOptions {
  std::string series = "etth1";  // a bundled series of the registry with >= 14400 rows
  int64_t input_length = forecast::kLongHorizonDefaultInput;  // L
  int64_t horizon = 96;                                       // H
  forecast::LongHorizonFeatures features = forecast::LongHorizonFeatures::Multivariate;
  double train_fraction = 1.0;       // < 1: the most recent windows only (sample-efficiency curve)
  NormMode norm = NormMode::Global;  // what the model sees (TaskData::norm)
};
// A run's TaskOptions read as the protocol's: name, length (L; 0 = auto, the default L), horizon,
// features and norm.
LongHorizonTaskOptions longHorizonTaskOptions(const TaskOptions& task);

struct LongHorizonTask {
  std::shared_ptr<const TaskData> data;
  forecast::LongHorizonWindows windows;  // window start rows
  forecast::ColumnScaling scaling;       // of the train part, per column
  std::vector<std::string> columns;
  int64_t target_column = 0;       // OT among `columns`
  std::vector<double> z;           // rows [0, test_end) × C, row-major, z-scored
  std::vector<double> raw_target;  // OT's raw values, rows [0, test_end) (for the anchors)
  std::vector<float> validation_targets, test_targets;  // (N, H, C) row-major, z units
};

// Throws std::invalid_argument for an unknown series or lengths that do not fit.
LongHorizonTask makeLongHorizonTask(const LongHorizonTaskOptions& options);

// The anchors on OT (univariate): fitted once on the train part and filtered forward with fixed
// parameters to every window's last input row, scored on the windows' H steps of OT.
forecast::AnchorInput longHorizonAnchorInput(const LongHorizonTask& task, AnchorMode mode);

// makeTask's long-horizon branch (TaskOptions::protocol): the task's TaskData, with persistence
// and the anchors on OT (pending, or fitted now unless build.defer_anchors). With features S the
// anchors are references like persistence; with M they score OT alone, not the run's metric over
// every column, so they are kept as notes (TaskData::anchors_as_notes) beside the run's OT-column
// MSE (scoreLongHorizonTest).
TaskData makeLongHorizonTaskData(const TaskOptions& task, const TaskBuild& build = {});

// The protocol's metric (forecast::scoreLongHorizon) of a run's test forecasts (Trainer::forecasts,
// (N, 1, H·C) in z units) against the task's test targets, with OT's column MSE.
forecast::LongHorizonScores scoreLongHorizonTest(const TaskData& data,
                                                 const std::vector<float>& test_forecasts);

}  // namespace rsalab
