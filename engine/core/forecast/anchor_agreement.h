// SPDX-License-Identifier: GPL-3.0-or-later
// The anchors beside R's forecast package, from the fixture scripts/anchors-r.R writes
// (tests/data/anchors_r*.csv; R runs only there, never in the build or the tests): reading the
// fixture and its series, R's model strings as forms and orders, and the agreement table of
// docs/REAL_SERIES.md (test MSE per series and anchor, ours beside R's, the chosen forms side by
// side) as a generated block.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/forecast/arima_model.h"
#include "engine/core/forecast/ets_model.h"

namespace rsalab::forecast::agreement {

// One fixture CSV (quoted cells may hold commas): each row by column name.
using FixtureRow = std::map<std::string, std::string>;
struct Fixture {
  std::vector<std::string> columns;
  std::vector<FixtureRow> rows;
};
// Throws std::runtime_error naming the file when it is missing or a row is ragged.
Fixture readFixture(const std::string& path);
std::string readText(const std::string& path);

// A fixture series with the split and period scripts/anchors-r.R used (the app's): the bundled
// ones from resources/series/, the added ones from tests/data/r_series/.
struct FixtureSeries {
  std::string name;
  std::vector<double> y;
  int64_t period = 1, train_end = 0, validation_end = 0;
};
FixtureSeries fixtureSeries(const std::string& root, const std::string& name);

// "ETS(M,Ad,M)" → the form; false when the text is not one.
bool parseEtsForm(const std::string& text, ets::Form& form);
// "ARIMA(p,d,q)(P,D,Q)[m] with drift" → the order (m = period without a seasonal part).
bool parseArimaOrder(const std::string& text, int64_t period, arima::Order& order);
// R's coefficients "ar1=… ma1=… sar1=… sma1=… drift=…" (or intercept=…) for `order`. R's drift is
// the slope b of a regression on the row number, so after the differencing the constant is
// b · (d + m D) (d + D ≤ 1); an intercept is the mean itself.
arima::Coefficients coefficientsFromR(const std::string& text, const arima::Order& order);

// R's ETS parameters "alpha=… beta=… gamma=… phi=… l=… b=… s0=… s1=…" for `form` with period
// m. R's seasonal states run backwards in time (s0 belongs to the last season before the first
// row, s1 to the one before, …) and omit the oldest, which makes them sum to 0 or m; ours are
// indexed by the row they are first used at, so season[m−1−i] = s_i.
ets::Parameters etsParametersFromR(const std::string& text, const ets::Form& form, int64_t m);

// The inverses, in R's names and order, 17 significant digits: our fitted coefficients for R to
// evaluate (scripts/anchors-r-exact.R). `drift`: the constant is R's drift (d + D = 1), else its
// intercept (d + D = 0).
std::string coefficientsToR(const arima::Coefficients& c, const arima::Order& order, bool drift);
std::string etsParametersToR(const ets::Parameters& p, const ets::Form& form, int64_t m);

// One line of the agreement table.
struct AgreementRow {
  std::string series, method;  // method: ets, auto_arima, theta
  std::string r_model, our_model;
  double r_test = 0, our_test = 0;  // test MSE over the population variance of the train part
};
// Our anchors on every fixture series by the fixture's protocol (fitted on the train part, fixed,
// one-step forecasts from every origin), beside R's rows.
std::vector<AgreementRow> measure(const std::string& root);

extern const char* const kBlockBegin;
extern const char* const kBlockEnd;
std::string renderBlock(const std::vector<AgreementRow>& rows);

}  // namespace rsalab::forecast::agreement
