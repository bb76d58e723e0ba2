// SPDX-License-Identifier: GPL-3.0-or-later
// The field's forecasting anchors, fitted and scored like the models
// (engine/core/forecast/anchors.h puts them beside the models' losses). Plain C++ (GSL, Eigen; no
// LibTorch, no Qt): rsalab_core.
//
// Every method follows one protocol, the one the models are held to:
//   1. the parameters (and, for ETS and ARIMA, the model form) are chosen on y[0, fit_end) only;
//   2. they are then fixed, and the method is run over the whole series y, updating its state
//      with the actual values (never with a forecast);
//   3. at every origin o it forecasts y[o+1] … y[o+H] from y[0..o].
// Cost: one pass over y plus H steps per origin, O(L + |origins| · H) after the fit.
//
// References, matched by tests/test_real_series.cpp against scripts/anchors-r.R's fixture
// (tests/data/anchors_r.csv), and form by form (the same fixed form's likelihood, AICc order,
// fixed-parameter forecasts) by tests/test_anchors_r.cpp. AR(p) by AICc is
// engine/core/forecast/baselines.h's ar_lsq.
//   ets        forecast::ets (Hyndman et al. 2008): error A/M × trend N/A/Ad × season N/A/M,
//              admissible and restricted combinations, MLE, chosen by AICc
//   auto_arima forecast::auto.arima (Hyndman & Khandakar 2008): stepwise, d by KPSS, D by seasonal
//              strength, p, q ≤ 5, P, Q ≤ 2, AICc
//   theta      forecast::thetaf (Hyndman & Billah 2003): SES plus half the linear-trend slope as
//              drift, on a multiplicatively deseasonalised series when the series tests seasonal
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rsalab::forecast {

struct UnivariateProblem {
  std::vector<double> y;         // the whole series, in its own units (L values)
  int64_t fit_end = 0;           // the fit uses y[0, fit_end) only
  int64_t period = 1;            // seasonal period m (1: no season)
  int64_t horizon = 1;           // H
  std::vector<int64_t> origins;  // increasing; each o: fit_end − 1 ≤ o ≤ L − 1 − H
  // The order search's budget: auto ARIMA's seasonal orders P, Q stay ≤ max_seasonal_order (the
  // anchors lower it for long periods, where each seasonal order adds a period's worth of state).
  int64_t max_seasonal_order = 2;
};

struct UnivariateForecast {
  std::vector<double> mean;  // origins × H, row-major: [k·H + h−1] forecasts y[origins[k] + h]
  std::string model;  // the chosen form, as R prints it: "ETS(M,Ad,M)", "ARIMA(2,1,1)(0,1,1)[12]"
  double aicc = std::numeric_limits<double>::quiet_NaN();  // of the chosen fit (NaN for theta)
};

// Each throws std::invalid_argument on an inconsistent problem and std::runtime_error when no
// model can be fitted (too few rows, a constant series): the caller reports the anchor as absent.
UnivariateForecast etsForecast(const UnivariateProblem& p);
UnivariateForecast autoArimaForecast(const UnivariateProblem& p);
UnivariateForecast thetaForecast(const UnivariateProblem& p);

// Checks the protocol's preconditions (throws std::invalid_argument with a clear message).
void checkProblem(const UnivariateProblem& p);

}  // namespace rsalab::forecast
