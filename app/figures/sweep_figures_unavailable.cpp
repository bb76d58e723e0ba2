// SPDX-License-Identifier: GPL-3.0-or-later
// writeSweepFigures for builds without Qt widgets (RSALAB_GUI=OFF): says so.
#include <stdexcept>

#include "app/figures/paper_table_figure.h"
#include "app/figures/sweep_figures.h"

namespace rsalab {

bool sweepFiguresAvailable() { return false; }

std::vector<std::string> writeSweepFigures(const std::vector<SweepRow>&, const FigureOptions&) {
  throw std::runtime_error(
      "--figures is unavailable: rsalab-cli was built with RSALAB_GUI=OFF (no Qt)");
}

std::vector<std::string> writePaperTableFigure(const std::string&, const FigureOptions&) {
  throw std::runtime_error(
      "the paper table's figure is unavailable: rsalab-cli was built with "
      "RSALAB_GUI=OFF (no Qt)");
}

}  // namespace rsalab
