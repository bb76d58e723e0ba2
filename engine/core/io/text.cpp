// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/text.h"

#include <cmath>
#include <cstdio>

namespace rsalab {

std::string formatNumber(double v, int significant) {
  if (std::isnan(v)) return "nan";
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", significant, v);
  return text;
}

std::string cellNumber(double v, int significant) {
  return std::isfinite(v) ? formatNumber(v, significant) : "–";
}

std::string fixedNumber(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  char text[352];  // %.17f of the largest double
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

std::string meanSdText(double mean, double sd) {
  return cellNumber(mean) + " ± " + cellNumber(sd, 2);
}

std::string minutesSeconds(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  return s >= 60 ? std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s"
                 : std::to_string(s) + " s";
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  return joined(items, separator, [](const std::string& s) -> const std::string& { return s; });
}

}  // namespace rsalab
