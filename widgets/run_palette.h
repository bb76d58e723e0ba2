// SPDX-License-Identifier: GPL-3.0-or-later
// Run colours: the Okabe–Ito palette (Okabe & Ito 2008), distinguishable with the common forms of
// colour blindness. A run keeps its colour everywhere (loss curves, legends, tables) because every
// view asks runColor() with the run's index.
#pragma once

#include <QColor>
#include <QString>

namespace rsalab {

// Number of distinct hues before runColor() cycles.
int runColorCount();

// Colour of run `index` (0, 1, 2, ...). Indices past runColorCount() reuse the hues, darker on odd
// cycles and lighter on even ones, so neighbouring runs still differ; negative indices use |index|.
QColor runColor(int index);

// Colour of a model, the same hue in every view that draws models rather than runs (sweeps,
// sample efficiency, the regime map): the registry's order gives each model its hue; unknown names
// get one past the registry's.
QColor modelColor(const QString& model);

}  // namespace rsalab
