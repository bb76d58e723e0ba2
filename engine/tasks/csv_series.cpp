// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/csv_series.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "engine/core/forecast/anchors.h"
#include "engine/core/forecast/baselines.h"
#include "engine/core/io/calendar.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/task_registry.h"
#include "engine/tasks/task_support.h"
#include "engine/tasks/text_tasks.h"  // resourcePath

namespace rsalab {
namespace {

std::string rowsOf(int64_t rows, int64_t total) {
  return std::to_string(rows) + " of " + std::to_string(total) + " rows";
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c != ',') {
      item += c;
      continue;
    }
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    item.clear();
  }
  return out;
}

// The files parsedSeriesFile keeps: a few, most recent first.
struct ParsedFile {
  std::string path;
  std::uintmax_t bytes;
  std::filesystem::file_time_type modified;
  std::shared_ptr<const CsvTable> table;
};
constexpr size_t kParsedFilesKept = 4;
std::mutex parsed_mutex;
std::deque<ParsedFile> parsed_files;  // guarded by parsed_mutex
std::atomic<int64_t> parses{0};

std::shared_ptr<const CsvTable> parse(const std::string& path) {
  ++parses;
  return std::make_shared<const CsvTable>(readCsvFile(path));
}

}  // namespace

std::shared_ptr<const CsvTable> parsedSeriesFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code size_error, time_error;
  const std::uintmax_t bytes = fs::file_size(path, size_error);
  const fs::file_time_type modified = fs::last_write_time(path, time_error);
  if (size_error || time_error) return parse(path);  // readCsvFile says what is wrong
  {
    std::lock_guard<std::mutex> lock(parsed_mutex);
    for (auto it = parsed_files.begin(); it != parsed_files.end(); ++it) {
      if (it->path != path) continue;
      if (it->bytes == bytes && it->modified == modified) {
        ParsedFile hit = *it;
        parsed_files.erase(it);
        parsed_files.push_front(hit);
        return hit.table;
      }
      parsed_files.erase(it);  // the file changed: parse it again
      break;
    }
  }
  auto table = parse(path);  // outside the lock: two first asks may both parse, never wrongly
  std::lock_guard<std::mutex> lock(parsed_mutex);
  parsed_files.erase(std::remove_if(parsed_files.begin(), parsed_files.end(),
                                    [&](const ParsedFile& f) { return f.path == path; }),
                     parsed_files.end());
  parsed_files.push_front({path, bytes, modified, table});
  if (parsed_files.size() > kParsedFilesKept) parsed_files.pop_back();
  return table;
}

int64_t seriesFileParses() { return parses.load(); }

