// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled data files under resources/ (text, series, the first minute's measurement). Plain C++
// (core library).
#pragma once

#include <string>

namespace rsalab {

// Path of a file under resources/, looked up in this order:
//   1. $RSALAB_RESOURCES/<relative> (any folder the user points at);
//   2. <folder of the running executable>/../share/rsalab/<relative>: the installed layout
//      (/usr/bin/rsalab-cli finds /usr/share/rsalab; the .deb of `cpack -G DEB` puts it there);
//   3. the source tree's resources/ (compiled in as RSALAB_RESOURCE_DIR), for builds run in place.
//      RSALAB_NO_SOURCE_FALLBACK=1 (any value but empty or 0) skips it, so that a check of an
//      installed copy (tests/check_package.cmake) cannot pass by reading the source tree.
// std::runtime_error listing the places tried when it is in none.
std::string resourcePath(const std::string& relative);

// <the source tree>/<relative> (the folder above RSALAB_RESOURCE_DIR) for a build run in place,
// e.g. "bench/peer"; empty when it is not there or RSALAB_NO_SOURCE_FALLBACK is set.
std::string sourceTreePath(const std::string& relative);

}  // namespace rsalab
