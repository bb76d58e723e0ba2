// SPDX-License-Identifier: GPL-3.0-or-later
// Raw loops for RSA's REM heads inside the blocked attention kernel (no LibTorch, no Qt).
// A REM depends on (i, j) only through the lag i − j (a Toeplitz matrix), so it is stored as its
// 2T − 1 diagonals, flipped: P[i, j] = e[T − 1 − i + j] for rows i and keys j in 0..T−1. A block
// of rows r0.. reads e from `first` = T − 1 − r0 on, one contiguous run of e per row.
// Spec models.md "RSA attention": A_h = (1 − σ(µ_h))·softmax(...) + σ(µ_h)·P_h.
#pragma once

#include <cstdint>

namespace rsalab::toeplitz {

// w[i, j] ← (1 − g)·w[i, j] + g·e[first − i + j] for i < rows, j < keys; w is rows × keys,
// row-major. S = float or double.
template <class S>
void mixInto(S* w, int64_t rows, int64_t keys, const S* e, int64_t first, double g);

// sums[first − i + j] += d[i, j] for i < rows, j < keys: the block's entries summed per diagonal
// (the gradient of e). Accumulates in double.
template <class S>
void addDiagonals(const S* d, int64_t rows, int64_t keys, double* sums, int64_t first);

}  // namespace rsalab::toeplitz