CsvTable selectTargetColumns(const CsvTable& table, const std::string& target,
                             const std::string& source) {
  const auto wanted = splitList(target);
  if (wanted.empty()) return table;
  const auto C = static_cast<int64_t>(table.columns.size());
  const auto time_count = static_cast<int64_t>(table.time_columns.size());
  // Index k < C: a numeric column; k ≥ C: time column k − C (set aside, chosen by name only).
  std::vector<int64_t> keep;
  for (const auto& w : wanted) {
    int64_t index = -1;
    for (int64_t c = 0; c < C; ++c) {
      if (table.columns[static_cast<size_t>(c)] == w) index = c;
    }
    for (int64_t k = 0; index < 0 && k < time_count; ++k) {
      if (table.time_columns[static_cast<size_t>(k)] == w) index = C + k;
    }
    if (index < 0 && w.find_first_not_of("0123456789") == std::string::npos && w.size() < 9) {
      const int64_t k = std::stoll(w);  // 1-based number among the numeric columns
      if (k >= 1 && k <= C) index = k - 1;
    }
    if (index < 0) {
      const std::string names = joined(table.columns), times = joined(table.time_columns);
      throw std::invalid_argument("target column '" + w + "' is not in " + source +
                                  ": its numeric columns are " + names + " (or 1.." +
                                  std::to_string(C) + ")" +
                                  (times.empty() ? "" : "; time columns set aside: " + times));
    }
    if (std::find(keep.begin(), keep.end(), index) == keep.end()) keep.push_back(index);
  }
  CsvTable out = table;
  out.columns.clear();
  out.source_columns.clear();
  out.values.clear();
  out.time_columns.clear();
  out.time_values.clear();
  out.skipped_columns.clear();
  std::vector<std::vector<double>> chosen;  // each chosen column's rows, missing cells filled
  for (int64_t c : keep) {
    if (c < C) {
      out.columns.push_back(table.columns[static_cast<size_t>(c)]);
      if (static_cast<size_t>(c) < table.source_columns.size())
        out.source_columns.push_back(table.source_columns[static_cast<size_t>(c)]);
      std::vector<double> v(static_cast<size_t>(table.rows));
      for (int64_t r = 0; r < table.rows; ++r) v[static_cast<size_t>(r)] = table.at(r, c);
      chosen.push_back(std::move(v));
      continue;
    }
    out.columns.push_back(table.time_columns[static_cast<size_t>(c - C)]);
    auto v = table.time_values[static_cast<size_t>(c - C)];
    fillMissing(v);
    if (std::isnan(v.front()))
      throw std::invalid_argument("time column '" + out.columns.back() + "' has no values");
    chosen.push_back(std::move(v));
  }
  for (const auto& n : table.skipped_columns) {  // a chosen time column is no longer skipped
    if (std::find(out.columns.begin(), out.columns.end(), n) == out.columns.end())
      out.skipped_columns.push_back(n);
  }
  for (size_t k = 0; k < table.time_columns.size(); ++k) {
    const auto& n = table.time_columns[k];
    if (std::find(out.columns.begin(), out.columns.end(), n) == out.columns.end()) {
      out.time_columns.push_back(n);
      out.time_values.push_back(table.time_values[k]);
    }
  }
  out.values.reserve(static_cast<size_t>(table.rows) * keep.size());
  for (int64_t r = 0; r < table.rows; ++r)
    for (const auto& v : chosen) out.values.push_back(v[static_cast<size_t>(r)]);
  return out;
}

int64_t resolveSeriesLength(int64_t rows, const TaskOptions& o) {
  if (o.length > 0) return o.length;
  const int64_t train = rows * 70 / 100;
  const int64_t quarter = std::clamp<int64_t>(train / 4, kAutoLengthMin, kAutoLengthMax);
  return std::max<int64_t>(1, std::min(quarter, train - o.horizon));  // ≥ 1 training window
}

SeriesLayout makeCsvLayout(const CsvTable& table, const TaskOptions& o, int64_t train_size,
                           const std::string& source) {
  task_support::requireRange("horizon", o.horizon, 1, 1024);
  const int64_t L = table.rows, C = static_cast<int64_t>(table.columns.size()), H = o.horizon;
  if (C < 1 || L < 1) throw std::invalid_argument(source + " has no numeric values");
  const int64_t T = resolveSeriesLength(L, o);
  SeriesLayout layout;
  layout.train_end = L * 70 / 100;
  layout.validation_end = layout.train_end + L * 15 / 100;
  if (layout.train_end < T + H) {
    throw std::invalid_argument(
        "length + horizon = " + std::to_string(T + H) + " rows do not fit the train part (first " +
        "70%) of " + source + " (" + rowsOf(layout.train_end, L) +
        "): use a shorter length (or --length auto) or horizon, or a longer series");
  }
  const int64_t validation_rows = layout.validation_end - layout.train_end;
  const int64_t test_rows = L - layout.validation_end;
  if (validation_rows < H || test_rows < H) {
    const bool v = validation_rows < H;
    throw std::invalid_argument(
        "horizon " + std::to_string(H) + " does not fit the " +
        (v ? "validation part (next 15%)" : "test part (last 15%)") + " of " + source + " (" +
        rowsOf(v ? validation_rows : test_rows, L) + "): use a shorter horizon or a longer series");
  }
  layout.values = torch::tensor(table.values, torch::TensorOptions().dtype(torch::kFloat64))
                      .view({L, C});  // (L, C)
  layout.train_starts = evenlySpacedStarts(0, layout.train_end - T - H, train_size);
  // Origins o with targets o+1 .. o+H inside the part; inputs reach back T − 1 rows from o.
  layout.validation_origins =
      evenlySpacedStarts(layout.train_end - 1, layout.validation_end - 1 - H, o.validation_size);
  for (int64_t origin = layout.validation_end - 1; origin <= L - 1 - H; ++origin)
    layout.test_origins.push_back(origin);
  fitTrainNormalisation(layout);
  return layout;
}

