// SPDX-License-Identifier: GPL-3.0-or-later
// Student's t distribution, the one piece of GSL the statistics need (the Diebold–Mariano p-value
// of skill_interval.cpp, the regime map's 90 % intervals). With GSL (RSALAB_ANCHORS ON):
// t_distribution.cpp over gsl_cdf_tdist_*. Without GSL: anchors_unavailable.cpp, whose functions
// return NaN, so those p-values and intervals read as absent, never as a made-up number.
#pragma once

namespace rsalab::forecast {

// P(T > t) for T ~ Student t with `dof` degrees of freedom.
double tUpperTail(double t, double dof);
// The t with P(T ≤ t) = p.
double tQuantile(double p, double dof);

}  // namespace rsalab::forecast
