// The task registry: names, one-line descriptions, shared option checks and dispatch to the
// task families (one file each).
#include "engine/tasks/task.h"

#include <algorithm>
#include <stdexcept>

#include "engine/tasks/csv_series.h"
#include "engine/tasks/regular_languages.h"
#include "engine/tasks/seq2seq_tasks.h"
#include "engine/tasks/synthetic_series.h"
#include "engine/tasks/task_limits.h"
#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_task.h"
#include "engine/tasks/text_tasks.h"

namespace rsalab {
namespace {

constexpr int64_t kMaxLength = kMaxTaskLength;
constexpr int64_t kMaxValues = kMaxTaskValues;  // tokens or time steps over all splits

struct TaskInfo {
  const char* name;
  const char* description;
};

const std::vector<TaskInfo> kTasks = {
    {"seasonal", "forecast AR(1) + damped seasonal components + noise (known λ, γ, θ)"},
    {"ar", "forecast a sum of AR(1) components + noise (known λ)"},
    {"teacher", "identify a linear-recurrence teacher y_t = Σ_{s<t} base^(t−s)[cos θ(t−s)] x_s"},
    {"parity", "classify binary strings: odd number of 1s; longer test strings"},
    {"dyck1", "classify bracket strings: balanced (Dyck-1); longer test strings"},
    {"tomita1", "classify binary strings: Tomita 1, 1*; longer test strings"},
    {"tomita2", "classify binary strings: Tomita 2, (10)*; longer test strings"},
    {"tomita3",
     "classify binary strings: Tomita 3, no odd run of 0s after an odd run of 1s; longer test "
     "strings"},
    {"tomita4", "classify binary strings: Tomita 4, no 000; longer test strings"},
    {"tomita5", "classify binary strings: Tomita 5, even 0s and even 1s; longer test strings"},
    {"tomita6", "classify binary strings: Tomita 6, #0 − #1 ≡ 0 mod 3; longer test strings"},
    {"tomita7", "classify binary strings: Tomita 7, 0*1*0*1*; longer test strings"},
    {"charlm", "next-character language model on a public-domain text (or text_path)"},
    {"copy", "seq2seq: copy a random symbol sequence"},
    {"reverse", "seq2seq: reverse a random symbol sequence"},
    {"mlm", "StarSaber MLM pretraining: restore text characters, 30% redrawn each epoch"},
    {"csv", "forecast every column of a CSV time series (csv_path)"},
};

}  // namespace

std::string objectiveName(Objective objective) {
  switch (objective) {
    case Objective::Regression:
      return "regression";
    case Objective::Classification:
      return "classification";
    case Objective::LanguageModel:
      return "language_model";
    case Objective::Seq2Seq:
      return "seq2seq";
  }
  return "unknown";
}

const std::vector<std::string>& taskNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& t : kTasks) n.emplace_back(t.name);
    return n;
  }();
  return names;
}

std::string taskDescription(const std::string& name) {
  for (const auto& t : kTasks) {
    if (name == t.name) return t.description;
  }
  return "";
}

TaskData makeTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  using task_support::requireRange;
  if (taskDescription(o.name).empty()) {
    std::string all;
    for (const auto& n : taskNames()) all += (all.empty() ? "" : ", ") + n;
    throw std::invalid_argument("task '" + o.name + "' is unknown: use " + all);
  }
  requireRange("train_size", train_size, 1, kMaxTrainSize);
  requireRange("validation_size", o.validation_size, 1, kMaxEvalSize);
  requireRange("test_size", o.test_size, 1, kMaxEvalSize);
  const bool language = isRegularLanguageTask(o.name);
  if (!language) requireRange("length", o.length, 1, kMaxLength);
  const int64_t width = language ? std::max<int64_t>(o.test_max_length, 1) : o.length;
  const int64_t sequences = train_size + o.validation_size + o.test_size;
  if (sequences > kMaxValues / width) {
    throw std::invalid_argument(
        "train_size + validation_size + test_size = " + std::to_string(sequences) +
        " sequences of " + std::to_string(width) + " steps exceed " + std::to_string(kMaxValues) +
        " values: use fewer or shorter sequences");
  }

  TaskData data;
  if (isSyntheticSeriesTask(o.name)) {
    data = makeSyntheticSeriesTask(o, train_size, seed);
  } else if (o.name == "teacher") {
    data = makeTeacherTask(o, train_size, seed);
  } else if (language) {
    data = makeRegularLanguageTask(o, train_size, seed);
  } else if (isTextTask(o.name)) {
    data = makeTextTask(o, train_size, seed);
  } else if (isSeq2SeqTask(o.name)) {
    data = makeSeq2SeqTask(o, train_size, seed);
  } else {
    data = makeCsvTask(o, train_size);
  }
  data.name = o.name;
  return data;
}

}  // namespace rsalab
