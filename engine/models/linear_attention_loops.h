// SPDX-License-Identifier: GPL-3.0-or-later
// Causal linear attention of a few heads as plain loops over raw rows (no LibTorch): the sweeps
// behind fusedCausalLinearAttention (linear_attention_kernel.h). Compiled with -O3 (and once more
// for AVX2 + FMA, chosen at run time); the loops are in linear_attention_loops_impl.h.
#pragma once

#include <cstdint>

namespace rsalab::linear_sweeps {

// Heads e = 0 .. heads − 1 of one sequence, advancing together over time: row i of head e of v
// at v + i·in_stride + e·dh, of φ(q), φ(k) at fq (fk) + i·phi_stride + e·dh, of out and its
// gradient at out + i·out_stride + e·dh, its normaliser den at den + i·den_stride + e.
// pad (length) or nullptr: true = key left out. dh is both the key and the value width.
// q, k (laid out as v): read only by a forward that computes φ itself (computesFeatures), which
// then writes φ(q), φ(k) where fq, fk point (for the backward).
template <class T>
struct HeadRows {
  const T *v, *fq, *fk;
  int64_t in_stride, phi_stride, out_stride, den_stride;
  const bool* pad;
  int64_t length, dh, heads;
  const T *q = nullptr, *k = nullptr;
};

// Scratch values: two dh × dh states and a row per head, and two rows.
inline int64_t workSize(int64_t dh, int64_t heads) { return heads * (2 * dh * dh + dh) + 2 * dh; }

// Whether forward() computes φ = elu + 1 of q and k itself (AVX-512, float, dh = 16) instead of
// reading it precomputed: then fq, fk point where it writes φ for the backward, or are null (and
// den too) when no backward follows.
bool computesFeatures(bool is_float, int64_t dh);

// out_i = φq_iᵀS_i / den_i, den_i = φq_iᵀz_i + eps: writes out and den.
void forward(const HeadRows<float>& h, float eps, float* out, float* den, float* work);
void forward(const HeadRows<double>& h, double eps, double* out, double* den, double* work);

// With g_i = dout_i / den_i and dden_i = −g_i·out_i: dφq_i = S_i g_i + z_i dden_i (forward
// sweep), dφk_j = R_j v_j + r_j and dv_j = R_jᵀφk_j with R_j = Σ_{i≥j} φq_i g_iᵀ, r_j = Σ_{i≥j}
// φq_i dden_i (backward sweep); dq, dk through φ' (1 where x > 0, else φ(x)). Padded keys get
// dk = dv = 0. dq, dk, dv laid out as v; dout as out.
void backward(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
              float* dq, float* dk, float* dv, float* work);
void backward(const HeadRows<double>& h, const double* out, const double* dout, const double* den,
              double* dq, double* dk, double* dv, double* work);

// Which copy of the sweeps runs: this portable one, the AVX2 + FMA one below, or (float, dh = 16
// only; the others as AVX2) the AVX-512 one, whose 16 × 16 state lives in registers. By default
// the highest the processor has; tests lower it to check the others. Returns the one now used.
enum class Isa { portable = 0, avx2 = 1, avx512 = 2 };
Isa useIsa(Isa highest);

// The same compiled for AVX2 + FMA (only where RSALAB_SWEEPS_AVX2 is defined).
namespace avx2 {
void forward(const HeadRows<float>& h, float eps, float* out, float* den, float* work);
void forward(const HeadRows<double>& h, double eps, double* out, double* den, double* work);
void backward(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
              float* dq, float* dk, float* dv, float* work);
void backward(const HeadRows<double>& h, const double* out, const double* dout, const double* den,
              double* dq, double* dk, double* dv, double* work);
}  // namespace avx2

// AVX-512, float heads of width 16 (needs no scratch).
namespace avx512 {
void forward16(const HeadRows<float>& h, float eps, float* out, float* den);
void backward16(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
                float* dq, float* dk, float* dv);
}  // namespace avx512

}  // namespace rsalab::linear_sweeps
