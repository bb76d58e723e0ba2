// SPDX-License-Identifier: GPL-3.0-or-later
// Thinning a sequence to at most `cap` points: the first, the last and an even spread between
// them. Session bundles keep thinned snapshot steps; a sweep keeps thinned curves in memory for
// drawing while every point stays on disk (engine/sweep/sweep.h, SweepOptions::run_folder).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace rsalab {

// The indices kept of `count` items: all when count <= cap, else `cap` evenly spread ones
// (ascending, no repeats; the last always included). cap <= 0: none.
inline std::vector<size_t> thinnedIndices(size_t count, int cap) {
  std::vector<size_t> out;
  if (cap <= 0 || count == 0) return out;
  const size_t keep = static_cast<size_t>(cap);
  if (count <= keep) {
    for (size_t i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  if (keep == 1) return {count - 1};
  for (size_t k = 0; k < keep; ++k) {
    const auto i =
        static_cast<size_t>(std::llround(double(k) * double(count - 1) / double(keep - 1)));
    if (out.empty() || out.back() != i) out.push_back(i);
  }
  return out;
}

// `points` thinned in place to at most `cap` (thinnedIndices).
template <class T>
void thinInPlace(std::vector<T>& points, int cap) {
  if (cap <= 0 || points.size() <= static_cast<size_t>(cap)) return;
  std::vector<T> kept;
  const auto indices = thinnedIndices(points.size(), cap);
  kept.reserve(indices.size());
  for (size_t i : indices) kept.push_back(std::move(points[i]));
  points = std::move(kept);
}

}  // namespace rsalab
