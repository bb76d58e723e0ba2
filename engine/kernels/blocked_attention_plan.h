// SPDX-License-Identifier: GPL-3.0-or-later
// Block sizes of the blocked softmax attention kernel (engine/kernels/blocked_attention.h), as
// plain C++ (no LibTorch) so that a test can check them under -D_GLIBCXX_ASSERTIONS.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rsalab {

// Query rows per block for sequences of T ≥ 1 positions: about block_values / T (so a block's
// scores, rows × T, stay near block_values), at least 16 rows — or all T when T < 16 — and never
// more than T.
inline int64_t attentionBlockRows(int64_t T, int64_t block_values) {
  return std::clamp<int64_t>(block_values / T, std::min<int64_t>(16, T), T);
}

}  // namespace rsalab
