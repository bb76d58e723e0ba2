#include "engine/training/metrics.h"

#include "engine/core/names.h"

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

}  // namespace rsalab
