// SPDX-License-Identifier: GPL-3.0-or-later
// The stand-in for the anchors' fitting and the Student t distribution in a build without GSL or
// Eigen (RSALAB_ANCHORS OFF: the GPU machine of scripts/gpu-check.sh). computeAnchors and
// anchorPlan (anchors.cpp) read anchorsAvailable() and say "no anchors in this build"; the
// forecasters throw the same words should anything call them; the t distribution gives NaN, so
// the Diebold–Mariano p-value and the regime map's intervals read as absent.
#include <limits>
#include <stdexcept>

#include "engine/core/forecast/anchors_build.h"
#include "engine/core/forecast/forecast.h"
#include "engine/core/forecast/t_distribution.h"

namespace rsalab::forecast {

bool anchorsAvailable() { return false; }

UnivariateForecast etsForecast(const UnivariateProblem&) { throw std::runtime_error(kNoAnchors); }
UnivariateForecast autoArimaForecast(const UnivariateProblem&) {
  throw std::runtime_error(kNoAnchors);
}
UnivariateForecast thetaForecast(const UnivariateProblem&) { throw std::runtime_error(kNoAnchors); }

double tUpperTail(double, double) { return std::numeric_limits<double>::quiet_NaN(); }
double tQuantile(double, double) { return std::numeric_limits<double>::quiet_NaN(); }

}  // namespace rsalab::forecast
