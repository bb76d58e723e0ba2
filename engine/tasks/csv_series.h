// SPDX-License-Identifier: GPL-3.0-or-later
// Real series: task "csv" (the user's CSV file, read by engine/core/io/csv_reader.h) and the
// bundled series (resources/series/*.csv, one task each in engine/core/registry/task_registry.cpp).
//
// The rows are split in time: first 70% train, next 15% validation, last 15% test.
// - Training: windows of T inputs and H targets per position (x (N, T, C), y (N, T, H·C), layout
//   in series_windows.h) slide with stride 1 inside the train part; at most train_size of them,
//   spread evenly from the first window to the latest, so a small N still sees the whole train
//   period. Asking for more than exist gives all of them, and a note says so
//   (TaskData::requested_train_size keeps what was asked).
// - Validation and test: rolling origin. Every row of the test part is a target: origin o predicts
//   rows o+1 .. o+H (inside the part) from the T rows up to o, which may reach back into the
//   validation and train parts (x (N, T, C), y (N, 1, H·C), scored at the last position).
//   Validation does the same on its part, with at most validation_size origins spread evenly.
//   So a 100-row series has 15 validation and 15 test targets whatever T is.
// - T: options.length, or with length 0 ("auto") a quarter of the train rows within
//   [kAutoLengthMin, kAutoLengthMax] (and short enough for one training window): long enough for
//   a yearly season of monthly data on the classic 100–300-row series, at most 64 on long ones.
// - Normalisation: mean and std per column fitted on the train part (the tensors' units);
//   options.norm says what the model sees (TaskData::norm).
// - Columns: options.target selects columns by name or 1-based number ("" = all).
// The data depend only on the file and the options: the seed does not change them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/io/csv_reader.h"
#include "engine/tasks/series_windows.h"
#include "engine/tasks/task.h"

namespace rsalab {

constexpr int64_t kAutoLengthMin = 4;
constexpr int64_t kAutoLengthMax = 64;

// `table` after options.target's column selection. Throws std::invalid_argument naming the
// column when a target is not in the table.
CsvTable selectTargetColumns(const CsvTable& table, const std::string& target,
                             const std::string& source);
// T for `rows` rows of which the first 70% train (options.length, or auto when it is 0).
int64_t resolveSeriesLength(int64_t rows, const TaskOptions& options);

SeriesLayout makeCsvLayout(const CsvTable& table, const TaskOptions& options, int64_t train_size,
                           const std::string& source);
TaskData makeCsvTaskFromTable(const CsvTable& table, const TaskOptions& options, int64_t train_size,
                              const std::string& source, const TaskBuild& build = {});
// "csv" reads options.csv_path; a bundled series reads its resources/series file.
TaskData makeCsvTask(const TaskOptions& options, int64_t train_size, const TaskBuild& build = {});
// The CsvTable of a real-series task (after the target selection) and its display name.
CsvTable readSeriesTable(const TaskOptions& options, std::string* source);

// The parsed file behind readSeriesTable, parsed once while it stays the same file (path, size and
// modification time): a sweep asks for its series once per requested size (actualTrainSize) and
// once per dataset it builds, and every ask after the first is served from here. The last few
// files are kept; a file that cannot be looked at is parsed (and its error thrown) every time.
std::shared_ptr<const CsvTable> parsedSeriesFile(const std::string& path);
// How many times a series file has been parsed since the program started (tests count them).
int64_t seriesFileParses();

}  // namespace rsalab
