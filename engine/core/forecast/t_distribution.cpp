// SPDX-License-Identifier: GPL-3.0-or-later
// Student's t distribution through GSL (builds with the anchors; see t_distribution.h).
#include "engine/core/forecast/t_distribution.h"

#include <gsl/gsl_cdf.h>

namespace rsalab::forecast {

double tUpperTail(double t, double dof) { return gsl_cdf_tdist_Q(t, dof); }

double tQuantile(double p, double dof) { return gsl_cdf_tdist_Pinv(p, dof); }

}  // namespace rsalab::forecast
