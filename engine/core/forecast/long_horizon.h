// SPDX-License-Identifier: GPL-3.0-or-later
// The long-horizon protocol of the ETT papers (Informer, arXiv 2012.07436; the RSA paper, ICLR
// 2023; DLinear/NLinear, arXiv 2205.13504), as their code (Dataset_ETT_hour) computes it, on the
// hourly ETT data sets (resources/series/ett/). Plain C++ (rsalab_core): the arithmetic only; the
// engine cuts the tensors from it (engine/tasks/long_horizon_task.h).
//
// Rows x[r, c], r = 0.., c = 0..C−1 (C = 7 columns, "M", or the target OT alone, "S").
//   Split (months of 30 days = 720 rows): train [0, 8640), validation [8640, 11520),
//   test [11520, 14400): 12 / 4 / 4 months. Rows from 14400 on are not used.
//   Windows of input length L and horizon H: window s has inputs rows s .. s+L−1 and targets rows
//   s+L .. s+L+H−1, stride 1. Its targets lie inside one part; its inputs may start up to L rows
//   before that part's border (validation and test windows start at border − L), so
//     train:      s = 0 .. 8640 − L − H                (8640 − L − H + 1 windows)
//     validation: s = 8640 − L .. 11520 − L − H        (2880 − H + 1 windows)
//     test:       s = 11520 − L .. 14400 − L − H       (2880 − H + 1 windows)
//   A train fraction f < 1 keeps the ceil(f · count) most recent train windows (the last ones).
//   Scaling: z[r, c] = (x[r, c] − µ_c) / σ_c with µ_c = (1/8640) Σ_{r<8640} x[r, c] and the
//   population σ_c² = (1/8640) Σ_{r<8640} (x[r, c] − µ_c)² (StandardScaler on the train part).
//   Output: all H steps of all C columns from one forward pass (direct), ŷ[n, h, c].
//   Metric: over the N windows, H steps and C columns, in z units,
//     MSE = 1/(N·H·C) Σ_n Σ_h Σ_c (ŷ[n, h, c] − z[s_n + L + h, c])²
//     MAE = 1/(N·H·C) Σ_n Σ_h Σ_c |ŷ[n, h, c] − z[s_n + L + h, c]|
//   and per column c (the OT column's MSE is the one comparable with univariate anchors):
//     MSE_c = 1/(N·H) Σ_n Σ_h (ŷ[n, h, c] − z[s_n + L + h, c])².
// The papers' test loaders differ in one detail: Informer's drops the last incomplete batch
// (drop_last), LTSF-Linear's keeps every window; here every window counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/io/enums.h"

namespace rsalab::forecast {

constexpr int64_t kEttMonthRows = 30 * 24;  // the papers' month: 30 days of hourly rows
struct LongHorizonSplit {
  int64_t train_end = 12 * kEttMonthRows;       // 8640
  int64_t validation_end = 16 * kEttMonthRows;  // 11520
  int64_t test_end = 20 * kEttMonthRows;        // 14400
};
constexpr LongHorizonSplit kEttHourSplit{};

constexpr int64_t kLongHorizonDefaultInput = 96;  // L, the LTSF benchmark's input length
// L of a run's length (TaskOptions::length; 0 = auto: kLongHorizonDefaultInput).
constexpr int64_t longHorizonInputLength(int64_t length) {
  return length > 0 ? length : kLongHorizonDefaultInput;
}

// "M": every column in, every column out; "S": the target column (OT) alone.
enum class LongHorizonFeatures { Multivariate, Univariate };
const char* longHorizonFeaturesName(LongHorizonFeatures f);  // "M" | "S"
// "M" or "S" (also "multivariate" / "univariate"); throws std::invalid_argument otherwise.
LongHorizonFeatures parseLongHorizonFeatures(const std::string& text);
}  // namespace rsalab::forecast

namespace rsalab {
template <>  // TaskOptions::features (--features): the names "M" and "S"
struct EnumTable<forecast::LongHorizonFeatures> {
  static constexpr EnumName<forecast::LongHorizonFeatures> rows[] = {
      {forecast::LongHorizonFeatures::Multivariate, "M"},
      {forecast::LongHorizonFeatures::Univariate, "S"}};
};
}  // namespace rsalab

namespace rsalab::forecast {

// Window start rows s of each part (ascending).
struct LongHorizonWindows {
  std::vector<int64_t> train, validation, test;
};
// Throws std::invalid_argument (naming the value) when L or H is < 1, a part holds no window,
// the series has fewer than split.test_end rows, or train_fraction is outside (0, 1].
LongHorizonWindows longHorizonWindows(const LongHorizonSplit& split, int64_t rows, int64_t L,
                                      int64_t H, double train_fraction = 1.0);

// Per column mean and population standard deviation of rows [0, train_end) of the row-major
// (rows × C) values (a constant column gets σ = 1).
struct ColumnScaling {
  std::vector<double> mean, stddev;
};
ColumnScaling fitTrainScaling(const std::vector<double>& values, int64_t columns,
                              int64_t train_end);

// The metric above. forecast and target are (N, H, C) row-major: [(n·H + h)·C + c].
struct LongHorizonScores {
  double mse = 0, mae = 0;
  std::vector<double> column_mse;  // MSE_c
  // Per window n: the mean of e² over its H steps and C columns (for paired intervals), and the
  // same over the H steps of column `column` alone.
  std::vector<double> window_mse, window_column_mse;
};
LongHorizonScores scoreLongHorizon(const std::vector<float>& forecast,
                                   const std::vector<float>& target, int64_t H, int64_t C,
                                   int64_t column);

// The z-scored targets of windows `starts`, (N, H, C) row-major, from the row-major (rows × C)
// z values; and persistence's forecasts (the last input row z[s + L − 1, c] repeated H times).
std::vector<float> longHorizonTargets(const std::vector<double>& z, int64_t columns,
                                      const std::vector<int64_t>& starts, int64_t L, int64_t H);
std::vector<float> persistenceForecasts(const std::vector<double>& z, int64_t columns,
                                        const std::vector<int64_t>& starts, int64_t L, int64_t H);

}  // namespace rsalab::forecast
