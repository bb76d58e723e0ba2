#include "engine/training/metrics.h"

namespace rsalab {

std::string stopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::None:
      return "running";
    case StopReason::MaxSteps:
      return "max steps";
    case StopReason::EarlyStop:
      return "early stop (validation plateau)";
    case StopReason::WallTime:
      return "wall-time budget";
    case StopReason::Requested:
      return "stopped";
    case StopReason::Diverged:
      return "diverged (non-finite loss or gradient)";
  }
  return "?";
}

}  // namespace rsalab
