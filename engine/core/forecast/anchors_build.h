// SPDX-License-Identifier: GPL-3.0-or-later
// Whether this build fits the anchors: with GSL and Eigen (RSALAB_ANCHORS ON,
// anchors_available.cpp) it does; without them (anchors_unavailable.cpp) the series tasks go
// without anchors and say so in kNoAnchors's words. Kept out of anchors.h so that the many files
// including it do not rebuild.
#pragma once

namespace rsalab::forecast {

inline constexpr char kNoAnchors[] = "no anchors in this build";

bool anchorsAvailable();

}  // namespace rsalab::forecast
