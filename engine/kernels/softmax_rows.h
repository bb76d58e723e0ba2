// SPDX-License-Identifier: GPL-3.0-or-later
// Raw row loops of the blocked softmax attention kernel (engine/kernels/blocked_attention.cpp):
// the softmax of a block of scores with its causal limit, the weights' recomputation in the
// backward, and the softmax backward, each one pass per row (no LibTorch, no Qt). S = float or
// double. A block is `rows` rows of `keys` values, row-major (row stride `keys`). Row i reads keys
// j < limit(i): all `keys`, or with causal_first ≥ 0 (a causal block whose first row is query
// causal_first) min(keys, causal_first + i + 1); the entries from limit(i) on are set to 0, so
// that later products with the block are unaffected. exp is a polynomial (float: |rel err| ≲ 2e-7;
// double: ≲ 2e-16), so that the loops vectorise; on x86-64 a copy for AVX2 + FMA and one for
// AVX-512 are picked at run time.
#pragma once

#include <cstdint>

namespace rsalab::softmax_rows {

// Row statistics, two per row: the row's max m and 1/Σ_j exp(s_j − m).
// s ← exp(s − m)·(normalise ? 1/Σ : 1) on every row, in place; stats (rows × 2) receives m, 1/Σ.
template <class S>
void softmax(S* s, int64_t rows, int64_t keys, int64_t causal_first, S* stats, bool normalise);

// The softmax recomputed from its statistics: s ← exp(s − m)·(1/Σ), in place (the same values as
// softmax(..., normalise = true) for the same scores).
template <class S>
void weights(S* s, int64_t rows, int64_t keys, int64_t causal_first, const S* stats);

// out[i] = Σ_{j < limit(i)} a[i, j]·b[i, j] (a, b rows × cols; limit as above with keys = cols).
template <class S>
void rowDots(const S* a, const S* b, int64_t rows, int64_t cols, int64_t causal_first, S* out);

// The softmax backward: d[i, j] ← factor·(d[i, j] − delta[i])·w[i, j] for j < limit(i), 0 after.
template <class S>
void scoreGrads(S* d, const S* w, int64_t rows, int64_t keys, int64_t causal_first, const S* delta,
                S factor);

// Score biases, added before the softmax (ALiBi, FoX; blocked_attention.cpp), on all `keys` of
// each row (the softmax then limits the row).
// ALiBi: s[i, j] −= slope·(first_row + i − j).
template <class S>
void addLagBias(S* s, int64_t rows, int64_t keys, int64_t first_row, S slope);
// FoX: s[i, j] += c_rows[i] − c_keys[j].
template <class S>
void addPositionBias(S* s, int64_t rows, int64_t keys, const S* c_rows, const S* c_keys);
// dc[j] −= Σ_i d[i, j] (FoX's key-side gradient).
template <class S>
void subtractColumnSums(const S* d, int64_t rows, int64_t keys, S* dc);

// x[i, :] *= stats[2i + 1] (x rows × cols): an unnormalised softmax's product, normalised.
template <class S>
void scaleRows(S* x, int64_t rows, int64_t cols, const S* stats);

}  // namespace rsalab::softmax_rows
