// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled data files under resources/ (text, series, the first minute's measurement). Plain C++
// (core library).
#pragma once

#include <string>

namespace rsalab {

// Path of a file under resources/: $RSALAB_RESOURCES first, then the source tree's resources/
// (compiled in as RSALAB_RESOURCE_DIR). std::runtime_error listing the places tried when it is in
// neither.
std::string resourcePath(const std::string& relative);

}  // namespace rsalab
