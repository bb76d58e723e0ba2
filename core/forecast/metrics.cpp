#include "core/forecast/metrics.h"

#include <cmath>
#include <limits>

#include "core/config/enums.h"

namespace rsalab {

std::string stopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::None:  // still running
      return runStateName(RunState::Running);
    case StopReason::MaxSteps:
      return "max steps";
    case StopReason::EarlyStop:
      return "early stop (validation plateau)";
    case StopReason::WallTime:
      return "wall-time budget";
    case StopReason::Requested:  // a stop asked for ends the run in the stopped state
      return runStateName(RunState::Stopped);
    case StopReason::Diverged:
      return "diverged (non-finite loss or gradient)";
  }
  return "?";
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
