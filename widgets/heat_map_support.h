// SPDX-License-Identifier: GPL-3.0-or-later
// Shared pieces of the heat-map views: colour gradients (QCustomPlot has no viridis preset), the
// colour range rule (sequential vs. diverging) and bounded-cost downsampling for drawing.
#pragma once

#include <qcustomplot.h>

#include <QString>
#include <QStringList>

#include "engine/core/io/inspection.h"

namespace rsalab {

// How values map to colours.
enum class ColorMode {
  kAuto,        // diverging when any value is negative, sequential otherwise
  kSequential,  // viridis over [min, max]
  kDiverging,   // blue–white–red over [-max|v|, +max|v|], white at 0
};

// Perceptually uniform viridis, approximated by matplotlib's 10 evenly spaced samples.
QCPColorGradient viridisGradient();
// ColorBrewer RdBu (reversed: blue negative, red positive), near-white at the centre.
QCPColorGradient divergingGradient();

// The mode actually used for `m` under `requested` (kAuto resolved).
ColorMode resolveColorMode(ColorMode requested, const Matrix& m);
// Colour range for `m` under a resolved mode; never empty (a constant matrix gets ±0.5 or ±1).
QCPRange colorRangeFor(ColorMode resolved, const Matrix& m);
// Smallest range covering both (for shared scales); keeps the diverging range symmetric.
QCPRange unitedRange(ColorMode resolved, const QCPRange& a, const QCPRange& b);

// `m` reduced to at most max_rows × max_cols by block means over evenly spaced (fractional) row and
// column blocks; returned unchanged when it already fits. NaNs are skipped within a block.
Matrix downsampleBlockMean(const Matrix& m, int64_t max_rows, int64_t max_cols);

// Writes `drawn` (possibly downsampled) into `map` so that axis coordinates are the *original*
// row/column indices of a full_rows × full_cols matrix: column c is key c, row r is value r.
void fillColorMap(QCPColorMap* map, const Matrix& drawn, int64_t full_rows, int64_t full_cols);

// "12 (the)" or "12" when the label is missing.
QString positionText(int index, const QStringList& labels);

}  // namespace rsalab
