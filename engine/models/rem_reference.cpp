// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/rem_reference.h"

#include <cmath>
#include <cstdlib>

namespace rsalab {

std::vector<double> remByLoops(RemKind kind, double base, double theta, int64_t dilation, int64_t T,
                               bool causal) {
  std::vector<double> P(static_cast<size_t>(T * T), 0.0);
  for (int64_t i = 0; i < T; ++i) {
    for (int64_t j = 0; j < T; ++j) {
      const int64_t lag = causal ? i - j : std::llabs(i - j);
      if (lag <= 0 || lag % dilation != 0) continue;
      const int64_t k = lag / dilation;
      double power = 1.0;
      for (int64_t m = 0; m < k; ++m) power *= base;  // base^k by repeated product
      double value = power;
      if (kind == RemKind::Cos) value *= std::cos(theta * static_cast<double>(k));
      if (kind == RemKind::Sin) value *= std::sin(theta * static_cast<double>(k));
      P[static_cast<size_t>(i * T + j)] = value;
    }
  }
  return P;
}

}  // namespace rsalab
