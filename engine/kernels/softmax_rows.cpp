// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/kernels/softmax_rows.h"

#include <algorithm>
#include <cstring>

#include "engine/kernels/fast_exp.h"

// Every loop is an always-inline template, instantiated below in three copies on x86-64: the
// baseline, AVX2 + FMA and AVX-512 (function target attributes), one picked per call from what
// the processor has. `omp simd` (-fopenmp-simd) lets the sums and maxima vectorise.
#if defined(__GNUC__) && defined(__x86_64__)
#define RSALAB_ROWS_X86 1
#define RSALAB_INLINE inline __attribute__((always_inline))
#define RSALAB_AVX2 __attribute__((target("avx2,fma")))
#define RSALAB_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma")))
#else
#define RSALAB_INLINE inline
#endif
#define RSALAB_PRAGMA(x) _Pragma(#x)
#define RSALAB_SIMD RSALAB_PRAGMA(omp simd)
#define RSALAB_SIMD_REDUCE(op, v) RSALAB_PRAGMA(omp simd reduction(op : v))

namespace rsalab::softmax_rows {
namespace {

using fastmath::expFast;

RSALAB_INLINE int64_t limitOf(int64_t i, int64_t keys, int64_t causal_first) {
  return causal_first < 0 ? keys : std::min(keys, causal_first + i + 1);
}

// max_j x[j], j < n (n ≥ 1): kLanes independent maxima (several vector registers, so that the
// compares do not wait on one another), then the rest and the lanes' max.
template <class S>
RSALAB_INLINE S rowMax(const S* __restrict x, int64_t n) {
  constexpr int64_t kLanes = 64;
  S lanes[kLanes];
  for (int64_t t = 0; t < kLanes; ++t) lanes[t] = x[0];
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    RSALAB_SIMD
    for (int64_t t = 0; t < kLanes; ++t) lanes[t] = x[j + t] > lanes[t] ? x[j + t] : lanes[t];
  }
  S m = x[0];
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  RSALAB_SIMD_REDUCE(max, m)
  for (int64_t t = 0; t < kLanes; ++t) m = lanes[t] > m ? lanes[t] : m;
  return m;
}

template <class S>
RSALAB_INLINE void softmaxImpl(S* s, int64_t rows, int64_t keys, int64_t causal_first, S* stats,
                               bool normalise) {
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = s + i * keys;
    const int64_t n = limitOf(i, keys, causal_first);
    const S m = rowMax(row, n);
    S sum = 0;
    RSALAB_SIMD_REDUCE(+, sum)
    for (int64_t j = 0; j < n; ++j) {
      const S e = expFast(row[j] - m);
      row[j] = e;
      sum += e;
    }
    const S inv = S(1) / sum;
    if (normalise) {
      RSALAB_SIMD
      for (int64_t j = 0; j < n; ++j) row[j] *= inv;
    }
    std::fill(row + n, row + keys, S(0));
    stats[2 * i] = m;
    stats[2 * i + 1] = inv;
  }
}

template <class S>
RSALAB_INLINE void weightsImpl(S* s, int64_t rows, int64_t keys, int64_t causal_first,
                               const S* stats) {
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = s + i * keys;
    const int64_t n = limitOf(i, keys, causal_first);
    const S m = stats[2 * i], inv = stats[2 * i + 1];
    RSALAB_SIMD
    for (int64_t j = 0; j < n; ++j) row[j] = expFast(row[j] - m) * inv;
    std::fill(row + n, row + keys, S(0));
  }
}

template <class S>
RSALAB_INLINE void rowDotsImpl(const S* a, const S* b, int64_t rows, int64_t cols,
                               int64_t causal_first, S* out) {
  for (int64_t i = 0; i < rows; ++i) {
    const S* __restrict x = a + i * cols;
    const S* __restrict y = b + i * cols;
    const int64_t n = limitOf(i, cols, causal_first);
    S sum = 0;
    RSALAB_SIMD_REDUCE(+, sum)
    for (int64_t j = 0; j < n; ++j) sum += x[j] * y[j];
    out[i] = sum;
  }
}

