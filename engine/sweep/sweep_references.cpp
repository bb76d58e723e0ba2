// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/sweep/sweep_references.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "engine/core/io/text.h"

namespace rsalab {

std::vector<int64_t> honestSweepSizes(const SweepOptions& options,
                                      std::vector<std::string>* notes) {
  std::map<int64_t, std::vector<int64_t>> by_n;  // N used → sizes asked
  for (int64_t asked : options.sizes) {
    const int64_t n = actualTrainSize(options.base.task, asked, options.base.trainer.seed);
    by_n[n].push_back(asked);
  }
  std::vector<int64_t> sizes;
  for (const auto& [n, asked] : by_n) {
    sizes.push_back(n);
    if (!notes || (asked.size() == 1 && asked.front() == n)) continue;
    const std::string list = joined(asked, ", ", [](int64_t a) { return std::to_string(a); });
    notes->push_back("sizes " + list + " all give N = " + std::to_string(n) +
                     " training windows on " + options.base.task.name +
                     ": run once as N = " + std::to_string(n));
  }
  return sizes;
}

int64_t requestedSize(const SweepOptions& options, int64_t n) {
  std::vector<int64_t> asked = options.sizes;
  std::sort(asked.begin(), asked.end());
  for (int64_t a : asked) {
    if (a >= n) return a;  // the smallest size asked that is not below the N it gave
  }
  return n;
}

bool SweepDatasetKey::operator<(const SweepDatasetKey& o) const {
  // NaN (no axis) compares equal to NaN here: every key of a sweep is NaN or none is.
  const double a = std::isnan(axis_value) ? 0 : axis_value;
  const double b = std::isnan(o.axis_value) ? 0 : o.axis_value;
  return std::tie(a, size, seed) < std::tie(b, o.size, o.seed);
}

TaskOptions sweepTaskOptions(const SweepOptions& options, double axis_value) {
  if (options.axis.empty()) return options.base.task;
  return withTaskParameter(options.base, options.axis.name, axis_value).task;
}

void appendReferenceRows(const SweepOptions& options, const SweepDatasets& datasets,
                         SweepResult& result) {
  for (const auto& [key, data] : datasets) {
    if (!data) continue;
    for (const auto& r : data->references) {
      SweepRow row;
      row.run = static_cast<int64_t>(result.rows.size());
      row.model = r.name;
      row.size = data->train.size();
      row.requested_size = requestedSize(options, row.size);
      row.seed = key.seed;
      row.axis_value = key.axis_value;
      row.reference = true;
      row.test_loss = r.test_loss;
      row.bayes_floor = data->truth.bayes_floor;  // the same floor: excess loss for baselines too
      row.best_validation = r.validation_loss;
      row.test_errors = r.test_errors;
      if (std::isfinite(r.test_mase)) row.test_metrics["mase"] = r.test_mase;
      row.horizon = data->horizon;
      row.season = std::max<int64_t>(1, data->season.period);
      result.rows.push_back(row);
    }
  }
}

void appendReferenceRows(const SweepOptions& options, SweepResult& result) {
  SweepDatasets datasets;
  for (const auto& r : result.rows) {
    if (r.reference || r.model.empty() || !r.error.empty()) continue;
    auto& slot = datasets[{r.axis_value, r.size, r.seed}];
    if (!slot) {
      slot = std::make_shared<const TaskData>(
          makeTask(sweepTaskOptions(options, r.axis_value), r.size, r.seed));
    }
    if (slot->references.empty()) return;  // a task without references: nothing to add
  }
  appendReferenceRows(options, datasets, result);
}

}  // namespace rsalab
