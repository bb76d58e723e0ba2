// SPDX-License-Identifier: GPL-3.0-or-later
// `rsalab-cli demo`: trains each sequence model of the registry through the engine's Trainer for a
// few seconds on the built-in seasonal series (one dataset for all) and prints its last training
// loss and its test loss before and after.
#pragma once

#include <cstdint>
#include <ostream>

namespace rsalab {

struct DemoOptions {
  double seconds_per_model = 2.0;
  int64_t d_model = 32;
  int64_t seed = 0;
};

int runDemo(const DemoOptions& options, std::ostream& out);

}  // namespace rsalab
