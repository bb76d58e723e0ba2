// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/recurrence_claim.h"

#include <cmath>
#include <limits>
#include <map>

#include "engine/core/forecast/power_law.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/memory_horizon.h"

namespace rsalab {

namespace {

// A run's last inspection record: in the row, or in its run folder (a GUI sweep keeps it there);
// read only where the row has no regular_decays (rows written before them).
bool rowRecord(const SweepRow& row, InspectionRecord& out) {
  if (!row.has_inspection) return false;
  if (!row.inspection.layers.empty() || row.files.empty()) {
    out = row.inspection;
    return true;
  }
  const std::string file = row.files + "/inspection.json";
  try {
    out = inspectionFromJson(readTextFile(file, size_t{1} << 30), file);
    return true;
  } catch (const std::exception&) {
    return false;  // a missing or unreadable record: the run does not count
  }
}

RecoveredDecay summarise(const std::string& model, std::vector<double> values) {
  RecoveredDecay r{model, std::move(values)};
  const double n = static_cast<double>(r.values.size());
  for (double v : r.values) r.mean += v / n;
  double ss = 0;
  for (double v : r.values) ss += (v - r.mean) * (v - r.mean);
  const double sd = r.values.size() > 1 ? std::sqrt(ss / (n - 1)) : 0;
  r.half_width = r.values.size() > 1
                     ? studentT975(static_cast<int64_t>(r.values.size()) - 1) * sd / std::sqrt(n)
                     : 0;
  return r;
}

}  // namespace

double recoveredDecay(const std::vector<double>& decays, double lambda) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (double v : decays)
    if (!(std::fabs(v - lambda) >= std::fabs(best - lambda))) best = v;  // a NaN best: take v
  return best;
}

double recoveredDecay(const InspectionRecord& record, double lambda) {
  return recoveredDecay(regularDecays(record), lambda);
}

ClaimVerdict sameRecurrenceVerdict(const std::vector<SweepRow>& rows,
                                   const std::vector<std::string>& models) {
  ClaimVerdict v;
  v.claim = joined(models, " and ") +
            " recover the same recurrence: each model's learned decay "
            "nearest the teacher's λ, over seeds, lies within its seeds' spread of λ (± " +
            formatNumber(kRecoveryTolerance) + ").";
  const SweepRow* first = nullptr;
  for (const auto& row : rows)
    if (!row.reference && row.ok()) first = first ? first : &row;
  if (!first) {
    v.detail = "no trained runs yet";
    return v;
  }
  const std::vector<double> lambdas = first->truth.lambdas();
  if (lambdas.empty()) {
    v.decided = true;
    v.detail = "the task has no regular recurrence λ to recover (" +
               (first->truth.description.empty() ? std::string("no known truth")
                                                 : first->truth.description) +
               ")";
    return v;
  }
  const double lambda = std::fabs(lambdas.front());
  std::map<std::string, std::vector<double>> per_model;
  for (const auto& row : rows) {
    if (row.reference || !row.ok()) continue;
    double d = recoveredDecay(row.regular_decays, lambda);
    InspectionRecord record;
    if (row.regular_decays.empty() && rowRecord(row, record)) d = recoveredDecay(record, lambda);
    if (d == d) per_model[row.model].push_back(d);
  }
  int recovered = 0, missed = 0;
  std::string detail = "true λ = " + formatNumber(lambda);
  for (const auto& model : models) {
    const auto it = per_model.find(model);
    const size_t n = it == per_model.end() ? 0 : it->second.size();
    if (n < 2) {
      v.detail = model + " has " + std::to_string(n) +
                 " inspected seed(s) with a decay; the spread needs 2 or more";
      return v;
    }
    const RecoveredDecay r = summarise(model, it->second);
    const double off = std::fabs(r.mean - lambda);
    const bool misses = off > r.half_width + kRecoveryTolerance;
    const bool agrees = !misses && r.half_width <= kSameRecurrenceWidth;
    recovered += agrees;
    missed += misses;
    detail += "; " + model + " " + formatNumber(r.mean, 4) + " ± " + formatNumber(r.half_width, 3) +
              " over " + std::to_string(n) + " seeds (" +
              (misses   ? "misses λ"
               : agrees ? "recovers λ"
                        : "seeds too spread to say") +
              ")";
  }
  v.detail = detail;
  if (missed > 0) {
    v.decided = true;
  } else if (recovered == static_cast<int>(models.size())) {
    v.decided = v.holds = true;
  } else {
    v.inconclusive = true;
  }
  return v;
}

}  // namespace rsalab
