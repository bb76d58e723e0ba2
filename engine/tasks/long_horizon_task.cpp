// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/long_horizon_task.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "engine/core/forecast/metrics.h"
#include "engine/core/io/calendar.h"
#include "engine/tasks/csv_series.h"

namespace rsalab {
namespace {

using forecast::LongHorizonFeatures;

// x (N, L, C): z rows s .. s+L−1 of each window.
torch::Tensor inputs(const std::vector<double>& z, int64_t C, const std::vector<int64_t>& starts,
                     int64_t L) {
  auto x = torch::empty({static_cast<int64_t>(starts.size()), L, C}, torch::kFloat32);
  float* p = x.data_ptr<float>();
  for (int64_t s : starts)
    for (int64_t r = s; r < s + L; ++r)
      for (int64_t c = 0; c < C; ++c) *p++ = static_cast<float>(z[static_cast<size_t>(r * C + c)]);
  return x;
}

// Each row's calendar marks (month, day, weekday from Monday = 0, hour) from the table's first
// date column; rows [0, rows). Throws std::invalid_argument naming the first cell that is no date.
std::vector<std::array<uint8_t, 4>> calendarMarks(const CsvTable& table, const std::string& source,
                                                  int64_t rows) {
  if (table.date_cells.empty())
    throw std::invalid_argument(source + " has no date column: the calendar marks need one");
  std::vector<std::array<uint8_t, 4>> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const auto& cell = table.date_cells.front()[static_cast<size_t>(r)];
    const auto t = parseCalendarTime(cell);
    if (!t)
      throw std::invalid_argument(source + ", row " + std::to_string(r + 1) + ": '" + cell +
                                  "' is no date");
    const int64_t weekday = ((t->days() % 7) + 7 + 3) % 7;  // 1970-01-01 was a Thursday (3)
    out[static_cast<size_t>(r)] = {static_cast<uint8_t>(t->month), static_cast<uint8_t>(t->day),
                                   static_cast<uint8_t>(weekday),
                                   static_cast<uint8_t>(t->second / 3600)};
  }
  return out;
}

// marks (N, L + H, 4): rows s .. s+L+H−1 of each window (DataSplit::marks).
torch::Tensor windowMarks(const std::vector<std::array<uint8_t, 4>>& marks,
                          const std::vector<int64_t>& starts, int64_t span) {
  auto m = torch::empty({static_cast<int64_t>(starts.size()), span, 4}, torch::kUInt8);
  uint8_t* p = m.data_ptr<uint8_t>();
  for (int64_t s : starts)
    for (int64_t r = s; r < s + span; ++r)
      for (uint8_t v : marks[static_cast<size_t>(r)]) *p++ = v;
  return m;
}

// y (N, 1, H·C) from (N, H, C) row-major targets (the same order).
torch::Tensor targets(const std::vector<float>& t, int64_t N, int64_t H, int64_t C) {
  return torch::tensor(t, torch::kFloat32).view({N, 1, H * C});
}

}  // namespace

LongHorizonTask makeLongHorizonTask(const LongHorizonTaskOptions& o) {
  const auto* row = findTask(o.series);
  if (!row || !row->series_file)
    throw std::invalid_argument("'" + o.series + "' is not a bundled series");
  TaskOptions task;
  task.name = o.series;
  task.target = o.features == LongHorizonFeatures::Univariate ? kLongHorizonTarget : "";
  std::string source;
  const CsvTable table = readSeriesTable(task, &source);
  const auto& split = forecast::kEttHourSplit;
  const int64_t C = static_cast<int64_t>(table.columns.size()), L = o.input_length, H = o.horizon;
  LongHorizonTask out;
  out.windows = forecast::longHorizonWindows(split, table.rows, L, H, o.train_fraction);
  out.columns = table.columns;
  const auto ot = std::find(out.columns.begin(), out.columns.end(), kLongHorizonTarget);
  if (ot == out.columns.end())
    throw std::invalid_argument(source + " has no column " + kLongHorizonTarget);
  out.target_column = ot - out.columns.begin();
  out.scaling = forecast::fitTrainScaling(table.values, C, split.train_end);
  out.z.resize(static_cast<size_t>(split.test_end * C));
  for (int64_t r = 0; r < split.test_end; ++r) {
    for (int64_t c = 0; c < C; ++c) {
      const auto k = static_cast<size_t>(c);
      out.z[static_cast<size_t>(r * C + c)] =
          (table.at(r, c) - out.scaling.mean[k]) / out.scaling.stddev[k];
    }
    out.raw_target.push_back(table.at(r, out.target_column));
  }
  out.validation_targets = forecast::longHorizonTargets(out.z, C, out.windows.validation, L, H);
  out.test_targets = forecast::longHorizonTargets(out.z, C, out.windows.test, L, H);
  const auto train_targets = forecast::longHorizonTargets(out.z, C, out.windows.train, L, H);

  TaskData data;
  data.name = o.series;
  data.objective = Objective::Regression;
  data.io.input_dim = C;
  data.io.output_dim = H * C;
  data.columns = out.columns;
  data.norm = normModeName(o.norm);  // the tensors are the z values (global: as they are)
  data.protocol = "long-horizon";
  data.io.revin = o.norm == NormMode::Revin;  // RevIN's affine: the model's parameters
  data.norm_mean = out.scaling.mean;
  data.norm_std = out.scaling.stddev;
  data.length = L;
  data.horizon = H;
  const auto n = [](const std::vector<int64_t>& v) { return static_cast<int64_t>(v.size()); };
  data.train.x = inputs(out.z, C, out.windows.train, L);
  data.train.y = targets(train_targets, n(out.windows.train), H, C);
  data.validation.x = inputs(out.z, C, out.windows.validation, L);
  data.validation.y = targets(out.validation_targets, n(out.windows.validation), H, C);
  data.test.x = inputs(out.z, C, out.windows.test, L);
  data.test.y = targets(out.test_targets, n(out.windows.test), H, C);
  const auto marks = calendarMarks(table, source, split.test_end);
  data.train.marks = windowMarks(marks, out.windows.train, L + H);
  data.validation.marks = windowMarks(marks, out.windows.validation, L + H);
  data.test.marks = windowMarks(marks, out.windows.test, L + H);
  data.requested_train_size = data.train.size();
  // Persistence (the last input row repeated), the one reference of the protocol.
  const auto persistence = [&](const std::vector<int64_t>& starts, const std::vector<float>& t) {
    return forecast::scoreLongHorizon(forecast::persistenceForecasts(out.z, C, starts, L, H), t, H,
                                      C, out.target_column);
  };
  const auto v = persistence(out.windows.validation, out.validation_targets);
  const auto t = persistence(out.windows.test, out.test_targets);
  ReferenceScore ref(baselineName(Baseline::Persistence), "persistence", v.mse, t.mse);
  ref.test_errors = t.window_mse;
  data.references.push_back(std::move(ref));
  const auto at = [](int64_t r) { return std::to_string(r); };
  data.summary = source + ", long-horizon protocol: features " +
                 forecast::longHorizonFeaturesName(o.features) + " (" + std::to_string(C) +
                 " column(s)), L = " + std::to_string(L) + ", H = " + std::to_string(H) +
                 "; rows train [0, " + at(split.train_end) + "), validation [" +
                 at(split.train_end) + ", " + at(split.validation_end) + "), test [" +
                 at(split.validation_end) + ", " + at(split.test_end) + "); windows train " +
                 std::to_string(data.train.size()) + ", validation " +
                 std::to_string(data.validation.size()) + ", test " +
                 std::to_string(data.test.size()) + "; norm " + normModeName(o.norm);
  out.data = std::make_shared<const TaskData>(std::move(data));
  return out;
}

