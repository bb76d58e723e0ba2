// SPDX-License-Identifier: GPL-3.0-or-later
// The long-horizon protocol's task (engine/core/forecast/long_horizon.h states it with its
// formula): the bundled ETT series (etth1, etth2) split 12 / 4 / 4 months, z-scored with the train
// part's statistics, cut into direct windows of input length L and horizon H at stride 1. Tensors:
// x (N, L, C) float32 = z rows s .. s+L−1; y (N, 1, H·C) with y[n, 0, h·C + c] = z[s_n + L + h, c].
// The trainer scores the last position only (y holds one position), so one forward pass gives all H
// steps of all C columns from the whole input (direct), in training, validation and test alike.
// Norm "global": the model sees the z values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/forecast/long_horizon.h"
#include "engine/tasks/task.h"

namespace rsalab {

constexpr const char* kLongHorizonTarget = "OT";  // the ETT target column

struct LongHorizonTaskOptions {
  std::string series = "etth1";  // a bundled series of the registry with >= 14400 rows
  int64_t input_length = forecast::kLongHorizonDefaultInput;  // L
  int64_t horizon = 96;                                       // H
  forecast::LongHorizonFeatures features = forecast::LongHorizonFeatures::Multivariate;
  double train_fraction = 1.0;  // < 1: the most recent windows only (sample-efficiency curve)
};

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

}  // namespace rsalab
