// SPDX-License-Identifier: GPL-3.0-or-later
// The sweep's figures as files, without a window: the sample-efficiency figure (test loss vs N,
// log–log, b with its 95% CI per model), the loss figure (training loss, smoothed, and
// validation loss against step, mean over seeds per model at the largest N) and, when the rows
// carry a task axis (SweepRow::axis_value), the regime map (widgets/regime_map_view.h: per model
// the mean excess loss over seeds at each axis value × N, and the winner map), each as PNG and
// SVG.
// Plain C++ interface (no Qt, no LibTorch in this header) so rsalab-cli can call it. Built from
// sweep_figures.cpp when RSALAB_GUI=ON (renders with QCustomPlot on Qt's offscreen platform) and
// from sweep_figures_unavailable.cpp otherwise (then it reports that figures are unavailable).
#pragma once

#include <string>
#include <vector>

#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

struct FigureOptions {
  std::string out_dir;             // created if missing
  int width = 1000, height = 650;  // pixels (SVG: its view box)
  std::string title;               // above the plots, e.g. "seasonal, T = 48, 300 steps"
  std::string axis_name;           // the task axis (SweepResult::axis.name), e.g. "mix.share"
};

// Writes sample_efficiency.{png,svg} and loss.{png,svg} into options.out_dir, and
// regime_map.{png,svg} (1.5 × width) when usable model rows (ok(), not references) have a finite
// axis_value; the loss figure needs rows with train_curve (SweepOptions::keep_curves). Returns the
// files written; on failure throws std::runtime_error naming the file (or saying figures are
// unavailable in this build).
std::vector<std::string> writeSweepFigures(const std::vector<SweepRow>& rows,
                                           const FigureOptions& options);

// False when this build has no figure support (RSALAB_GUI=OFF).
bool sweepFiguresAvailable();

}  // namespace rsalab
