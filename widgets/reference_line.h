// SPDX-License-Identifier: GPL-3.0-or-later
// ReferenceLine: a labelled horizontal line at a loss, a reference's (ReferenceScore) or the
// task's Bayes floor. The run store makes them from a run's descriptor; the loss view draws them.
#pragma once

#include <QString>

namespace rsalab {

struct ReferenceLine {
  QString label;  // e.g. "persistence", "AR(25) least squares", "ETS(M,Ad,M)"
  double loss = 0;
  bool best = false;  // the best reference (lowest validation loss): drawn darker and thicker
};

}  // namespace rsalab
