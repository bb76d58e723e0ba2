// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli report: the real-series report. Trains the default models (the GUI's default launch,
// defaultModelNames())
// on bundled series with the real-series defaults (realSeriesDefaults(defaultRunConfig())) and
// several seeds, and prints one Markdown table: per series and model the test MSE (mean ± sd over
// seeds) and its skill against persistence and against AR(p) (mean [min, max] over seeds), with
// the baselines' own rows beside them. docs/REAL_SERIES.md holds a measured copy.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace rsalab {

struct ReportCommand {
  std::vector<std::string> series = {"all"};  // bundled series names, or "all"
  std::vector<std::string> models;            // empty: defaultModelNames()
  int64_t seeds = 3;
  int64_t steps = 0;     // > 0: overrides the defaults' step budget (smoke runs)
  int64_t parallel = 0;  // concurrent runs; 0 = one per core
  std::string markdown;  // non-empty: also write the table to this file
};

// Returns the exit code (0 ok, 1 a run failed, 130 interrupted).
int runReport(const ReportCommand& command, std::ostream& out);

}  // namespace rsalab
