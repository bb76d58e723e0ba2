// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the task generators (not part of the public task interface): a portable
// random stream, per-split seeds and option checks that throw std::invalid_argument naming the
// field and its allowed range.
//
// Why our own random stream: std::normal_distribution and torch's CPU sampling are
// implementation-defined, so the same seed could give other data on another standard library or
// LibTorch version. TaskRng draws everything from std::mt19937_64 (fully specified by the
// standard) with explicit transforms, so a (options, train_size, seed) names one dataset, and a
// stream that is read sequentially gives prefixes: the first 16 training sequences are the same
// whether 16 or 4096 are asked for.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/core/io/text.h"

namespace rsalab::task_support {

// SplitMix64 finaliser: decorrelates nearby seeds before they reach the Mersenne Twister.
inline uint64_t mixSeed(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Independent streams derived from one user seed (one per split, component, ...).
enum Stream : uint64_t {
  kTrainStream = 1,
  kValidationStream = 2,
  kTestStream = 3,
  kForwardStream = 4,   // synthetic series: validation + test stretch, generated forwards
  kBackwardStream = 5,  // synthetic series: training stretch, generated backwards in time
  kMlmEvalStream = 6,   // MLM: the one corruption of validation (index 0) and test (index 1)
};

inline uint64_t streamSeed(uint64_t seed, uint64_t stream, uint64_t index = 0) {
  return mixSeed(mixSeed(seed) ^ mixSeed(stream * 0x100000001B3ull + index));
}

class TaskRng {
 public:
  explicit TaskRng(uint64_t seed) : engine_(mixSeed(seed)) {}

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Standard normal by Box–Muller (both values used).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * M_PI * u2);
    has_spare_ = true;
    return r * std::cos(2.0 * M_PI * u2);
  }

  // Uniform integer in [0, n), unbiased (rejection of the top partial block).
  int64_t below(int64_t n) {
    const uint64_t un = static_cast<uint64_t>(n);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % un;
    uint64_t r;
    do {
      r = engine_();
    } while (r >= limit);
    return static_cast<int64_t>(r % un);
  }

  // Uniform integer in [lo, hi], both inclusive.
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// "length = 0 is out of range: 1..100000"
inline void requireRange(const std::string& field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return;
  std::ostringstream s;
  s << field << " = " << value << " is out of range: " << lo << ".." << hi;
  throw std::invalid_argument(s.str());
}

// `range` is the allowed set in words, e.g. "(-1, 1)" or "[0, 1000]".
inline void requireReal(bool ok, const std::string& field, double value, const std::string& range) {
  if (ok && std::isfinite(value)) return;
  std::ostringstream s;
  s << field << " = " << value << " is out of range: " << range;
  throw std::invalid_argument(s.str());
}

inline std::string indexed(const std::string& field, size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

}  // namespace rsalab::task_support
