// SPDX-License-Identifier: GPL-3.0-or-later
// What rsalab-cli says and writes about a finished run's test evaluation: result.json (metrics,
// the N used and asked for, the task's references and the model's skill against them) and the
// closing lines (each reference's test loss beside the model's). Shared by train and report.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "engine/core/forecast/metrics.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/tasks/task.h"

namespace rsalab {

class Trainer;

// result.json of `train`: split, step, loss, stop_reason, parameters, every metric, train_size
// (the N used), train_size_requested, length (T used), best_step (restore_best), "references"
// [{name, label, validation_loss, test_loss, test_mase, test_errors}], "skill" {reference name:
// 1 − loss / its loss}, the best reference's skill with "skill_vs_best_anchor_ci95" [lo, hi],
// "skill_vs_best_anchor_dm_p", "skill_vs_best_anchor_verdict" (beats | ties | loses by DM at
// 5 %, or "too few test targets to decide" below N_min; engine/core/forecast/skill_interval.h)
// and the model's per-target "test_errors".
// With the task's Bayes floor: "bayes_floor", "excess_loss" (loss − floor), "floor_note"; with REM
// matches: "rem_truth" {meaning, recovered, tolerance, heads: [{layer, head, kind, learned_…,
// matched, true_…, delta_…, rel_frobenius}]}.
std::string resultJson(const EvalMetrics& test, const Trainer& trainer,
                       const std::vector<HeadMatch>& matches = {});
// The trained model's REM heads against the task's truth (empty: no truth, or no REMs).
std::vector<HeadMatch> remMatches(Trainer& trainer);
// "Bayes floor … excess loss …" and one line per REM head with the verdict; empty when neither.
std::string remTruthLines(const std::vector<HeadMatch>& matches, const TaskData& data,
                          double test_loss = std::numeric_limits<double>::quiet_NaN());
// "baselines on the same 22 test targets: persistence 0.0456 (model skill +0.73), …" lines; empty
// when the task has no references.
std::string referenceLines(const EvalMetrics& test, const TaskData& data);
// The task's notes, "warning: " for a capped N and "note: " otherwise, one per line.
std::string taskNotes(const TaskData& data);

}  // namespace rsalab
