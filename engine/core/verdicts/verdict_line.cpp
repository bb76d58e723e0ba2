// SPDX-License-Identifier: GPL-3.0-or-later
// A verdict in words (claims.h: verdictLine, verdictOutcome, claimGround).
#include <string>

#include "engine/core/registry/process_tasks.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/verdicts/claims.h"

namespace rsalab {

const char* verdictOutcome(const ClaimVerdict& v) {
  return v.decided        ? (v.holds ? "holds" : "does not hold")
         : v.inconclusive ? "inconclusive"
                          : "undecided";
}

std::string verdictLine(const ClaimVerdict& v, const std::string& ground) {
  const std::string outcome = !ground.empty()         ? verdictOutcome(v) + (" " + ground)
                              : v.decided && !v.holds ? "does not hold here"
                                                      : verdictOutcome(v);
  return outcome + ": " + v.claim + " — " + v.detail;
}

std::string claimGround(const std::string& task, TeacherProcess process) {
  if (!readsTeacherProcess(task)) return "";
  return process == TeacherProcess::Rem ? std::string("on ") + kRemHomeGround + " (rem)"
                                        : "on the " + std::string(enumName(process)) + " process";
}

}  // namespace rsalab
