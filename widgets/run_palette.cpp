// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/run_palette.h"

#include <QHash>
#include <cstdlib>

#include "engine/core/registry/model_registry.h"

namespace rsalab {

namespace {
// Okabe–Ito, reordered so the first runs get the strongest contrast on a white plot: the pale
// yellow (low contrast on white) and black (reads as an axis) come last.
constexpr QRgb kOkabeIto[] = {
    0x0072B2,  // blue
    0xD55E00,  // vermillion
    0x009E73,  // bluish green
    0xCC79A7,  // reddish purple
    0xE69F00,  // orange
    0x56B4E9,  // sky blue
    0x000000,  // black
    0xF0E442,  // yellow
};
constexpr int kCount = static_cast<int>(sizeof(kOkabeIto) / sizeof(kOkabeIto[0]));
}  // namespace

int runColorCount() { return kCount; }

QColor runColor(int index) {
  const int i = std::abs(index);
  QColor c(kOkabeIto[i % kCount]);
  const int cycle = i / kCount;
  if (cycle == 0) return c;
  // Later cycles: same hue, shifted lightness (black gets grey rather than "darker black").
  if (c.lightness() < 20) return QColor::fromHsl(0, 0, 60 + 30 * ((cycle - 1) % 3));
  return cycle % 2 == 1 ? c.darker(140 + 20 * (cycle / 2)) : c.lighter(130 + 10 * (cycle / 2));
}

QColor modelColor(const QString& model) {
  const int i = modelIndex(model.toStdString());
  const int known = static_cast<int>(modelRegistry().size());
  return runColor(i >= 0 ? i : known + static_cast<int>(qHash(model) % 8));
}

}  // namespace rsalab