template <class S>
RSALAB_INLINE void scoreGradsImpl(S* d, const S* w, int64_t rows, int64_t keys,
                                  int64_t causal_first, const S* delta, S factor) {
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = d + i * keys;
    const S* __restrict wr = w + i * keys;
    const int64_t n = limitOf(i, keys, causal_first);
    const S dl = delta[i];
    RSALAB_SIMD
    for (int64_t j = 0; j < n; ++j) row[j] = factor * (row[j] - dl) * wr[j];
    std::fill(row + n, row + keys, S(0));
  }
}

template <class S>
RSALAB_INLINE void scaleRowsImpl(S* x, int64_t rows, int64_t cols, const S* stats) {
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = x + i * cols;
    const S inv = stats[2 * i + 1];
    RSALAB_SIMD
    for (int64_t j = 0; j < cols; ++j) row[j] *= inv;
  }
}

// The lag as a 32-bit integer (rows and keys are far below 2³¹), whose conversion vectorises;
// the same values as the 64-bit one.
template <class S>
RSALAB_INLINE void addLagBiasImpl(S* s, int64_t rows, int64_t keys, int64_t first_row, S slope) {
  const auto n = static_cast<int32_t>(keys);
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = s + i * keys;
    const auto at = static_cast<int32_t>(first_row + i);
    RSALAB_SIMD
    for (int32_t j = 0; j < n; ++j) row[j] -= slope * static_cast<S>(at - j);
  }
}

template <class S>
RSALAB_INLINE void addPositionBiasImpl(S* s, int64_t rows, int64_t keys, const S* c_rows,
                                       const S* c_keys) {
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = s + i * keys;
    const S* __restrict ck = c_keys;
    const S ci = c_rows[i];
    RSALAB_SIMD
    for (int64_t j = 0; j < keys; ++j) row[j] += ci - ck[j];
  }
}

template <class S>
RSALAB_INLINE void subtractColumnSumsImpl(const S* d, int64_t rows, int64_t keys, S* dc) {
  S* __restrict out = dc;
  for (int64_t i = 0; i < rows; ++i) {
    const S* __restrict row = d + i * keys;
    RSALAB_SIMD
    for (int64_t j = 0; j < keys; ++j) out[j] -= row[j];
  }
}

// name##Base, name##Avx2 and name##Avx512 calling name##Impl (the last two on x86-64 only), and
// the public name picking one.
#ifdef RSALAB_ROWS_X86
enum class Isa { base, avx2, avx512 };
Isa highestIsa() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Isa::base;
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                 __builtin_cpu_supports("avx512dq")
             ? Isa::avx512
             : Isa::avx2;
}
Isa isa() {
  static const Isa highest = highestIsa();
  return highest;
}
#define RSALAB_ROWS_VARIANTS(name, params, args) \
  template <class S>                             \
  void name##Base params {                       \
    name##Impl args;                             \
  }                                              \
  template <class S>                             \
  RSALAB_AVX2 void name##Avx2 params {           \
    name##Impl args;                             \
  }                                              \
  template <class S>                             \
  RSALAB_AVX512 void name##Avx512 params {       \
    name##Impl args;                             \
  }
#define RSALAB_ROWS_DISPATCH(name, args) \
  do {                                   \
    switch (isa()) {                     \
      case Isa::avx512:                  \
        return name##Avx512<S> args;     \
      case Isa::avx2:                    \
        return name##Avx2<S> args;       \
      default:                           \
        return name##Base<S> args;       \
    }                                    \
  } while (false)
#else
#define RSALAB_ROWS_VARIANTS(name, params, args) \
  template <class S>                             \
  void name##Base params {                       \
    name##Impl args;                             \
  }
#define RSALAB_ROWS_DISPATCH(name, args) return name##Base<S> args
#endif

// clang-format off
RSALAB_ROWS_VARIANTS(softmax,
                     (S* s, int64_t rows, int64_t keys, int64_t cf, S* stats, bool normalise),
                     (s, rows, keys, cf, stats, normalise))
RSALAB_ROWS_VARIANTS(weights, (S* s, int64_t rows, int64_t keys, int64_t cf, const S* stats),
                     (s, rows, keys, cf, stats))
RSALAB_ROWS_VARIANTS(rowDots,
                     (const S* a, const S* b, int64_t rows, int64_t cols, int64_t cf, S* out),
                     (a, b, rows, cols, cf, out))
