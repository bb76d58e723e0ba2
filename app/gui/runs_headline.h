// SPDX-License-Identifier: GPL-3.0-or-later
// The headline over the views when runs start: what trains on which task at which N, the Bayes
// floor and early stopping; a preset's claim first; the default launch adds its measured
// first-minute summary.
#pragma once

#include <QString>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/session/run_record.h"

namespace rsalab {

// `preset` (a preset's claim) first when not empty. `runs` is not empty.
QString runsHeadline(const std::vector<RunDescriptor>& runs, const RunConfig& config,
                     const QString& preset);

}  // namespace rsalab
