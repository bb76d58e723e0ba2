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

// A table cell's number: formatNumber, or "–" where `v` is not finite (a run without that number).
std::string cellNumber(double v, int significant = 3);

// printf's %.<decimals>f ("0.412", "-1.50"); "n/a" where `v` is not finite.
std::string fixedNumber(double v, int decimals);

// A mean with its standard deviation as tables and summaries show it: "0.0185 ± 0.0031" (cellNumber
// of each, the sd to 2 significant digits).
std::string meanSdText(double mean, double sd);

// A wall time as people read it: "42 s", "3 min 15 s" (rounded to the second).
std::string minutesSeconds(double seconds);

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
