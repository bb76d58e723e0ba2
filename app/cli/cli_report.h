// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-cli report: the real-series report. Trains every sequence model that fits a series (the
// networks and the linear forecasters dlinear and nlinear) on bundled series with the real-series
// defaults (realSeriesDefaults(defaultRunConfig())) and several seeds, and prints one Markdown
// table: per series and model the validation and test MSE, MASE, and the skill against the best
// anchor with each run's and each seed ensemble's word (beats / ties / loses by Diebold–Mariano
// at 5 %, or "too few test targets to decide") and paired bootstrap interval beside it, beside the
// references' own rows. docs/REAL_SERIES.md holds a measured copy.
// --validation-only prints only what defaults are chosen by.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace rsalab {

struct ReportCommand {
  std::vector<std::string> series = {"all"};  // bundled series names, or "all"
  std::vector<std::string> models;            // empty: every sequence model that fits a series
  int64_t seeds = 3;
  int64_t steps = 0;     // > 0: overrides the defaults' step budget (smoke runs)
  int64_t parallel = 0;  // concurrent runs; 0 = one per core
  std::string markdown;  // non-empty: also write the table to this file
  std::string json;      // non-empty: also write every number as JSON to this file
  std::string docs;      // non-empty: replace this Markdown file's real-series-report block
  // Overrides of realSeriesDefaults for choosing them (-1 / empty: the defaults').
  int64_t skip_lags = -1;
  int64_t patience = -1;
  std::string norm;
  // Validation losses only: the table and summary a default is chosen by, with no test column.
  bool validation_only = false;
};

// Returns the exit code (0 ok, 1 a run failed, 130 interrupted).
int runReport(const ReportCommand& command, std::ostream& out);

}  // namespace rsalab
