// SPDX-License-Identifier: GPL-3.0-or-later
// Row-major products straight to the BLAS that LibTorch's own CPU products call (sgemm_/dgemm_,
// looked up once with dlsym), for the hand-fused kernels (blocked attention, fused recurrent
// layers): at their sizes a LibTorch call (dispatch, views, checks) costs a good part of what the
// product itself does. Where the BLAS does not export them (e.g. MKL linked statically) the
// products go through LibTorch.
#pragma once

#include <dlfcn.h>

#include <type_traits>

#include "engine/torch_api.h"

namespace rsalab {

// The Fortran BLAS gemm that LibTorch's own CPU products call (sgemm_/dgemm_, column-major),
// looked up once in the process; null where the BLAS does not export it (e.g. MKL linked
// statically), and then the products go through LibTorch (as in fused_recurrent.cpp).
template <class S>
using FortranGemm = void (*)(const char*, const char*, const int*, const int*, const int*, const S*,
                             const S*, const int*, const S*, const int*, const S*, S*, const int*);

template <class S>
FortranGemm<S> fortranGemm() {
  static const auto fn = reinterpret_cast<FortranGemm<S>>(
      dlsym(RTLD_DEFAULT, std::is_same<S, float>::value ? "sgemm_" : "dgemm_"));
  return fn;
}

// Row-major C (m × n, row stride ldc) = op(A)·op(B) + beta·C, op(A) m × k, op(B) k × n; A is
// stored m × k (row stride lda), or k × m with trans_a; B k × n (ldb), or n × k with trans_b.
// `direct` false forces the LibTorch path (tests).
template <class S>
void rowMajorGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const S* a,
                  int64_t lda, const S* b, int64_t ldb, S beta, S* c, int64_t ldc,
                  bool direct = true) {
  if (m == 0 || n == 0 || (k == 0 && beta == S(1))) return;
  const auto f = direct ? fortranGemm<S>() : nullptr;
  if (f) {
    // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, and a row-major matrix read
    // column-major is its transpose: so B goes first, A second, the sizes n, m, k.
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const int lda_i = static_cast<int>(lda), ldb_i = static_cast<int>(ldb);
    const int ldc_i = static_cast<int>(ldc);
    const S one = 1;
    f(trans_b ? "T" : "N", trans_a ? "T" : "N", &ni, &mi, &ki, &one, b, &ldb_i, a, &lda_i, &beta, c,
      &ldc_i);
    return;
  }
  const auto opts =
      torch::TensorOptions().dtype(std::is_same<S, float>::value ? torch::kFloat : torch::kDouble);
  auto view = [&](const S* x, int64_t rows, int64_t cols, int64_t ld, bool t) {
    auto stored =
        torch::from_blob(const_cast<S*>(x), {t ? cols : rows, t ? rows : cols}, {ld, 1}, opts);
    return t ? stored.t() : stored;
  };
  auto C = torch::from_blob(c, {m, n}, {ldc, 1}, opts);
  auto A = view(a, m, k, lda, trans_a), B = view(b, k, n, ldb, trans_b);
  if (beta == S(0)) {
    C.copy_(torch::mm(A, B));
  } else {
    C.addmm_(A, B, beta);
  }
}

}  // namespace rsalab
