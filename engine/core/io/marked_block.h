// SPDX-License-Identifier: GPL-3.0-or-later
// A generated block of a Markdown file, between a begin and an end marker line (HTML comments), so
// that a table in README.md or docs/ is written by the run that measured it and a test can check
// that the block still matches its data. Plain C++ (rsalab_core).
#pragma once

#include <string>

namespace rsalab {

// The block in `markdown`, markers and the end marker's newline included; std::runtime_error
// naming `what` and the markers when there is none.
std::string markedBlockIn(const std::string& markdown, const std::string& begin,
                          const std::string& end, const std::string& what);
// `markdown` with that block replaced by `block` (which carries its own markers).
std::string replaceMarkedBlock(const std::string& markdown, const std::string& block,
                               const std::string& begin, const std::string& end,
                               const std::string& what);

}  // namespace rsalab
