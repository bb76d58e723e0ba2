#include "engine/tasks/csv_series.h"

#include <stdexcept>

#include "engine/tasks/task_support.h"

namespace rsalab {
namespace {

void requireFits(int64_t rows, int64_t span, const std::string& part, int64_t total,
                 const std::string& source) {
  if (rows >= span) return;
  throw std::invalid_argument("length + horizon = " + std::to_string(span) +
                              " rows do not fit the " + part + " of " + source + " (" +
                              std::to_string(rows) + " of " + std::to_string(total) +
                              " rows): use a shorter length or horizon, or a longer series");
}

}  // namespace

SeriesLayout makeCsvLayout(const CsvTable& table, const TaskOptions& o, int64_t train_size,
                           const std::string& source) {
  task_support::requireRange("horizon", o.horizon, 1, 1024);
  const int64_t L = table.rows, C = static_cast<int64_t>(table.columns.size());
  const int64_t span = o.length + o.horizon;
  SeriesLayout layout;
  layout.train_end = L * 70 / 100;
  layout.validation_end = layout.train_end + L * 15 / 100;
  requireFits(layout.train_end, span, "train part (first 70%)", L, source);
  requireFits(layout.validation_end - layout.train_end, span, "validation part (next 15%)", L,
              source);
  requireFits(L - layout.validation_end, span, "test part (last 15%)", L, source);
  layout.values = torch::tensor(table.values, torch::TensorOptions().dtype(torch::kFloat64))
                      .view({L, C});  // (L, C)
  layout.train_starts = evenlySpacedStarts(0, layout.train_end - span, train_size);
  layout.validation_starts =
      evenlySpacedStarts(layout.train_end, layout.validation_end - span, o.validation_size);
  layout.test_starts = evenlySpacedStarts(layout.validation_end, L - span, o.test_size);
  fitTrainNormalisation(layout);
  return layout;
}

TaskData makeCsvTaskFromTable(const CsvTable& table, const TaskOptions& o, int64_t train_size,
                              const std::string& source) {
  const auto layout = makeCsvLayout(table, o, train_size, source);
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Regression;
  data.train = cutWindows(layout, layout.train_starts, o.length, o.horizon);
  data.validation = cutWindows(layout, layout.validation_starts, o.length, o.horizon);
  data.test = cutWindows(layout, layout.test_starts, o.length, o.horizon);
  const auto C = static_cast<int64_t>(table.columns.size());
  data.io.input_dim = C;
  data.io.output_dim = C * o.horizon;
  data.columns = table.columns;
  std::string names;
  for (const auto& c : table.columns) names += (names.empty() ? "" : ", ") + c;
  data.summary = "csv: " + source + ", " + std::to_string(C) + " column(s) (" + names + "), " +
                 std::to_string(table.rows) + " rows split 70/15/15%; " +
                 std::to_string(data.train.size()) + "/" + std::to_string(data.validation.size()) +
                 "/" + std::to_string(data.test.size()) +
                 " train/validation/test windows, T=" + std::to_string(o.length) + ", horizon " +
                 std::to_string(o.horizon);
  if (table.filled > 0) data.summary += "; " + std::to_string(table.filled) + " missing filled";
  for (const auto& s : table.skipped_columns) data.summary += "; skipped time column '" + s + "'";
  return data;
}

TaskData makeCsvTask(const TaskOptions& o, int64_t train_size) {
  if (o.csv_path.empty()) {
    throw std::invalid_argument("csv_path is empty: the csv task needs a CSV file");
  }
  const auto table = readCsvFile(o.csv_path);
  const auto slash = o.csv_path.find_last_of('/');
  const std::string name = slash == std::string::npos ? o.csv_path : o.csv_path.substr(slash + 1);
  return makeCsvTaskFromTable(table, o, train_size, name);
}

}  // namespace rsalab
