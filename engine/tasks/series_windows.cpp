// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/series_windows.h"

#include <cmath>
#include <stdexcept>

#include "engine/core/forecast/anchors.h"
#include "engine/core/forecast/baselines.h"

namespace rsalab {

void fitTrainNormalisation(SeriesLayout& layout) {
  if (layout.train_end < 1) throw std::invalid_argument("the train part of the series is empty");
  auto train = layout.values.narrow(0, 0, layout.train_end);  // (Ltr, C)
  auto mean = train.mean(0);                                  // (C)
  auto var = (train - mean).pow(2).mean(0);                   // (C) population variance
  layout.mean.assign(static_cast<size_t>(layout.columns()), 0.0);
  layout.stddev.assign(static_cast<size_t>(layout.columns()), 1.0);
  for (int64_t c = 0; c < layout.columns(); ++c) {
    const double sd = std::sqrt(var[c].item<double>());
    layout.mean[static_cast<size_t>(c)] = mean[c].item<double>();
    // A constant column stays constant (0 after centring) instead of dividing by zero.
    layout.stddev[static_cast<size_t>(c)] = sd > 1e-12 ? sd : 1.0;
  }
}

DataSplit cutWindows(const SeriesLayout& layout, const std::vector<int64_t>& starts, int64_t T,
                     int64_t H) {
  const int64_t C = layout.columns();
  auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto mean = torch::tensor(layout.mean, f64);   // (C)
  auto std = torch::tensor(layout.stddev, f64);  // (C)
  DataSplit split;
  if (starts.empty()) {
    split.x = torch::zeros({0, T, C});
    split.y = torch::zeros({0, T, H * C});
    return split;
  }
  std::vector<torch::Tensor> windows;
  windows.reserve(starts.size());
  for (int64_t s : starts) {
    if (s < 0 || s + T + H > layout.length()) {
      throw std::logic_error("series window out of bounds");  // a generator bug, not user input
    }
    windows.push_back(layout.values.narrow(0, s, T + H));  // (T+H, C)
  }
  auto w = (torch::stack(windows) - mean) / std;                 // (N, T+H, C) normalised
  split.x = w.narrow(1, 0, T).to(torch::kFloat32).contiguous();  // (N, T, C)
  std::vector<torch::Tensor> ahead;
  for (int64_t h = 0; h < H; ++h) ahead.push_back(w.narrow(1, 1 + h, T));  // (N, T, C) each
  split.y = torch::cat(ahead, 2).to(torch::kFloat32).contiguous();         // (N, T, H·C)
  return split;
}

DataSplit cutOriginWindows(const SeriesLayout& layout, const std::vector<int64_t>& origins,
                           int64_t T, int64_t H) {
  const int64_t C = layout.columns();
  auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto mean = torch::tensor(layout.mean, f64);   // (C)
  auto std = torch::tensor(layout.stddev, f64);  // (C)
  DataSplit split;
  if (origins.empty()) {
    split.x = torch::zeros({0, T, C});
    split.y = torch::zeros({0, 1, H * C});
    return split;
  }
  std::vector<torch::Tensor> windows;
  windows.reserve(origins.size());
  for (int64_t o : origins) {
    if (o - T + 1 < 0 || o + H > layout.length() - 1)
      throw std::logic_error("series origin out of bounds");       // a layout bug, not user input
    windows.push_back(layout.values.narrow(0, o - T + 1, T + H));  // (T+H, C)
  }
  auto w = (torch::stack(windows) - mean) / std;                 // (N, T+H, C) normalised
  split.x = w.narrow(1, 0, T).to(torch::kFloat32).contiguous();  // (N, T, C)
  split.y = w.narrow(1, T, H).reshape({w.size(0), 1, H * C}).to(torch::kFloat32).contiguous();
  return split;  // y[n, 0, h·C + c] = row o+1+h, column c
}

SeriesBaselines seriesReferences(const SeriesLayout& layout, int64_t T, int64_t H,
                                 const SeasonalPeriod& period, forecast::AnchorInput* anchors) {
  SeriesBaselineInput in;
  const int64_t C = layout.columns();
  auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto z = ((layout.values - torch::tensor(layout.mean, f64)) / torch::tensor(layout.stddev, f64))
               .contiguous();  // (L, C) normalised
  in.values.assign(z.data_ptr<double>(), z.data_ptr<double>() + z.numel());
  in.columns = C;
  in.train_end = layout.train_end;
  in.length = T;
  in.horizon = H;
  in.period = period.period;
  in.period_rule = period.rule;
  in.train_starts = layout.train_starts;
  if (!layout.validation_origins.empty() || !layout.test_origins.empty()) {
    in.validation_origins = layout.validation_origins;
    in.test_origins = layout.test_origins;
  } else {  // windows scored at every position t: origin s + t
    for (int64_t s : layout.validation_starts)
      for (int64_t t = 0; t < T; ++t) in.validation_origins.push_back(s + t);
    for (int64_t s : layout.test_starts)
      for (int64_t t = 0; t < T; ++t) in.test_origins.push_back(s + t);
  }
  auto out = computeSeriesBaselines(in);
  if (layout.validation_origins.empty() && layout.test_origins.empty()) {
    // Windows scored at every position: a model's per-target error is its window's mean over
    // the T positions (EvalMetrics::target_errors), so the references' are too.
    for (auto& r : out.scores) {
      std::vector<double> windows;
      for (size_t k = 0; k + static_cast<size_t>(T) <= r.test_errors.size(); k += T) {
        double sum = 0;
        for (int64_t t = 0; t < T; ++t) sum += r.test_errors[k + static_cast<size_t>(t)];
        windows.push_back(sum / static_cast<double>(T));
      }
      r.test_errors = std::move(windows);
    }
  }
  if (!anchors) return out;

  forecast::AnchorInput& a = *anchors;
  const auto raw = layout.values.contiguous();  // (L, C) float64
  a.values.assign(raw.data_ptr<double>(), raw.data_ptr<double>() + raw.numel());
  a.columns = C;
  a.scale = layout.stddev;
  a.train_end = layout.train_end;
  a.horizon = H;
  a.period = out.season.period;
  a.mase_scale = out.mase_scale;
  a.validation_origins = in.validation_origins;
  a.test_origins = in.test_origins;
  return out;
}

std::vector<int64_t> evenlySpacedStarts(int64_t first, int64_t last, int64_t count) {
  std::vector<int64_t> starts;
  if (last < first || count < 1) return starts;
  const int64_t available = last - first + 1;
  if (available <= count) {
    for (int64_t s = first; s <= last; ++s) starts.push_back(s);
    return starts;
  }
  if (count == 1) return {last};
  for (int64_t k = 0; k < count; ++k) {
    // Integer arithmetic: exact and strictly increasing because available > count.
    starts.push_back(first + (k * (available - 1)) / (count - 1));
  }
  return starts;
}

}  // namespace rsalab
