// SPDX-License-Identifier: GPL-3.0-or-later
// The paper table's figure: test MSE against horizon, one line per model (mean over seeds with
// its 95 % interval as error bars), the published points as unconnected markers with their
// source in the legend. Drawn into any QCustomPlot: the GUI's paper-table preset shows it, and
// rsalab-cli paper-table writes it as PNG (app/figures/paper_table_figure.h).
#pragma once

#include <QString>
#include <vector>

#include "engine/core/verdicts/paper_table.h"

class QCustomPlot;

namespace rsalab {

// Clears `plot` and draws `curves` (paperTableCurves) under `title`.
void drawPaperTablePlot(QCustomPlot* plot, const std::vector<PaperCurve>& curves,
                        const QString& title);

}  // namespace rsalab
