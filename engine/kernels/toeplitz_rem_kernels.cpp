// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/kernels/toeplitz_rem_kernels.h"

namespace rsalab::toeplitz {

template <class S>
void mixInto(S* w, int64_t rows, int64_t keys, const S* e, int64_t first, double g) {
  const S keep = static_cast<S>(1 - g), take = static_cast<S>(g);
  for (int64_t i = 0; i < rows; ++i) {
    S* __restrict row = w + i * keys;
    const S* __restrict p = e + (first - i);  // p[j] = P[r0 + i, j]
    for (int64_t j = 0; j < keys; ++j) row[j] = keep * row[j] + take * p[j];
  }
}

template <class S>
void addDiagonals(const S* d, int64_t rows, int64_t keys, double* sums, int64_t first) {
  for (int64_t i = 0; i < rows; ++i) {
    const S* __restrict row = d + i * keys;
    double* __restrict s = sums + (first - i);
    for (int64_t j = 0; j < keys; ++j) s[j] += static_cast<double>(row[j]);
  }
}

template void mixInto<float>(float*, int64_t, int64_t, const float*, int64_t, double);
template void mixInto<double>(double*, int64_t, int64_t, const double*, int64_t, double);
template void addDiagonals<float>(const float*, int64_t, int64_t, double*, int64_t);
template void addDiagonals<double>(const double*, int64_t, int64_t, double*, int64_t);

}  // namespace rsalab::toeplitz