TaskData makeCsvTaskFromTable(const CsvTable& table, const TaskOptions& o, int64_t train_size,
                              const std::string& source, const TaskBuild& build) {
  const auto layout = makeCsvLayout(table, o, train_size, source);
  const int64_t T = resolveSeriesLength(table.rows, o), H = o.horizon;
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Regression;
  data.train = cutWindows(layout, layout.train_starts, T, H);
  data.validation = cutOriginWindows(layout, layout.validation_origins, T, H);
  data.test = cutOriginWindows(layout, layout.test_origins, T, H);
  const auto C = static_cast<int64_t>(table.columns.size());
  data.io.input_dim = C;
  data.io.output_dim = C * H;
  data.columns = table.columns;
  data.norm = normModeName(o.norm);
  data.norm_mean = layout.mean;
  data.norm_std = layout.stddev;
  data.length = T;
  data.horizon = H;
  data.requested_train_size = train_size;
  // P: --period, else the time column's calendar step, else detected from the train part.
  const auto period = choosePeriod(o.seasonal_period, calendarPeriod(table), layout.train_end);
  forecast::AnchorInput anchors;
  auto references = seriesReferences(layout, T, H, period, &anchors);
  data.references = std::move(references.scores);
  data.season = references.season;
  data.mase_scale = std::move(references.mase_scale);
  anchors.mode = o.anchors;
  anchors.column_names = table.columns;
  anchors.period_rule = data.season.rule;
  data.pending_anchors = std::make_shared<const forecast::AnchorInput>(std::move(anchors));
  if (!build.defer_anchors) fitAnchors(data, build.anchor_progress);  // now, in the task's notes

  const int64_t N = data.train.size();
  if (N < train_size) {
    data.notes.push_back("N capped: asked for " + std::to_string(train_size) +
                         " training windows, the train part of " + source + " has " +
                         std::to_string(N) + " (T = " + std::to_string(T) + ", horizon " +
                         std::to_string(H) + "): N = " + std::to_string(N) + " is used");
  }
  if (o.length == 0) {
    data.notes.push_back("length auto: T = " + std::to_string(T) + " (a quarter of the " +
                         std::to_string(layout.train_end) + " train rows, within " +
                         std::to_string(kAutoLengthMin) + ".." + std::to_string(kAutoLengthMax) +
                         ")");
  }
  data.notes.push_back("seasonal naive: " + data.season.note());
  const std::string names = joined(table.columns);
  data.summary = source + ", " + std::to_string(C) + " column(s) (" + names + "), " +
                 std::to_string(table.rows) + " rows split 70/15/15%; N = " + std::to_string(N) +
                 " train windows, " + std::to_string(data.validation.size()) + " validation / " +
                 std::to_string(data.test.size()) +
                 " test targets (rolling origin), T=" + std::to_string(T) +
                 (o.length == 0 ? " (auto)" : "") + ", horizon " + std::to_string(H) + ", norm " +
                 normModeName(o.norm);
  if (table.filled > 0) data.summary += "; " + std::to_string(table.filled) + " missing filled";
  for (const auto& s : table.skipped_columns) {
    const bool numeric = std::find(table.time_columns.begin(), table.time_columns.end(), s) !=
                         table.time_columns.end();
    data.summary +=
        "; skipped time column '" + s + "'" +
        (numeric ? " (numbers, but the time index: --target " + s + " forecasts it)" : "");
  }
  return data;
}

CsvTable readSeriesTable(const TaskOptions& o, std::string* source) {
  std::string path = o.csv_path, name;
  const auto* row = findTask(o.name);
  if (row && row->series_file) {
    path = resourcePath(std::string("series/") + row->series_file);
    name = o.name;
  } else {
    if (o.csv_path.empty()) {
      throw std::invalid_argument("csv_path is empty: the csv task needs a CSV file");
    }
    const auto slash = o.csv_path.find_last_of('/');
    name = slash == std::string::npos ? o.csv_path : o.csv_path.substr(slash + 1);
  }
  if (source) *source = name;
  return selectTargetColumns(*parsedSeriesFile(path), o.target, name);
}

TaskData makeCsvTask(const TaskOptions& o, int64_t train_size, const TaskBuild& build) {
  std::string name;
  const auto table = readSeriesTable(o, &name);
  return makeCsvTaskFromTable(table, o, train_size, name, build);
}

}  // namespace rsalab
