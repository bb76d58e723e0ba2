// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/metrics.h"

#include <cmath>
#include <limits>

#include "engine/core/io/enums.h"

namespace rsalab {

namespace {
const EnumName<StopReason> kStopReasons[] = {
    {StopReason::MaxSteps, "max steps"},
    {StopReason::EarlyStop, "early stop (validation plateau)"},
    {StopReason::WallTime, "wall-time budget"},
    {StopReason::Diverged, "diverged (non-finite loss or gradient)"}};
}  // namespace

namespace {
const EnumName<Baseline> kBaselines[] = {{Baseline::Mean, "mean"},
                                         {Baseline::Persistence, "persistence"},
                                         {Baseline::SeasonalNaive, "seasonal_naive"},
                                         {Baseline::ArLsq, "ar_lsq"}};
}  // namespace

const char* baselineName(Baseline baseline) { return nameOf(kBaselines, baseline); }

std::string stopReasonName(StopReason reason) {
  if (reason == StopReason::None) return runStateName(RunState::Running);  // still running
  // a stop asked for ends the run in the stopped state
  if (reason == StopReason::Requested) return runStateName(RunState::Stopped);
  return nameOf(kStopReasons, reason);
}

std::optional<StopReason> parseStopReason(const std::string& name) {
  if (name == runStateName(RunState::Running)) return StopReason::None;
  if (name == runStateName(RunState::Stopped)) return StopReason::Requested;
  return parseName(kStopReasons, name);
}

const ReferenceScore* findReference(const std::vector<ReferenceScore>& references,
                                    const std::string& name) {
  for (const auto& r : references) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const ReferenceScore* bestAnchor(const std::vector<ReferenceScore>& references) {
  const ReferenceScore* best = nullptr;
  for (const auto& r : references) {
    if (std::isfinite(r.validation_loss) && (!best || r.validation_loss < best->validation_loss))
      best = &r;
  }
  return best;
}

double skillVersusBest(double loss, const std::vector<ReferenceScore>& references, bool on_test) {
  const auto* best = bestAnchor(references);
  const double base = best ? (on_test ? best->test_loss : best->validation_loss) : 0.0;
  if (!(base > 0) || !std::isfinite(loss)) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 - loss / base;
}

double skillVersus(double test_loss, const std::vector<ReferenceScore>& references,
                   const std::string& name) {
  const auto* r = findReference(references, name);
  if (!r || !(r->test_loss > 0) || !std::isfinite(test_loss))
    return std::numeric_limits<double>::quiet_NaN();
  return 1.0 - test_loss / r->test_loss;
}

}  // namespace rsalab
