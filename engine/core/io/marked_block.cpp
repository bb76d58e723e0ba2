// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/marked_block.h"

#include <algorithm>
#include <stdexcept>

namespace rsalab {

std::string markedBlockIn(const std::string& markdown, const std::string& begin,
                          const std::string& end, const std::string& what) {
  const size_t b = markdown.find(begin), e = markdown.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw std::runtime_error(what + ": no generated block (the lines " + begin + " … " + end + ")");
  const size_t stop = std::min(markdown.size(), e + end.size() + 1);  // its newline
  return markdown.substr(b, stop - b);
}

std::string replaceMarkedBlock(const std::string& markdown, const std::string& block,
                               const std::string& begin, const std::string& end,
                               const std::string& what) {
  const std::string old = markedBlockIn(markdown, begin, end, what);
  const size_t b = markdown.find(old);
  return markdown.substr(0, b) + block + markdown.substr(b + old.size());
}

}  // namespace rsalab
