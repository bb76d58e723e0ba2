// SPDX-License-Identifier: GPL-3.0-or-later
// Files written so that a crash or kill mid-write leaves the previous version intact:
// write a temporary file beside the target, flush it, then rename it over the target.
//
// The temporary is `<target>.tmp<pid>` (pid of the writer). A writer killed mid-write leaves its
// temporary behind; the next write of the same target removes every such file whose pid is no
// longer running. The target itself is always either the previous or the new complete version.
#pragma once

#include <string>

namespace rsalab {

void writeFileAtomically(const std::string& path, const std::string& text);
std::string temporaryPathFor(const std::string& path);  // `<path>.tmp<pid>` of this process
std::string readTextFile(const std::string& path, size_t max_bytes);  // clear error if too big

}  // namespace rsalab
