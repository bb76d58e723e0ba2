// SPDX-License-Identifier: GPL-3.0-or-later
// The anchors: the field's statistical forecasters (ETS, automatic ARIMA, Theta) scored beside
// the models on exactly their targets and in their units. One table (name, label, forecaster),
// read by the series tasks (seriesReferences), which append the anchors to the task's references;
// from there the CLI, result.json, sweep.csv, the report, the runs table and the loss view show
// them, and the best of all references on validation is the headline's yardstick (bestAnchor).
// Plain C++ (rsalab_core).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/forecast/forecast.h"
#include "engine/core/forecast/metrics.h"
#include "engine/core/io/enums.h"

namespace rsalab::forecast {

struct AnchorRow {
  const char* name;   // stable key in result.json, sweep.csv and bundles
  const char* label;  // for legends; the chosen form is appended ("ETS(M,Ad,M)")
  UnivariateForecast (*forecast)(const UnivariateProblem&);
  // A longer season is fitted as none, and said: the seasonal ARIMA's exact filter has a state
  // of about P + 1 values, so its search takes minutes at P = 168 (ets drops P > 24 itself).
  int64_t max_period;
  int cost;  // relative fit time: the costliest fits are started first when fits run in parallel
};
const std::vector<AnchorRow>& anchorTable();  // ets, auto_arima, theta

// What each AnchorMode fits (the one table of the budgets; engine/core/io/enums.h says it in
// words). A seasonal fit's state holds about a period's worth of values, so its cost grows with
// rows × period: the fits see the train part's last min(max_fit_rows, period_rows / period) rows.
struct AnchorBudget {
  AnchorMode mode;
  int64_t max_fit_rows;        // at most this many of the train part's last rows
  int64_t period_rows;         // and at most period_rows / period of them
  int64_t max_seasonal_order;  // auto ARIMA's P, Q limit for periods above long_period
  int64_t long_period;         // periods above this get max_seasonal_order (0: every period)
};
const AnchorBudget& anchorBudget(AnchorMode mode);

// One fit finished (or failed): what the CLI prints as a line and the GUI logs.
struct AnchorProgress {
  std::string anchor;           // the row's label ("auto ARIMA")
  std::string column;           // the column's name
  std::string model;            // the chosen form ("ARIMA(2,1,1)(0,0,1)[24]"); empty when it failed
  std::string error;            // why it could not be fitted; empty when it was
  double seconds = 0;           // this fit's wall time
  int64_t done = 0, total = 0;  // fits finished so far, of all
};
using AnchorProgressFn = std::function<void(const AnchorProgress&)>;

struct AnchorInput {
  std::vector<double> values;  // (L, C) row-major, in the series' own units
  int64_t columns = 1;
  std::vector<double> scale;  // per column: the losses are MSE / scale² (the train part's std)
  // Per column, MASE's denominator in the units of values / scale (SeriesBaselines::mase_scale);
  // empty: no MASE (NaN).
  std::vector<double> mase_scale;
  int64_t train_end = 0;  // the anchors are fitted on rows [0, train_end) only
  int64_t horizon = 1;
  int64_t period = 1;  // the seasonal period the task detected (or was given)
  std::vector<int64_t> validation_origins, test_origins;
  std::string period_rule;  // how the period was chosen (for the plan line), may be empty
  std::vector<std::string> column_names;  // for progress lines ("column K" where absent)
  // The budget (anchorBudget): a train part longer than its max_fit_rows (a long user CSV) is
  // fitted on its last rows, and a series with more columns than max_columns goes without anchors
  // (each column is its own fit). Both are said in notes. max_fit_rows > 0 overrides the mode's.
  AnchorMode mode = AnchorMode::All;
  int64_t max_fit_rows = 0;
  int64_t max_columns = 16;
  // The fits (anchor × column) run on this many threads (0: one per core, at most one per fit);
  // `progress` is called once per finished fit, from the fitting threads, one call at a time.
  int threads = 0;
  AnchorProgressFn progress;
  const std::atomic<bool>* cancel = nullptr;  // set: the fits not yet started are skipped
};

struct AnchorScores {
  std::vector<ReferenceScore> scores;  // one per anchor that could be fitted, table order
  std::vector<std::string> notes;      // what was fitted on what; why an anchor is absent
  double seconds = 0;                  // wall time of all the fits
  bool cancelled = false;
};

// One line saying what computeAnchors(input) will fit: the anchors, the columns, the rows, the
// period and its rule, the threads ("" when the mode is none or the series is too wide).
std::string anchorPlan(const AnchorInput& input);

// Every anchor on every column (each column its own univariate fit): the MSE over origins,
// steps and columns, in z units. An anchor that cannot be fitted on some column is left out and
// said in `notes` (never a crash, never a made-up number).
AnchorScores computeAnchors(const AnchorInput& input);

}  // namespace rsalab::forecast
