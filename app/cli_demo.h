// `rsalab-cli demo`: trains each sequence model for a few seconds on the built-in seasonal
// series and prints the held-out loss before and after.
#pragma once

#include <ostream>

namespace rsalab {

struct DemoOptions {
  double seconds_per_model = 2.0;
  int64_t d_model = 32;
  int64_t seed = 0;
};

int runDemo(const DemoOptions& options, std::ostream& out);

}  // namespace rsalab
