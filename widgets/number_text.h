// SPDX-License-Identifier: GPL-3.0-or-later
// A number as the views show it: formatNumber (engine/core/io/text.h) as a QString, so a value
// reads the same in a tooltip, a title, an exported CSV and the CLI.
#pragma once

#include <QString>

#include "engine/core/io/text.h"

namespace rsalab {

inline QString numberText(double v, int significant = 3) {
  return QString::fromStdString(formatNumber(v, significant));
}

// A table cell's number: cellNumber (numberText, or "–" for a run without that number).
inline QString cellText(double v, int significant = 3) {
  return QString::fromStdString(cellNumber(v, significant));
}

}  // namespace rsalab