RSALAB_ROWS_VARIANTS(scoreGrads,
                     (S* d, const S* w, int64_t rows, int64_t keys, int64_t cf, const S* delta,
                      S factor),
                     (d, w, rows, keys, cf, delta, factor))
RSALAB_ROWS_VARIANTS(scaleRows, (S* x, int64_t rows, int64_t cols, const S* stats),
                     (x, rows, cols, stats))
RSALAB_ROWS_VARIANTS(addLagBias, (S* s, int64_t rows, int64_t keys, int64_t first, S slope),
                     (s, rows, keys, first, slope))
RSALAB_ROWS_VARIANTS(addPositionBias,
                     (S* s, int64_t rows, int64_t keys, const S* c_rows, const S* c_keys),
                     (s, rows, keys, c_rows, c_keys))
RSALAB_ROWS_VARIANTS(subtractColumnSums, (const S* d, int64_t rows, int64_t keys, S* dc),
                     (d, rows, keys, dc))
// clang-format on

}  // namespace

template <class S>
void softmax(S* s, int64_t rows, int64_t keys, int64_t causal_first, S* stats, bool normalise) {
  RSALAB_ROWS_DISPATCH(softmax, (s, rows, keys, causal_first, stats, normalise));
}

template <class S>
void weights(S* s, int64_t rows, int64_t keys, int64_t causal_first, const S* stats) {
  RSALAB_ROWS_DISPATCH(weights, (s, rows, keys, causal_first, stats));
}

template <class S>
void rowDots(const S* a, const S* b, int64_t rows, int64_t cols, int64_t causal_first, S* out) {
  RSALAB_ROWS_DISPATCH(rowDots, (a, b, rows, cols, causal_first, out));
}

template <class S>
void scoreGrads(S* d, const S* w, int64_t rows, int64_t keys, int64_t causal_first, const S* delta,
                S factor) {
  RSALAB_ROWS_DISPATCH(scoreGrads, (d, w, rows, keys, causal_first, delta, factor));
}

template <class S>
void scaleRows(S* x, int64_t rows, int64_t cols, const S* stats) {
  RSALAB_ROWS_DISPATCH(scaleRows, (x, rows, cols, stats));
}

template <class S>
void addLagBias(S* s, int64_t rows, int64_t keys, int64_t first_row, S slope) {
  RSALAB_ROWS_DISPATCH(addLagBias, (s, rows, keys, first_row, slope));
}

template <class S>
void addPositionBias(S* s, int64_t rows, int64_t keys, const S* c_rows, const S* c_keys) {
  RSALAB_ROWS_DISPATCH(addPositionBias, (s, rows, keys, c_rows, c_keys));
}

template <class S>
void subtractColumnSums(const S* d, int64_t rows, int64_t keys, S* dc) {
  RSALAB_ROWS_DISPATCH(subtractColumnSums, (d, rows, keys, dc));
}

template void softmax<float>(float*, int64_t, int64_t, int64_t, float*, bool);
template void weights<float>(float*, int64_t, int64_t, int64_t, const float*);
template void rowDots<float>(const float*, const float*, int64_t, int64_t, int64_t, float*);
template void scoreGrads<float>(float*, const float*, int64_t, int64_t, int64_t, const float*,
                                float);
template void scaleRows<float>(float*, int64_t, int64_t, const float*);
template void softmax<double>(double*, int64_t, int64_t, int64_t, double*, bool);
template void weights<double>(double*, int64_t, int64_t, int64_t, const double*);
template void rowDots<double>(const double*, const double*, int64_t, int64_t, int64_t, double*);
template void scoreGrads<double>(double*, const double*, int64_t, int64_t, int64_t, const double*,
                                 double);
template void scaleRows<double>(double*, int64_t, int64_t, const double*);
template void addLagBias<float>(float*, int64_t, int64_t, int64_t, float);
template void addLagBias<double>(double*, int64_t, int64_t, int64_t, double);
template void addPositionBias<float>(float*, int64_t, int64_t, const float*, const float*);
template void addPositionBias<double>(double*, int64_t, int64_t, const double*, const double*);
template void subtractColumnSums<float>(const float*, int64_t, int64_t, float*);
template void subtractColumnSums<double>(const double*, int64_t, int64_t, double*);

}  // namespace rsalab::softmax_rows
