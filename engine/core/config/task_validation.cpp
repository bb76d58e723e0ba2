// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/task_validation.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/core/config/task_limits.h"
#include "engine/core/registry/task_registry.h"

namespace rsalab {
namespace {

void requireInt(const std::string& field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return;
  std::ostringstream s;
  s << field << " = " << value << " is out of range: " << lo << ".." << hi;
  throw std::invalid_argument(s.str());
}

void requireReal(bool ok, const std::string& field, double value, const std::string& range) {
  if (ok && std::isfinite(value)) return;
  std::ostringstream s;
  s << field << " = " << value << " is out of range: " << range;
  throw std::invalid_argument(s.str());
}

std::string indexed(const char* field, size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

constexpr size_t kMaxListEntries = 64;  // poles, periods, teacher terms

void requireListSize(const char* field, size_t size) {
  if (size <= kMaxListEntries) return;
  throw std::invalid_argument(std::string(field) + " has " + std::to_string(size) +
                              " entries; the limit is " + std::to_string(kMaxListEntries));
}

}  // namespace

void validate(const TaskOptions& o, int64_t train_size) {
  requireInt("train_size", train_size, 1, kMaxTrainSize);
  const auto family = taskFamily(o.name);
  const bool language = family == TaskFamily::Language;
  // The ranges a task narrows, before the table's ranges (taskOptionTable) of every field.
  if (language) {
    requireInt("task.min_length", o.min_length, 1, kMaxTaskLanguageLength - 1);
    requireInt("task.max_length", o.max_length, o.min_length, kMaxTaskLanguageLength - 1);
    requireInt("task.test_max_length", o.test_max_length, o.max_length + 1, kMaxTaskLanguageLength);
  } else {
    // 0 = auto for the real series (a T that fits, chosen when the task is built)
    requireInt("task.length", o.length, family == TaskFamily::Csv ? 0 : 1, kMaxTaskLength);
  }
  checkRanges(taskOptionTable(), o, "task.");
  const int64_t width = std::max<int64_t>(1, language ? o.test_max_length : o.length);
  const int64_t sequences = train_size + o.validation_size + o.test_size;
  if (sequences > kMaxTaskValues / width) {
    throw std::invalid_argument(
        "train_size + validation_size + test_size = " + std::to_string(sequences) +
        " sequences of " + std::to_string(width) + " steps exceed " +
        std::to_string(kMaxTaskValues) + " values: use fewer or shorter sequences");
  }
  requireListSize("task.ar_poles", o.ar_poles.size());
  requireListSize("task.periods", o.periods.size());
  requireListSize("task.dampings", o.dampings.size());
  requireListSize("task.teacher_kinds", o.teacher_kinds.size());
  requireListSize("task.teacher_bases", o.teacher_bases.size());
  requireListSize("task.teacher_thetas", o.teacher_thetas.size());
  for (size_t i = 0; i < o.ar_poles.size(); ++i) {
    requireReal(std::abs(o.ar_poles[i]) < 1, indexed("task.ar_poles", i), o.ar_poles[i], "(-1, 1)");
  }
  for (size_t i = 0; i < o.periods.size(); ++i) {
    requireReal(o.periods[i] >= 2 && o.periods[i] <= 1e6, indexed("task.periods", i), o.periods[i],
                "[2, 1000000]");
  }
  for (size_t i = 0; i < o.dampings.size(); ++i) {
    requireReal(o.dampings[i] >= 0 && o.dampings[i] < 1, indexed("task.dampings", i), o.dampings[i],
                "[0, 1)");
  }
  for (size_t i = 0; i < o.teacher_bases.size(); ++i) {
    requireReal(std::abs(o.teacher_bases[i]) < 1, indexed("task.teacher_bases", i),
                o.teacher_bases[i], "(-1, 1)");
  }
  for (size_t i = 0; i < o.teacher_thetas.size(); ++i) {
    const bool cos = i < o.teacher_kinds.size() && o.teacher_kinds[i] == TeacherKind::Cos;
    const double t = o.teacher_thetas[i];
    requireReal(!cos || (t >= 0 && t <= M_PI), indexed("task.teacher_thetas", i), t, "[0, pi]");
  }
  requireReal(o.teacher_decay_min <= o.teacher_decay_max, "task.teacher_decay_min",
              o.teacher_decay_min, "[0, task.teacher_decay_max]");
  requireReal(o.series_decay_min <= o.series_decay_max, "task.series_decay_min", o.series_decay_min,
              "[0, task.series_decay_max]");
  if (o.teacher_process == TeacherProcess::Power &&
      (family == TaskFamily::Teacher || family == TaskFamily::Mix)) {
    // its sum over s < t is literal (engine/tasks/teacher_process.h)
    requireInt("task.length (teacher_process power)", o.length, 1, 4096);
  }
  if (o.target.size() > 4096 || o.target.find('\0') != std::string::npos) {
    throw std::invalid_argument(
        "task.target is not a usable column list (over 4096 bytes or a NUL byte)");
  }
  if (readsCsvPath(o.name) && o.csv_path.empty()) {
    throw std::invalid_argument("task.csv_path is empty: the " + o.name + " task needs a CSV file");
  }
  for (const std::string* path : {&o.csv_path, &o.text_path}) {
    if (path->size() > 4096 || path->find('\0') != std::string::npos) {
      throw std::invalid_argument(
          std::string(path == &o.csv_path ? "task.csv_path" : "task.text_path") +
          " is not a usable file name (over 4096 bytes or a NUL byte)");
    }
  }
}

}  // namespace rsalab
