// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/verdicts/generation_claim.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/core/io/text.h"

namespace rsalab {

namespace {

// "… 0.41 ms at T=32 → 2.3 ms at T=4096 (growth 5.1×), state 12288 → 4194304 floats"
std::string describe(const GenerationCurve& c) {
  if (c.points.empty()) return c.method + ": not measured";
  const auto& a = c.points.front();
  const auto& b = c.points.back();
  return c.method + " " + formatNumber(a.ms_per_token) + " ms at T=" + std::to_string(a.position) +
         " → " + formatNumber(b.ms_per_token) + " ms at T=" + std::to_string(b.position) +
         " (growth " + fixedNumber(generationGrowth(c), 2) + "×), state " +
         std::to_string(a.state_floats) + " → " + std::to_string(b.state_floats) + " floats";
}

}  // namespace

double generationGrowth(const GenerationCurve& curve) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : curve.points) {
    const auto x = static_cast<double>(p.position);
    n += 1;
    sx += x;
    sy += p.ms_per_token;
    sxx += x * x;
    sxy += x * p.ms_per_token;
  }
  const double den = n * sxx - sx * sx;
  if (n < 2 || den <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double b = (n * sxy - sx * sy) / den;
  const double a = (sy - b * sx) / n;
  const auto lo = static_cast<double>(curve.points.front().position);
  const auto hi = static_cast<double>(curve.points.back().position);
  const double start = a + b * lo;
  if (!(start > 0)) return std::numeric_limits<double>::quiet_NaN();
  return (a + b * hi) / start;
}

std::vector<ClaimVerdict> linearAttentionRnnVerdicts(const LinearAttentionRnnProbe& probe) {
  ClaimVerdict same;
  same.claim =
      "Causal linear attention is an RNN: its parallel form and its recurrent (S, z) step give "
      "the same outputs.";
  same.decided = probe.values > 0 && std::isfinite(probe.max_error);
  same.holds = same.decided && probe.max_error <= kParallelRecurrentTolerance;
  same.detail = "max |parallel − recurrent| = " + formatNumber(probe.max_error) + " over " +
                std::to_string(probe.values) + " outputs (float64, tolerance " +
                formatNumber(kParallelRecurrentTolerance) + ")";

  ClaimVerdict cost;
  cost.claim =
      "Generating a token costs the same at every position with linear attention, while "
      "softmax attention's cost grows with T.";
  const double linear = generationGrowth(probe.linear);
  const double softmax = generationGrowth(probe.softmax);
  cost.decided = probe.linear.points.size() >= 3 && probe.softmax.points.size() >= 3 &&
                 std::isfinite(linear) && std::isfinite(softmax);
  cost.holds = cost.decided && linear <= kFlatGrowth && softmax >= kGrowingGrowth;
  cost.detail = describe(probe.linear) + "; " + describe(probe.softmax) + " (flat: growth ≤ " +
                formatNumber(kFlatGrowth) + "×, grows: ≥ " + formatNumber(kGrowingGrowth) + "×" +
                (probe.model.empty() ? ")" : "; " + probe.model + ")");
  if (!cost.decided) cost.detail += "; needs three positions on both curves";
  return {same, cost};
}

}  // namespace rsalab
