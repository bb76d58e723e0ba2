// Forecasting windows cut from one multivariate series that is split in time into
// train | validation | test parts, shared by the synthetic series and the CSV task.
//
// A window starting at row s covers rows [s, s + T + H): inputs are rows s .. s+T−1 and the
// targets of position t are the H rows after it. Every window lies inside one part, so no value
// is seen by two splits. Normalisation (per column mean and std) is fitted on the train part only
// and applied to all three splits.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/tasks/task.h"
#include "engine/torch_api.h"

namespace rsalab {

struct SeriesLayout {
  torch::Tensor values;        // (L, C) float64, raw (before normalisation), oldest row first
  int64_t train_end = 0;       // train part: rows [0, train_end)
  int64_t validation_end = 0;  // validation: [train_end, validation_end); test: [validation_end, L)
  std::vector<int64_t> train_starts, validation_starts, test_starts;  // window start rows
  std::vector<double> mean, stddev;  // per column, fitted on the train part (std 0 → 1)
  int64_t length() const { return values.size(0); }
  int64_t columns() const { return values.size(1); }
};

// Fills layout.mean / layout.stddev from rows [0, train_end) (population std).
void fitTrainNormalisation(SeriesLayout& layout);

// Normalised windows: x (N, T, C), y (N, T, H·C) float32 with
// x[n, t, c] = z(s_n + t, c) and y[n, t, h·C + c] = z(s_n + t + 1 + h, c), z the normalised series.
// So y[..., 0:C] is always the next step of every column.
DataSplit cutWindows(const SeriesLayout& layout, const std::vector<int64_t>& starts, int64_t T,
                     int64_t H);

// `count` start rows spread evenly over [first, last] (both included when count ≥ 2, ascending);
// all of them when the range holds no more than `count`.
std::vector<int64_t> evenlySpacedStarts(int64_t first, int64_t last, int64_t count);

}  // namespace rsalab
