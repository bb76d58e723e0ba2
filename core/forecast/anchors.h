// SPDX-License-Identifier: GPL-3.0-or-later
// The anchors: the field's statistical forecasters (ETS, automatic ARIMA, Theta) scored beside
// the models on exactly their targets and in their units. One table (name, label, forecaster),
// read by the series tasks (seriesReferences), which append the anchors to the task's references;
// from there the CLI, result.json, sweep.csv, the report, the runs table and the loss view show
// them, and the best of all references on validation is the headline's yardstick (bestAnchor).
// Plain C++ (rsalab_core).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/forecast/forecast.h"
#include "core/forecast/metrics.h"

namespace rsalab::forecast {

struct AnchorRow {
  const char* name;   // stable key in result.json, sweep.csv and bundles
  const char* label;  // for legends; the chosen form is appended ("ETS(M,Ad,M)")
  UnivariateForecast (*forecast)(const UnivariateProblem&);
  // A longer season is fitted as none, and said: the seasonal ARIMA's exact filter has a state
  // of about P + 1 values, so its search takes minutes at P = 168 (ets drops P > 24 itself).
  int64_t max_period;
};
const std::vector<AnchorRow>& anchorTable();  // ets, auto_arima, theta

struct AnchorInput {
  std::vector<double> values;  // (L, C) row-major, in the series' own units
  int64_t columns = 1;
  std::vector<double> scale;  // per column: the losses are MSE / scale² (the train part's std)
  int64_t train_end = 0;      // the anchors are fitted on rows [0, train_end) only
  int64_t horizon = 1;
  int64_t period = 1;  // the seasonal period the task detected (or was given)
  std::vector<int64_t> validation_origins, test_origins;
  // A train part longer than this (a long user CSV) is fitted on its last max_fit_rows rows, and a
  // series with more columns than max_columns goes without anchors (each column is its own fit):
  // the stepwise ARIMA search would otherwise dominate the task's set-up. Both are said in notes.
  int64_t max_fit_rows = 8192;
  int64_t max_columns = 16;
};

struct AnchorScores {
  std::vector<ReferenceScore> scores;  // one per anchor that could be fitted, table order
  std::vector<std::string> notes;      // what was fitted on what; why an anchor is absent
};

// Every anchor on every column (each column its own univariate fit): the MSE over origins,
// steps and columns, in z units. An anchor that cannot be fitted on some column is left out and
// said in `notes` (never a crash, never a made-up number).
AnchorScores computeAnchors(const AnchorInput& input);

}  // namespace rsalab::forecast
