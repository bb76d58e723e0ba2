// Task "csv": forecasting the user's CSV time series (read by engine/tasks/csv_reader.h).
//
// The rows are split in time: first 70% train, next 15% validation, last 15% test. Windows of
// T = options.length inputs and H = options.horizon targets per position (x (N, T, C),
// y (N, T, H·C), layout in series_windows.h) slide with stride 1 inside each part, never across a
// boundary. Each split takes at most its requested number of windows (train_size,
// validation_size, test_size), spread evenly over its part from the first window to the latest,
// so a small train_size still sees the whole train period; a part with fewer windows gives all
// it has. Mean and std per column are fitted on the whole train part. The data depend only on
// the file and the options: the seed does not change them.
#pragma once

#include <cstdint>
#include <string>

#include "engine/tasks/csv_reader.h"
#include "engine/tasks/series_windows.h"
#include "engine/tasks/task.h"

namespace rsalab {

SeriesLayout makeCsvLayout(const CsvTable& table, const TaskOptions& options, int64_t train_size,
                           const std::string& source);
TaskData makeCsvTaskFromTable(const CsvTable& table, const TaskOptions& options, int64_t train_size,
                              const std::string& source);
TaskData makeCsvTask(const TaskOptions& options, int64_t train_size);

}  // namespace rsalab
