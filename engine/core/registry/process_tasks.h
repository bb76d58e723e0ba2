// SPDX-License-Identifier: GPL-3.0-or-later
// Which tasks read TaskOptions::teacher_process (engine/core/registry/task_registry.h's families:
// the teacher, the mix and the synthetic series), for the run form and the claims' ground
// (engine/core/verdicts/claims.h, claimGround). Plain C++.
#pragma once

#include <string>

namespace rsalab {

// Whether task `name` reads TaskOptions::teacher_process; false when it is unknown.
bool readsTeacherProcess(const std::string& name);

}  // namespace rsalab
