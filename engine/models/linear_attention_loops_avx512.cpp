// SPDX-License-Identifier: GPL-3.0-or-later
// The sweeps for float heads of width 16 with AVX-512 (engine/CMakeLists.txt), chosen at run time
// by linear_attention_loops.cpp: a row of 16 floats is one register, so a head's whole 16 × 16
// state (S, Sᵀ or R) stays in 16 registers for the whole sweep; only the rows of the inputs and
// outputs touch memory. Each head is swept alone (its state fills the registers).
#include <immintrin.h>

#include "engine/models/linear_attention_loops.h"

namespace rsalab::linear_sweeps::avx512 {

namespace {

constexpr int64_t kDh = 16;

// Σ_a x[a]·M[a], four independent partial sums.
inline __m512 combine(const __m512* M, const float* x, __m512 init) {
  __m512 p0 = init, p1 = _mm512_setzero_ps(), p2 = _mm512_setzero_ps(), p3 = _mm512_setzero_ps();
  for (int a = 0; a < kDh; a += 4) {
    p0 = _mm512_fmadd_ps(_mm512_set1_ps(x[a]), M[a], p0);
    p1 = _mm512_fmadd_ps(_mm512_set1_ps(x[a + 1]), M[a + 1], p1);
    p2 = _mm512_fmadd_ps(_mm512_set1_ps(x[a + 2]), M[a + 2], p2);
    p3 = _mm512_fmadd_ps(_mm512_set1_ps(x[a + 3]), M[a + 3], p3);
  }
  return _mm512_add_ps(_mm512_add_ps(p0, p1), _mm512_add_ps(p2, p3));
}

// The 16 horizontal sums of P[0..15], one per lane, in the order fold() leaves them.
inline __m512 foldSums(const __m512* P) {
  __m512 q[8], r[4], s[2];
  for (int a = 0; a < 8; ++a)  // 256-bit halves: rows a, a + 8, 8 partial sums each
    q[a] = _mm512_add_ps(_mm512_shuffle_f32x4(P[a], P[a + 8], 0x44),
                         _mm512_shuffle_f32x4(P[a], P[a + 8], 0xEE));
  for (int a = 0; a < 4; ++a)  // 128-bit lanes: 4 rows, 4 partial sums each
    r[a] = _mm512_add_ps(_mm512_shuffle_f32x4(q[a], q[a + 4], 0x88),
                         _mm512_shuffle_f32x4(q[a], q[a + 4], 0xDD));
  for (int a = 0; a < 2; ++a)  // pairs within lanes: 8 rows, 2 partial sums each
    s[a] = _mm512_add_ps(_mm512_shuffle_ps(r[a], r[a + 2], 0x44),
                         _mm512_shuffle_ps(r[a], r[a + 2], 0xEE));
  return _mm512_add_ps(_mm512_shuffle_ps(s[0], s[1], 0x88), _mm512_shuffle_ps(s[0], s[1], 0xDD));
}

// The permutation that puts row a's sum in lane a after foldSums, found by folding rows of a.
__m512i foldOrder() {
  __m512 P[kDh];
  for (int a = 0; a < kDh; ++a) P[a] = _mm512_set1_ps(static_cast<float>(a));
  alignas(64) float lanes[kDh];
  _mm512_store_ps(lanes, foldSums(P));  // lane L holds 16·row(L)
  alignas(64) int index[kDh];
  for (int lane = 0; lane < kDh; ++lane) index[static_cast<int>(lanes[lane]) / kDh] = lane;
  return _mm512_load_si512(index);
}

// (R[a]·v) for a = 0..15 as one register.
inline __m512 rowDots(const __m512* R, __m512 v, __m512i order) {
  __m512 P[kDh];
  for (int a = 0; a < kDh; ++a) P[a] = _mm512_mul_ps(R[a], v);
  return _mm512_permutexvar_ps(order, foldSums(P));
}

// e^x for x ≤ 0 (Cephes' expf: x = n·ln 2 + r, a degree-6 polynomial in r, times 2^n), within
// about 2 ulp of std::exp; below −87.3 (where e^x is not a normal float) it gives e^−87.3.
inline __m512 expNonPositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.3f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

// φ(x) = elu(x) + 1: x + 1 for x > 0, else e^x.
inline __m512 featureMap(__m512 x) {
  const __mmask16 positive = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  return _mm512_mask_add_ps(expNonPositive(x), positive, x, _mm512_set1_ps(1.0f));
}

inline __m512 throughFeatureMap(__m512 s, __m512 fx) {  // s · min(φ(x), 1) = s · φ'(x)
  return _mm512_mul_ps(s, _mm512_min_ps(fx, _mm512_set1_ps(1.0f)));
}

}  // namespace

void forward16(const HeadRows<float>& h, float eps, float* out, float* den) {
  // With q, k: φ computed here, and written to fq, fk unless those are null (no backward).
  const bool features = h.q != nullptr;
  alignas(64) float phi[2 * kDh];
  for (int64_t e = 0; e < h.heads; ++e) {
    __m512 S[kDh], z = _mm512_setzero_ps();  // S[a] = Σ_j φk_j[a] v_jᵀ
    for (auto& row : S) row = _mm512_setzero_ps();
    for (int64_t i = 0; i < h.length; ++i) {
      const float* fq = h.fq ? h.fq + i * h.phi_stride + e * kDh : phi;
      const float* fk = h.fk ? h.fk + i * h.phi_stride + e * kDh : phi + kDh;
      if (features) {
        const int64_t x = i * h.in_stride + e * kDh;
        const __m512 fqx = featureMap(_mm512_loadu_ps(h.q + x));
        const __m512 fkx = featureMap(_mm512_loadu_ps(h.k + x));
        _mm512_store_ps(phi, fqx);
        _mm512_store_ps(phi + kDh, fkx);
        if (h.fq) {
          _mm512_storeu_ps(const_cast<float*>(fq), fqx);
          _mm512_storeu_ps(const_cast<float*>(fk), fkx);
        }
        fq = phi;
        fk = phi + kDh;
      }
      if (!h.pad || !h.pad[i]) {
        const __m512 v = _mm512_loadu_ps(h.v + i * h.in_stride + e * kDh);
        for (int a = 0; a < kDh; ++a) S[a] = _mm512_fmadd_ps(_mm512_set1_ps(fk[a]), v, S[a]);
        z = _mm512_add_ps(z, _mm512_loadu_ps(fk));
      }
      const float d = _mm512_reduce_add_ps(_mm512_mul_ps(_mm512_loadu_ps(fq), z)) + eps;
      const __m512 num = combine(S, fq, _mm512_setzero_ps());
      _mm512_storeu_ps(out + i * h.out_stride + e * kDh, _mm512_div_ps(num, _mm512_set1_ps(d)));
      if (den) den[i * h.den_stride + e] = d;
    }
  }
}

void backward16(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
                float* dq_rows, float* dk_rows, float* dv_rows) {
  const __m512i order = foldOrder();
  alignas(64) float g[kDh];
  for (int64_t e = 0; e < h.heads; ++e) {
    // g_i = dout_i / den_i (into g); returns dden_i = −g_i·out_i.
    auto gradient = [&](int64_t i) {
      const __m512 gi = _mm512_div_ps(_mm512_loadu_ps(dout + i * h.out_stride + e * kDh),
                                      _mm512_set1_ps(den[i * h.den_stride + e]));
      _mm512_store_ps(g, gi);
      return -_mm512_reduce_add_ps(
          _mm512_mul_ps(gi, _mm512_loadu_ps(out + i * h.out_stride + e * kDh)));
    };
    // Forward sweep: dφq_i = S_i g_i + z_i dden_i, with St[c] = Σ_j v_j[c] φk_j.
    __m512 St[kDh], z = _mm512_setzero_ps();
    for (auto& row : St) row = _mm512_setzero_ps();
    for (int64_t i = 0; i < h.length; ++i) {
      if (!h.pad || !h.pad[i]) {
        const float* v = h.v + i * h.in_stride + e * kDh;
        const __m512 fk = _mm512_loadu_ps(h.fk + i * h.phi_stride + e * kDh);
        for (int c = 0; c < kDh; ++c) St[c] = _mm512_fmadd_ps(_mm512_set1_ps(v[c]), fk, St[c]);
        z = _mm512_add_ps(z, fk);
      }
      const float dd = gradient(i);
      const __m512 acc = combine(St, g, _mm512_mul_ps(z, _mm512_set1_ps(dd)));
      const __m512 fq = _mm512_loadu_ps(h.fq + i * h.phi_stride + e * kDh);
      _mm512_storeu_ps(dq_rows + i * h.in_stride + e * kDh, throughFeatureMap(acc, fq));
    }
    // Backward sweep: R[a] = Σ_{i≥j} φq_i[a] g_iᵀ, r = Σ_{i≥j} φq_i dden_i; dφk_j = R v_j + r,
    // dv_j = Σ_a φk_j[a] R[a].
    __m512 R[kDh], r = _mm512_setzero_ps();
    for (auto& row : R) row = _mm512_setzero_ps();
    for (int64_t j = h.length - 1; j >= 0; --j) {
      const float dd = gradient(j);
      const float* fq = h.fq + j * h.phi_stride + e * kDh;
      const __m512 gj = _mm512_load_ps(g);
      for (int a = 0; a < kDh; ++a) R[a] = _mm512_fmadd_ps(_mm512_set1_ps(fq[a]), gj, R[a]);
      r = _mm512_fmadd_ps(_mm512_loadu_ps(fq), _mm512_set1_ps(dd), r);
      float* dk = dk_rows + j * h.in_stride + e * kDh;
      float* dv = dv_rows + j * h.in_stride + e * kDh;
      if (h.pad && h.pad[j]) {
        _mm512_storeu_ps(dk, _mm512_setzero_ps());
        _mm512_storeu_ps(dv, _mm512_setzero_ps());
        continue;
      }
      const float* fk = h.fk + j * h.phi_stride + e * kDh;
      const __m512 v = _mm512_loadu_ps(h.v + j * h.in_stride + e * kDh);
      const __m512 dphi_k = _mm512_add_ps(rowDots(R, v, order), r);
      _mm512_storeu_ps(dk, throughFeatureMap(dphi_k, _mm512_loadu_ps(fk)));
      _mm512_storeu_ps(dv, combine(R, fk, _mm512_setzero_ps()));
    }
  }
}

}  // namespace rsalab::linear_sweeps::avx512
