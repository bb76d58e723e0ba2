// SPDX-License-Identifier: GPL-3.0-or-later
// Forecasting windows cut from one multivariate series that is split in time into
// train | validation | test parts, shared by the synthetic series and the real series (CSV and
// bundled).
//
// A window starting at row s covers rows [s, s + T + H): inputs are rows s .. s+T−1 and the
// targets of position t are the H rows after it. Training windows lie inside the train part. The
// synthetic series cut validation and test windows the same way inside their parts; the real
// series score forecast origins instead (rolling origin, cutOriginWindows): origin o predicts
// rows o+1 .. o+H, all inside the validation (test) part, from the T rows up to o, which may
// reach back into the earlier parts. So no target is ever seen by two splits, and a short series
// still has a validation and a test set. Normalisation (per column mean and std) is fitted on the
// train part only and applied to all three splits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/forecast/baselines.h"
#include "engine/tasks/task.h"
#include "engine/torch_api.h"

namespace rsalab {

struct SeriesLayout {
  torch::Tensor values;        // (L, C) float64, raw (before normalisation), oldest row first
  int64_t train_end = 0;       // train part: rows [0, train_end)
  int64_t validation_end = 0;  // validation: [train_end, validation_end); test: [validation_end, L)
  std::vector<int64_t> train_starts, validation_starts, test_starts;  // window start rows
  // Real series: forecast origins of validation and test (the starts above stay empty).
  std::vector<int64_t> validation_origins, test_origins;
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

// Rolling-origin windows: x (N, T, C) = rows o−T+1 .. o, y (N, 1, H·C) with
// y[n, 0, h·C + c] = z(o_n + 1 + h, c): the forecast from the last position only.
DataSplit cutOriginWindows(const SeriesLayout& layout, const std::vector<int64_t>& origins,
                           int64_t T, int64_t H);

// The baselines (engine/core/forecast/baselines.h) on the layout's validation and test targets, in
// normalised units: the origins of the real series, or every position of every synthetic window.
// AR(p) is fitted on the training windows. `period`: P with its rule, or period 0 = detect from
// the train part (its rule says why). The result holds the scores, the P used and how it was
// chosen (the anchors use the same P), and MASE's denominators. With `anchors` (the real series),
// it is filled with what the anchors (engine/core/forecast/anchors.h: ETS, auto ARIMA, Theta,
// fitted on the train part) need: the raw series, the origins and the period; they are fitted by
// computeAnchors, at once or in the background (TaskBuild). The synthetic tasks go without them:
// they know their Bayes floor, and a stepwise ARIMA search per seed and sweep cell would dominate
// their set-up.
SeriesBaselines seriesReferences(const SeriesLayout& layout, int64_t T, int64_t H,
                                 const SeasonalPeriod& period,
                                 forecast::AnchorInput* anchors = nullptr);

// `count` start rows spread evenly over [first, last] (both included when count ≥ 2, ascending);
// all of them when the range holds no more than `count`.
std::vector<int64_t> evenlySpacedStarts(int64_t first, int64_t last, int64_t count);

}  // namespace rsalab