forecast::AnchorInput longHorizonAnchorInput(const LongHorizonTask& task, AnchorMode mode) {
  const int64_t L = task.data->length, H = task.data->horizon;
  forecast::AnchorInput in;
  in.values = task.raw_target;
  in.columns = 1;
  in.scale = {task.scaling.stddev[static_cast<size_t>(task.target_column)]};
  in.train_end = forecast::kEttHourSplit.train_end;
  in.horizon = H;
  in.period = 24;  // hourly data: the daily season
  in.period_rule = "hourly rows: the daily season";
  in.column_names = {kLongHorizonTarget};
  in.mode = mode;
  for (int64_t s : task.windows.validation) in.validation_origins.push_back(s + L - 1);
  for (int64_t s : task.windows.test) in.test_origins.push_back(s + L - 1);
  return in;
}

LongHorizonTaskOptions longHorizonTaskOptions(const TaskOptions& task) {
  LongHorizonTaskOptions o;
  o.series = task.name;
  o.input_length = forecast::longHorizonInputLength(task.length);
  o.horizon = task.horizon;
  o.features = task.features;
  o.norm = task.norm;
  return o;
}

TaskData makeLongHorizonTaskData(const TaskOptions& options, const TaskBuild& build) {
  const auto o = longHorizonTaskOptions(options);
  const auto task = makeLongHorizonTask(o);
  TaskData data = *task.data;
  const bool univariate = o.features == forecast::LongHorizonFeatures::Univariate;
  data.anchors_as_notes = !univariate;
  data.pending_anchors =
      std::make_shared<const forecast::AnchorInput>(longHorizonAnchorInput(task, options.anchors));
  data.notes.push_back(
      "long-horizon protocol (" +
      std::string(options.protocol == SeriesProtocol::Auto
                      ? "the default on " + options.name +
                            "; --protocol split for the 70/15/15 split"
                      : "--protocol long-horizon") +
      "): L = " + std::to_string(o.input_length) +
      (options.length == 0 ? " (--length auto)" : " (--length)") + ", every train window (" +
      std::to_string(data.train.size()) + "), at most " + std::to_string(options.epochs) +
      " epoch(s) with one validation evaluation each; the test MSE is over every window, step " +
      "and column in z units");
  if (options.anchors != AnchorMode::None)
    data.notes.push_back(std::string("anchors on OT alone, ") + anchorModeName(options.anchors) +
                         (options.anchors == AnchorMode::Fast ? " (the protocol's default; "
                                                                "--anchors all for the full fits)"
                                                              : "") +
                         (univariate ? ""
                                     : ": they score OT, not every column; compare them "
                                       "with the run's OT-column MSE"));
  if (!build.defer_anchors) fitAnchors(data, build.anchor_progress);
  return data;
}

forecast::LongHorizonScores scoreLongHorizonTest(const TaskData& data,
                                                 const std::vector<float>& test_forecasts) {
  const auto C = static_cast<int64_t>(data.columns.size());
  const auto ot = std::find(data.columns.begin(), data.columns.end(), kLongHorizonTarget);
  const auto y = data.test.y.to(torch::kFloat32).contiguous();
  const std::vector<float> targets(y.data_ptr<float>(), y.data_ptr<float>() + y.numel());
  return forecast::scoreLongHorizon(test_forecasts, targets, data.horizon, C,
                                    ot == data.columns.end() ? 0 : ot - data.columns.begin());
}

}  // namespace rsalab
