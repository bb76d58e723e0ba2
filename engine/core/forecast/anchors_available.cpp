// SPDX-License-Identifier: GPL-3.0-or-later
// This build fits the anchors (GSL and Eigen were found; anchors_unavailable.cpp is the other
// side).
#include "engine/core/forecast/anchors_build.h"

namespace rsalab::forecast {

bool anchorsAvailable() { return true; }

}  // namespace rsalab::forecast
