// SPDX-License-Identifier: GPL-3.0-or-later
// The sweeps of linear_attention_loops.h as templates, included by the two files that compile
// them, once portably and once for AVX2 + FMA (the AVX-512 sweeps, float Dh 16 only, are written
// out in linear_attention_loops_avx512.cpp): everything here has internal linkage (an unnamed
// namespace) and calls nothing outside, so the two copies never mix. Every sum runs
// along a row of Dh contiguous values (the state kept in whichever layout makes it so), so the
// inner loops vectorise without horizontal sums; φ'(x) comes from φ(x) without a branch.
#pragma once

#include "engine/models/linear_attention_loops.h"

// Each inner loop over a row is vectorised as it stands (not first unrolled into scalars, which
// GCC does to 16-wide loops otherwise): -fopenmp-simd enables only these pragmas; the rows they
// touch never overlap.
#define RSALAB_SIMD _Pragma("omp simd")
#define RSALAB_PRAGMA(x) _Pragma(#x)
#define RSALAB_SIMD_SUM(v) RSALAB_PRAGMA(omp simd reduction(+ : v))

namespace rsalab::linear_sweeps {
namespace {

template <class T>
inline void zero(T* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = T(0);
}

// y = init + Σ_r x[r]·M[r·dh ..] (init null: 0), over the dh rows of M (dh × dh). When dh is
// known and a multiple of 4, four independent partial sums, so the multiply-adds do not wait on
// each other (one chain of dh would be latency-bound). y may be init.
template <class T, int64_t kDh>
inline void combineRows(const T* M, const T* x, const T* init, T* y, int64_t dh) {
  if constexpr (kDh > 0 && kDh % 4 == 0) {
    T p0[kDh], p1[kDh], p2[kDh], p3[kDh];
    RSALAB_SIMD
    for (int64_t a = 0; a < kDh; ++a) {
      p0[a] = init ? init[a] : T(0);
      p1[a] = p2[a] = p3[a] = T(0);
    }
    for (int64_t r = 0; r < kDh; r += 4) {
      const T x0 = x[r], x1 = x[r + 1], x2 = x[r + 2], x3 = x[r + 3];
      const T* M0 = M + r * kDh;
      RSALAB_SIMD
      for (int64_t a = 0; a < kDh; ++a) {
        p0[a] += x0 * M0[a];
        p1[a] += x1 * M0[kDh + a];
        p2[a] += x2 * M0[2 * kDh + a];
        p3[a] += x3 * M0[3 * kDh + a];
      }
    }
    RSALAB_SIMD
    for (int64_t a = 0; a < kDh; ++a) y[a] = (p0[a] + p1[a]) + (p2[a] + p3[a]);
  } else {
    if (init != y) {
      RSALAB_SIMD
      for (int64_t a = 0; a < dh; ++a) y[a] = init ? init[a] : T(0);
    }
    for (int64_t r = 0; r < dh; ++r) {
      const T xr = x[r];
      const T* Mr = M + r * dh;
      RSALAB_SIMD
      for (int64_t a = 0; a < dh; ++a) y[a] += xr * Mr[a];
    }
  }
}

// M[r·dh + a] += x[r]·y[a]: the rank-1 update of a state. When dh is known, y is first copied
// into a local row, which the compiler keeps in registers (the stores into M cannot touch it).
template <class T, int64_t kDh>
inline void addOuter(T* M, const T* x, const T* y, int64_t dh) {
  if constexpr (kDh > 0) {
    T yl[kDh];
    RSALAB_SIMD
    for (int64_t a = 0; a < kDh; ++a) yl[a] = y[a];
    for (int64_t r = 0; r < kDh; ++r) {
      const T xr = x[r];
      T* Mr = M + r * kDh;
      RSALAB_SIMD
      for (int64_t a = 0; a < kDh; ++a) Mr[a] += xr * yl[a];
    }
  } else {
    for (int64_t r = 0; r < dh; ++r) {
      const T xr = x[r];
      T* Mr = M + r * dh;
      RSALAB_SIMD
      for (int64_t a = 0; a < dh; ++a) Mr[a] += xr * y[a];
    }
  }
}

// kDh > 0: the head width known when compiling (the loops unroll); 0: h.dh at run time.
// The heads advance together, one time step at a time, so the packed rows are read in order.
template <class T, int64_t kDh>
void forwardSweep(const HeadRows<T>& h, T eps, T* out, T* den, T* work) {
  const int64_t dh = kDh > 0 ? kDh : h.dh, state = dh * dh + dh;
  T* num = work + h.heads * state;  // (dh)
  zero(work, h.heads * state);
  for (int64_t i = 0; i < h.length; ++i) {
    const bool padded = h.pad && h.pad[i];
    for (int64_t e = 0; e < h.heads; ++e) {
      T* S = work + e * state;  // (dh, dh): S[a·dh + c] = Σ_j φk_j[a] v_j[c]
      T* z = S + dh * dh;       // (dh)
      const T* fq = h.fq + i * h.phi_stride + e * dh;
      if (!padded) {
        const T* fk = h.fk + i * h.phi_stride + e * dh;
        const T* v = h.v + i * h.in_stride + e * dh;
        addOuter<T, kDh>(S, fk, v, dh);  // S += φk vᵀ
        RSALAB_SIMD
        for (int64_t a = 0; a < dh; ++a) z[a] += fk[a];
      }
      T d = 0;
      RSALAB_SIMD_SUM(d)
      for (int64_t a = 0; a < dh; ++a) d += fq[a] * z[a];
      d += eps;
      combineRows<T, kDh>(S, fq, nullptr, num, dh);  // φq_iᵀS_i
      T* o = out + i * h.out_stride + e * dh;
      RSALAB_SIMD
      for (int64_t c = 0; c < dh; ++c) o[c] = num[c] / d;
      den[i * h.den_stride + e] = d;
    }
  }
}

// Head e at step i: g_i = dout_i / den_i into g; returns dden_i = −g_i·out_i.
template <class T, int64_t kDh>
T outputGradient(const HeadRows<T>& h, const T* out, const T* dout, const T* den, int64_t i,
                 int64_t e, T* g) {
  const int64_t dh = kDh > 0 ? kDh : h.dh;
  const T* o = out + i * h.out_stride + e * dh;
  const T* go = dout + i * h.out_stride + e * dh;
  const T d = den[i * h.den_stride + e];
  T dd = 0;
  RSALAB_SIMD_SUM(dd)
  for (int64_t c = 0; c < dh; ++c) {
    g[c] = go[c] / d;
    dd += g[c] * o[c];
  }
  return -dd;
}

// dx = s · φ'(x) with φ'(x) = 1 for x > 0 (where φ(x) = x + 1 ≥ 1), else e^x = φ(x) ≤ 1: so
// φ'(x) = min(φ(x), 1), without a branch on the sign.
template <class T>
inline void throughFeatureMap(const T* s, const T* fx, T* dx, int64_t n) {
  RSALAB_SIMD
  for (int64_t a = 0; a < n; ++a) dx[a] = s[a] * (fx[a] < T(1) ? fx[a] : T(1));
}

template <class T, int64_t kDh>
void backwardSweeps(const HeadRows<T>& h, const T* out, const T* dout, const T* den, T* dq_rows,
                    T* dk_rows, T* dv_rows, T* work) {
  const int64_t dh = kDh > 0 ? kDh : h.dh, state = 2 * dh * dh + dh;
  T* g = work + h.heads * state;  // (dh)
  T* acc = g + dh;                // (dh)
  // Per head: A (dh, dh) = Sᵀ in the forward sweep, R in the backward one; B (dh, dh) = Rᵀ in
  // the backward sweep; z (dh) = z, then r.
  // Forward sweep: dφq_i = S_i g_i + z_i dden_i, with Sᵀ[c·dh + a] = Σ_j v_j[c] φk_j[a].
  zero(work, h.heads * state);
  for (int64_t i = 0; i < h.length; ++i) {
    const bool padded = h.pad && h.pad[i];
    for (int64_t e = 0; e < h.heads; ++e) {
      T* St = work + e * state;
      T* z = St + 2 * dh * dh;
      const T* fq = h.fq + i * h.phi_stride + e * dh;
      if (!padded) {
        const T* fk = h.fk + i * h.phi_stride + e * dh;
        const T* v = h.v + i * h.in_stride + e * dh;
        addOuter<T, kDh>(St, v, fk, dh);  // Sᵀ += v φkᵀ
        RSALAB_SIMD
        for (int64_t a = 0; a < dh; ++a) z[a] += fk[a];
      }
      const T dd = outputGradient<T, kDh>(h, out, dout, den, i, e, g);
      RSALAB_SIMD
      for (int64_t a = 0; a < dh; ++a) acc[a] = z[a] * dd;
      combineRows<T, kDh>(St, g, acc, acc, dh);  // + S_i g_i
      throughFeatureMap(acc, fq, dq_rows + i * h.in_stride + e * dh, dh);
    }
  }
  // Backward sweep: R_j = Σ_{i≥j} φq_i g_iᵀ (R[a·dh + c], Rᵀ[c·dh + a]), r_j = Σ_{i≥j} φq_i dden_i;
  // dφk_j = R_j v_j + r_j, dv_j = R_jᵀ φk_j.
  zero(work, h.heads * state);
  for (int64_t j = h.length - 1; j >= 0; --j) {
    const bool padded = h.pad && h.pad[j];
    for (int64_t e = 0; e < h.heads; ++e) {
      T* R = work + e * state;
      T* Rt = R + dh * dh;
      T* r = Rt + dh * dh;
      const T* fq = h.fq + j * h.phi_stride + e * dh;
      const T dd = outputGradient<T, kDh>(h, out, dout, den, j, e, g);
      addOuter<T, kDh>(R, fq, g, dh);   // R += φq gᵀ
      addOuter<T, kDh>(Rt, g, fq, dh);  // Rᵀ += g φqᵀ
      RSALAB_SIMD
      for (int64_t a = 0; a < dh; ++a) r[a] += fq[a] * dd;
      T* dk = dk_rows + j * h.in_stride + e * dh;
      T* dv = dv_rows + j * h.in_stride + e * dh;
      if (padded) {
        zero(dk, dh);
        zero(dv, dh);
        continue;
      }
      const T* fk = h.fk + j * h.phi_stride + e * dh;
      const T* v = h.v + j * h.in_stride + e * dh;
      combineRows<T, kDh>(Rt, v, r, acc, dh);       // R_j v_j + r_j
      combineRows<T, kDh>(R, fk, nullptr, dv, dh);  // R_jᵀ φk_j
      throughFeatureMap(acc, fk, dk, dh);
    }
  }
}

template <class T>
void forwardAny(const HeadRows<T>& h, T eps, T* out, T* den, T* work) {
  if (h.dh == 16) return forwardSweep<T, 16>(h, eps, out, den, work);
  if (h.dh == 32) return forwardSweep<T, 32>(h, eps, out, den, work);
  if (h.dh == 8) return forwardSweep<T, 8>(h, eps, out, den, work);
  forwardSweep<T, 0>(h, eps, out, den, work);
}

template <class T>
void backwardAny(const HeadRows<T>& h, const T* out, const T* dout, const T* den, T* dq, T* dk,
                 T* dv, T* work) {
  if (h.dh == 16) return backwardSweeps<T, 16>(h, out, dout, den, dq, dk, dv, work);
  if (h.dh == 32) return backwardSweeps<T, 32>(h, out, dout, den, dq, dk, dv, work);
  if (h.dh == 8) return backwardSweeps<T, 8>(h, out, dout, den, dq, dk, dv, work);
  backwardSweeps<T, 0>(h, out, dout, den, dq, dk, dv, work);
}

}  // namespace
}  // namespace rsalab::linear_sweeps
