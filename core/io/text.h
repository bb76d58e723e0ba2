// SPDX-License-Identifier: GPL-3.0-or-later
// Plain text that messages, tables and files are made of: a number to a chosen count of
// significant digits, and a list joined by a separator. Every writer formats with these, so a
// number reads the same in the CLI, a verdict, the README block and a file.
#pragma once

#include <string>
#include <vector>

namespace rsalab {

// printf's %.<significant>g ("0.0185", "1.2e+03"); any NaN is "nan" (never "-nan"), infinities
// "inf" / "-inf". Files that must round-trip a double use significant = 17.
std::string formatNumber(double v, int significant = 3);

// The items with `separator` between them ("a, b, c"); empty for no items.
std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ");

// joined() over any range, each item turned into text by `text(item)`.
template <class Range, class ToText>
std::string joined(const Range& items, const std::string& separator, ToText&& text) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += text(item);
    first = false;
  }
  return out;
}

}  // namespace rsalab
