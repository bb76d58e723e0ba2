// SPDX-License-Identifier: GPL-3.0-or-later
// The paper table's figure as files (rsalab-cli paper-table): mse_vs_horizon.png and .svg in
// out_dir, drawn by widgets/paper_table_plot.h from the table JSON
// (engine/core/verdicts/paper_table.h). Plain C++ interface; without Qt widgets (RSALAB_GUI=OFF) it
// throws std::runtime_error saying that figures are unavailable (sweepFiguresAvailable() is false
// then).
#pragma once

#include <string>
#include <vector>

#include "app/figures/sweep_figures.h"  // FigureOptions

namespace rsalab {

// Returns the files written; throws std::runtime_error naming the file on failure.
std::vector<std::string> writePaperTableFigure(const std::string& table_json,
                                               const FigureOptions& options);

}  // namespace rsalab
