// SPDX-License-Identifier: GPL-3.0-or-later
// Building a task: shared option checks and dispatch to the task families (one file each). The
// task list itself is engine/core/registry/task_registry.h.
#include "engine/tasks/task.h"

#include <algorithm>
#include <stdexcept>

#include "engine/core/config/run_config.h"  // usesLongHorizonProtocol
#include "engine/core/config/task_limits.h"
#include "engine/core/forecast/anchors.h"
#include "engine/core/io/text.h"  // formatNumber
#include "engine/tasks/csv_series.h"
#include "engine/tasks/long_horizon_task.h"
#include "engine/tasks/mix_task.h"
#include "engine/tasks/regular_languages.h"
#include "engine/tasks/seq2seq_tasks.h"
#include "engine/tasks/synthetic_series.h"
#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_task.h"
#include "engine/tasks/text_tasks.h"

namespace rsalab {
namespace {

constexpr int64_t kMaxLength = kMaxTaskLength;
constexpr int64_t kMaxValues = kMaxTaskValues;  // tokens or time steps over all splits

}  // namespace

TaskData makeTask(const TaskOptions& o, int64_t train_size, uint64_t seed, const TaskBuild& build) {
  using task_support::requireRange;
  const TaskInfo* task = findTask(o.name);
  if (!task) {
    throw std::invalid_argument("task '" + o.name + "' is unknown: use " + taskNameList());
  }
  requireRange("train_size", train_size, 1, kMaxTrainSize);
  requireRange("validation_size", o.validation_size, 1, kMaxEvalSize);
  requireRange("test_size", o.test_size, 1, kMaxEvalSize);
  const bool language = task->family == TaskFamily::Language;
  const bool real_series = task->family == TaskFamily::Csv;
  if (!language) requireRange("length", o.length, real_series ? 0 : 1, kMaxLength);  // 0 = auto
  const int64_t width = std::max<int64_t>(1, language ? o.test_max_length : o.length);
  const int64_t sequences = train_size + o.validation_size + o.test_size;
  if (sequences > kMaxValues / width) {
    throw std::invalid_argument(
        "train_size + validation_size + test_size = " + std::to_string(sequences) +
        " sequences of " + std::to_string(width) + " steps exceed " + std::to_string(kMaxValues) +
        " values: use fewer or shorter sequences");
  }

  TaskData data;
  switch (task->family) {
    case TaskFamily::SyntheticSeries:
      data = makeSyntheticSeriesTask(o, train_size, seed);
      break;
    case TaskFamily::Teacher:
      data = makeTeacherTask(o, train_size, seed);
      break;
    case TaskFamily::Mix:
      data = makeMixTask(o, train_size, seed);
      break;
    case TaskFamily::Language:
      data = makeRegularLanguageTask(o, train_size, seed);
      break;
    case TaskFamily::Text:
      data = makeTextTask(o, train_size, seed);
      break;
    case TaskFamily::Seq2Seq:
      data = makeSeq2SeqTask(o, train_size, seed);
      break;
    case TaskFamily::Csv:
      data = usesLongHorizonProtocol(o) ? makeLongHorizonTaskData(o, build)
                                        : makeCsvTask(o, train_size, build);
      break;
  }
  data.name = o.name;
  // RevIN's affine belongs to the model (engine/training/series_norm.h)
  data.io.revin =
      data.objective == Objective::Regression && data.norm == normModeName(NormMode::Revin);
  if (data.requested_train_size == 0) data.requested_train_size = train_size;
  return data;
}

forecast::AnchorScores fitAnchors(TaskData& data, const forecast::AnchorProgressFn& progress) {
  if (!data.pending_anchors) return {};
  forecast::AnchorInput input = *data.pending_anchors;
  input.progress = progress;
  auto anchors = forecast::computeAnchors(input);
  auto readout = anchorReadout(data.anchors_as_notes, anchors);
  data.references.insert(data.references.end(), readout.references.begin(),
                         readout.references.end());
  data.notes.insert(data.notes.end(), readout.notes.begin(), readout.notes.end());
  data.pending_anchors.reset();
  return anchors;
}

AnchorReadout anchorReadout(bool as_notes, const forecast::AnchorScores& anchors) {
  AnchorReadout out;
  if (as_notes) {
    for (const auto& a : anchors.scores)
      out.notes.push_back("anchor " + a.label + " on OT alone: validation MSE " +
                          formatNumber(a.validation_loss, 4) + ", test MSE " +
                          formatNumber(a.test_loss, 4));
  } else {
    addAnchors(out.references, anchors);
  }
  out.notes.insert(out.notes.end(), anchors.notes.begin(), anchors.notes.end());
  return out;
}

void addAnchors(std::vector<ReferenceScore>& references, const forecast::AnchorScores& anchors) {
  references.insert(references.end(), anchors.scores.begin(), anchors.scores.end());
}

int64_t actualTrainSize(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  (void)seed;  // only the real series can have fewer windows than asked; their data ignore it
  if (!isRealSeriesTask(o.name)) return train_size;
  if (usesLongHorizonProtocol(o)) {  // every train window of the protocol
    const auto t = longHorizonTaskOptions(o);
    std::string source;
    const auto table = readSeriesTable(o, &source);
    return static_cast<int64_t>(
        forecast::longHorizonWindows(forecast::kEttHourSplit, table.rows, t.input_length, t.horizon)
            .train.size());
  }
  std::string source;
  const auto table = readSeriesTable(o, &source);
  return static_cast<int64_t>(makeCsvLayout(table, o, train_size, source).train_starts.size());
}

}  // namespace rsalab
