// What rsalab-cli says and writes about a finished run's test evaluation: result.json (metrics,
// the N used and asked for, the task's references and the model's skill against them) and the
// closing lines (each reference's test loss beside the model's). Shared by train and report.
#pragma once

#include <string>
#include <vector>

#include "engine/tasks/task.h"
#include "engine/training/metrics.h"

namespace rsalab {

class Trainer;

// result.json of `train`: split, step, loss, stop_reason, parameters, every metric, train_size
// (the N used), train_size_requested, length (T used), best_step (restore_best), "references"
// [{name, label, validation_loss, test_loss}] and "skill" {reference name: 1 − loss / its loss}.
std::string resultJson(const EvalMetrics& test, const Trainer& trainer);
// "baselines on the same 22 test targets: persistence 0.0456 (model skill +0.73), …" lines; empty
// when the task has no references.
std::string referenceLines(double test_loss, const TaskData& data);
// The task's notes, "warning: " for a capped N and "note: " otherwise, one per line.
std::string taskNotes(const TaskData& data);

}  // namespace rsalab
