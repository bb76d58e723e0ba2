// SPDX-License-Identifier: GPL-3.0-or-later
// Baseline forecasters for the series tasks, scored on exactly the targets the model is scored on
// and in the same units, so that every model loss can be read against them (ReferenceScore in
// engine/core/forecast/metrics.h). Plain C++ on std::vector (no LibTorch, no Qt): part of
// rsalab_core.
//
// A forecast origin o predicts the rows o+1 .. o+H of every column from rows ≤ o:
//   mean            the train part's mean of the column (rows [0, train_end)), for every step
//   persistence     z_o ("tomorrow = today"), for every step
//   seasonal naive  z_{o+h−P·⌈h/P⌉}: the value one season before the target (P = 1: persistence)
//   ar_lsq          AR(p) with intercept, per column and per horizon step (direct forecasts), p
//                   from --ar-order or else chosen by AICc on the one-step fit (p ≤ min(T, 10·log10
//                   N)), fitted by least squares on the N training windows only: window s gives the
//                   sample (z_{s+T−1}, …, z_{s+T−p}) → (z_{s+T}, …, z_{s+T+H−1}), the window's last
//                   inputs and the targets after them. A tiny ridge (1e−8 of the mean diagonal)
//                   keeps it defined when N < p + 1.
// Rows before 0 (a lag reaching past the series start) are read as row 0.
// Nothing is fitted on validation or test rows: the mean and a detected period come from the train
// part, the AR weights from the training windows, whose rows all lie in the train part.
//
// The period P, in this order: given (--period); from the time column's calendar step
// (engine/core/io/calendar.h: monthly 12, quarterly 4, hourly 24, yearly 1, …), when the train part
// holds at least two seasons; else detected from the train part's autocorrelation
// (detectSeasonalPeriod), which is the rule only for a series without a usable time column.
// SeasonalPeriod keeps P with the rule that gave it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/forecast/metrics.h"

namespace rsalab {

struct CalendarPeriod;  // engine/core/io/calendar.h

// A series' seasonal period and the rule that gave it, for notes, summaries, the CLI and the GUI.
struct SeasonalPeriod {
  int64_t period = 0;  // 0: not chosen yet (detect from the train part)
  // How P was chosen: "given by --period", "from the time column 'time' (monthly steps)",
  // "detected from the autocorrelation (no time column): …". Before detection (period 0): why P is
  // detected ("no time column", or the time column's problem).
  std::string rule;
  std::string note() const { return "P = " + std::to_string(period) + " " + rule; }
};

// P before the baselines: `given` > 0 (--period); else the calendar's period when the first
// `train_rows` rows hold at least two of its seasons (else P = 1, and the rule says why); else
// period 0 (detect), its rule saying why.
SeasonalPeriod choosePeriod(int64_t given, const CalendarPeriod& calendar, int64_t train_rows);

struct SeriesBaselineInput {
  std::vector<double> values;  // (L, C) row-major, in the units of the model's loss
  int64_t columns = 1;
  int64_t train_end = 0;                    // the train part: rows [0, train_end)
  int64_t length = 1;                       // T of the training windows
  int64_t horizon = 1;                      // H
  int64_t ar_order = 0;                     // p; 0 = chosen by AICc
  int64_t period = 0;                       // seasonal naive's P; 0 = detect from the train part
  std::string period_rule;                  // SeasonalPeriod::rule of period ("" = "given")
  std::vector<int64_t> train_starts;        // the N training windows [s, s + T + H)
  std::vector<int64_t> validation_origins;  // forecast origins whose targets are validation rows
  std::vector<int64_t> test_origins;        // ... test rows
};

struct SeriesBaselines {
  std::vector<ReferenceScore> scores;  // mean, persistence, seasonal_naive, ar_lsq
  SeasonalPeriod season;               // the seasonal naive's P and how it was chosen
  // Per column, MASE's denominator: the train part's in-sample seasonal-naive MAE at that P.
  std::vector<double> mase_scale;
};

// Throws std::invalid_argument on inconsistent input (an origin or window outside the series).
SeriesBaselines computeSeriesBaselines(const SeriesBaselineInput& input);

struct PeriodEstimate {
  int64_t period = 1;          // 1: no season found
  double autocorrelation = 0;  // of the differenced train part at `period`
};
// The seasonal period of rows [0, rows) of an (rows, C) row-major series, from the
// autocorrelation of its first differences (differencing removes a trend, which would otherwise
// hide the season), averaged over columns, at lags 2 .. min(rows / 3, 1000): the first local
// maximum at least 0.9 times the highest one (a season also peaks at its multiples); no season
// (period 1) when the highest is below 0.2.
PeriodEstimate detectSeasonalPeriod(const std::vector<double>& values, int64_t columns,
                                    int64_t rows);

// AR(p) least-squares weights for one column and one horizon step h (1-based): returns
// {intercept, φ_1 … φ_p} with ẑ_{o+h} = intercept + Σ_i φ_i z_{o+1−i}, from the windows in
// `input` (see the file comment).
std::vector<double> fitArLeastSquares(const SeriesBaselineInput& input, int64_t column, int64_t h);

}  // namespace rsalab
