// SPDX-License-Identifier: GPL-3.0-or-later
// The slow, obvious REM: a literal double loop over (i, j), in double precision, no LibTorch.
// The closed-form RemBuilder is tested against it; the inspector's linear-RNN panel uses it.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/models/rem_builder.h"

namespace rsalab {

// Row-major T × T REM for one head. `base` is λ (regular) or γ (cyclical).
std::vector<double> remByLoops(RemKind kind, double base, double theta, int64_t dilation, int64_t T,
                               bool causal);

}  // namespace rsalab
