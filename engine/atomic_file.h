// Files written so that a crash or kill mid-write leaves the previous version intact:
// write a temporary file beside the target, flush it, then rename it over the target.
#pragma once

#include <string>

namespace rsalab {

void writeFileAtomically(const std::string& path, const std::string& text);
std::string readTextFile(const std::string& path, size_t max_bytes);  // clear error if too big

}  // namespace rsalab
