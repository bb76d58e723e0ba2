#include "engine/models/linear_attention_sweeps.h"

#include <algorithm>

namespace rsalab::linear_sweeps {

namespace {

// kDh > 0: the head width known when compiling (the loops unroll); 0: h.dh at run time.
template <class T, int64_t kDh>
void forwardSweep(const HeadRows<T>& h, T eps, T* out, T* den, T* work) {
  const int64_t dh = kDh > 0 ? kDh : h.dh;
  T local[kDh > 0 ? kDh * kDh + 3 * kDh : 1];  // scratch the compiler sees is not aliased
  if (kDh > 0) work = local;
  T* S = work;         // (dh, dh): S[a·dh + c] = Σ φk_a v_c
  T* z = S + dh * dh;  // (dh)
  T* num = z + dh;     // (dh)
  std::fill(work, work + dh * dh + dh, T(0));
  for (int64_t i = 0; i < h.length; ++i) {
    const T* fq = h.fq + i * h.phi_stride;
    if (!h.pad || !h.pad[i]) {
      const T* fk = h.fk + i * h.phi_stride;
      const T* v = h.v + i * h.in_stride;
      for (int64_t a = 0; a < dh; ++a) {
        const T f = fk[a];
        T* Sa = S + a * dh;
        for (int64_t c = 0; c < dh; ++c) Sa[c] += f * v[c];
        z[a] += f;
      }
    }
    T d = 0;
    for (int64_t a = 0; a < dh; ++a) d += fq[a] * z[a];
    d += eps;
    std::fill(num, num + dh, T(0));
    for (int64_t a = 0; a < dh; ++a) {
      const T f = fq[a];
      const T* Sa = S + a * dh;
      for (int64_t c = 0; c < dh; ++c) num[c] += f * Sa[c];
    }
    T* o = out + i * h.out_stride;
    for (int64_t c = 0; c < dh; ++c) o[c] = num[c] / d;
    den[i] = d;
  }
}

// g_i = dout_i / den_i into g; returns dden_i = −g_i·out_i.
template <class T, int64_t kDh>
T outputGradient(const HeadRows<T>& h, const T* out, const T* dout, const T* den, int64_t i, T* g) {
  const int64_t dh = kDh > 0 ? kDh : h.dh;
  const T* o = out + i * h.out_stride;
  const T* go = dout + i * h.out_stride;
  const T d = den[i];
  T dd = 0;
  for (int64_t c = 0; c < dh; ++c) {
    g[c] = go[c] / d;
    dd += g[c] * o[c];
  }
  return -dd;
}

template <class T, int64_t kDh>
void backwardSweeps(const HeadRows<T>& h, const T* out, const T* dout, const T* den, T* dq_rows,
                    T* dk_rows, T* dv_rows, T* work) {
  const int64_t dh = kDh > 0 ? kDh : h.dh;
  T local[kDh > 0 ? kDh * kDh + 3 * kDh : 1];  // scratch the compiler sees is not aliased
  if (kDh > 0) work = local;
  T* S = work;         // (dh, dh), then R
  T* z = S + dh * dh;  // (dh), then r
  T* g = z + dh;       // (dh)
  T* acc = g + dh;     // (dh)
  // Forward sweep: dφq_i = S_i g_i + z_i dden_i.
  std::fill(work, work + dh * dh + dh, T(0));
  for (int64_t i = 0; i < h.length; ++i) {
    const T* fq = h.fq + i * h.phi_stride;
    const T* q = h.q + i * h.in_stride;
    if (!h.pad || !h.pad[i]) {
      const T* fk = h.fk + i * h.phi_stride;
      const T* v = h.v + i * h.in_stride;
      for (int64_t a = 0; a < dh; ++a) {
        const T f = fk[a];
        T* Sa = S + a * dh;
        for (int64_t c = 0; c < dh; ++c) Sa[c] += f * v[c];
        z[a] += f;
      }
    }
    const T dd = outputGradient<T, kDh>(h, out, dout, den, i, g);
    T* dq = dq_rows + i * h.in_stride;
    for (int64_t a = 0; a < dh; ++a) {
      const T* Sa = S + a * dh;
      T s = 0;
      for (int64_t c = 0; c < dh; ++c) s += Sa[c] * g[c];
      s += z[a] * dd;
      dq[a] = q[a] > 0 ? s : s * fq[a];  // φ'(x) = 1 for x > 0, else e^x = φ(x)
    }
  }
  // Backward sweep: R_j = Σ_{i≥j} φq_i g_iᵀ, r_j = Σ_{i≥j} φq_i dden_i.
  T* R = S;
  T* r = z;
  std::fill(work, work + dh * dh + dh, T(0));
  for (int64_t j = h.length - 1; j >= 0; --j) {
    const T* fq = h.fq + j * h.phi_stride;
    const T dd = outputGradient<T, kDh>(h, out, dout, den, j, g);
    for (int64_t a = 0; a < dh; ++a) {
      const T f = fq[a];
      T* Ra = R + a * dh;
      for (int64_t c = 0; c < dh; ++c) Ra[c] += f * g[c];
      r[a] += f * dd;
    }
    T* dk = dk_rows + j * h.in_stride;
    T* dv = dv_rows + j * h.in_stride;
    if (h.pad && h.pad[j]) {
      std::fill(dk, dk + dh, T(0));
      std::fill(dv, dv + dh, T(0));
      continue;
    }
    const T* fk = h.fk + j * h.phi_stride;
    const T* k = h.k + j * h.in_stride;
    const T* v = h.v + j * h.in_stride;
    std::fill(acc, acc + dh, T(0));
    for (int64_t a = 0; a < dh; ++a) {
      const T f = fk[a];
      const T* Ra = R + a * dh;
      T s = 0;
      for (int64_t c = 0; c < dh; ++c) {
        s += Ra[c] * v[c];
        acc[c] += f * Ra[c];
      }
      s += r[a];
      dk[a] = k[a] > 0 ? s : s * f;
    }
    std::copy(acc, acc + dh, dv);
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

void forward(const HeadRows<float>& h, float eps, float* out, float* den, float* work) {
  forwardAny(h, eps, out, den, work);
}
void forward(const HeadRows<double>& h, double eps, double* out, double* den, double* work) {
  forwardAny(h, eps, out, den, work);
}
void backward(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
              float* dq, float* dk, float* dv, float* work) {
  backwardAny(h, out, dout, den, dq, dk, dv, work);
}
void backward(const HeadRows<double>& h, const double* out, const double* dout, const double* den,
              double* dq, double* dk, double* dv, double* work) {
  backwardAny(h, out, dout, den, dq, dk, dv, work);
}

}  // namespace rsalab::linear_sweeps
