// SPDX-License-Identifier: GPL-3.0-or-later
// The task list: one row per task, read by the task builder's dispatch, the CLI's `tasks`
// command, the GUI's task box and the run-config check that keeps bidirectional models off
// next-step tasks. Plain C++: no LibTorch, no Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/io/enums.h"

namespace rsalab {

enum class Objective {
  Regression,      // x (N, T, F) float, y (N, T, O) float; MSE / MAE
  Classification,  // x (N, T) int64 right-padded with io.pad_token, y (N) int64; accuracy / CE
  LanguageModel,   // x (N, T) int64, y (N, T) int64 tokens; CE, bits per character
  Seq2Seq,         // x (N, Ts) int64 source, y (N, Tt) int64 target, target_in (N, Tt)
};
// regression | classification | language_model | seq2seq
std::string objectiveName(Objective objective);

// Which builder makes the task (makeTask switches on it, engine/tasks/task.cpp) and which checks
// its options take (task_validation.cpp): one builder per family, in its own file.
enum class TaskFamily {
  SyntheticSeries,  // seasonal, ar: engine/tasks/synthetic_series.h
  Teacher,          // a linear-recurrence teacher: engine/tasks/teacher_task.h
  Mix,              // teacher + key lookup: engine/tasks/mix_task.h
  Language,         // regular-language classification: engine/tasks/regular_languages.h
  Text,             // charlm, mlm: engine/tasks/text_tasks.h
  Seq2Seq,          // copy, reverse: engine/tasks/seq2seq_tasks.h
  Csv,              // a recorded series, csv_path or bundled: engine/tasks/csv_series.h
};
const char* taskFamilyName(TaskFamily family);  // synthetic_series | teacher | … | csv

struct TaskInfo {
  const char* name;         // as given to --task, saved in configs and bundles
  const char* description;  // one line (`rsalab-cli tasks`, the GUI's task box)
  TaskFamily family;
  Objective objective;
  // The target at position t is a later value of the input itself (the next value, character or
  // the next `horizon` values): a model that sees positions after t would see its own answer, so
  // these tasks need a causal model.
  bool next_step;
  // Bundled real series (resources/series/<file>, see resources/series/README.md); nullptr for
  // every other task. The Csv family (these and the csv_path task) are the real-series tasks.
  const char* series_file = nullptr;
  // The series is the user's file TaskOptions::csv_path (imported by drag and drop, File > Import
  // CSV or --csv); the task box lists it only once a file is imported. One row ("csv") has it.
  bool reads_csv_path = false;
};

// Every task, in the order `rsalab-cli tasks` lists them.
const std::vector<TaskInfo>& taskRegistry();
// nullptr when `name` is unknown.
const TaskInfo* findTask(const std::string& name);
// Every name, in registry order.
const std::vector<std::string>& taskNames();
// The row's description; "" when `name` is unknown.
std::string taskDescription(const std::string& name);
// "seasonal, ar, …" for messages and help texts.
std::string taskNameList();
// A forecasting task on a recorded series (csv or a bundled series): rolling-origin validation and
// test, real-series defaults (realSeriesDefaults in engine/core/config/run_config.h).
bool isRealSeriesTask(const std::string& name);
// The task whose series is the user's CSV file (the row with reads_csv_path): "csv".
const std::string& csvPathTaskName();
// Whether task `name` reads TaskOptions::csv_path (false when it is unknown).
bool readsCsvPath(const std::string& name);
// The family of task `name`; nullopt when it is unknown.
std::optional<TaskFamily> taskFamily(const std::string& name);
// The names of one family's tasks, in registry order (the regular languages, …).
std::vector<std::string> taskNamesOf(TaskFamily family);
// The bundled series' names, in registry order ("airpassengers", …).
std::vector<std::string> bundledSeriesNames();

// The teacher processes of the `teacher` and `mix` tasks (TaskOptions::teacher_process), one row
// each, in EnumTable<TeacherProcess> order: the one-line description `rsalab-cli tasks`, --help
// and the GUI's task form show. rem's says "RSA's home ground" (its kernels are RSA's REMs).
// The same processes drive the series tasks `seasonal` and `ar` (engine/tasks/series_process.h):
// `series` is their one line there.
struct TeacherProcessInfo {
  TeacherProcess process;
  const char* description;
  const char* series;
};
const std::vector<TeacherProcessInfo>& teacherProcessRegistry();
std::string teacherProcessDescription(TeacherProcess process);
// How rem is labelled wherever it is shown (its kernels are RSA's own REMs).
constexpr const char* kRemHomeGround = "RSA's home ground";
// The name as shown beside results: "rem, RSA's home ground"; the others' names.
std::string teacherProcessLabel(TeacherProcess process);
// --teacher-process's help: the processes, one line each.
std::string teacherProcessHelp();
// "reach": the lag by which Σ|w_k| reaches kReachShare of its total over k = 1..kReachLength, the
// one rule that matches the processes' difficulty (engine/tasks/teacher_process.h computes it).
constexpr double kReachShare = 0.9;
constexpr int kReachLength = 32;

}  // namespace rsalab
