// One head of causal linear attention as plain loops over raw rows (no LibTorch): the sweeps
// behind fusedCausalLinearAttention (linear_attention_kernel.h). Compiled with -O3 and
// reassociation allowed, so the short sums over Dh vectorise (see engine/CMakeLists.txt).
#pragma once

#include <cstdint>

namespace rsalab::linear_sweeps {

// One head's rows: row i of q, k, v at q + i·in_stride (etc.), of φ(q), φ(k) at fq + i·phi_stride
// (etc.), of out and its gradient at out + i·out_stride. pad (T) or nullptr: true = key left out.
// Dh is both the key and the value width.
template <class T>
struct HeadRows {
  const T *q, *k, *v;
  const T *fq, *fk;
  int64_t in_stride, phi_stride, out_stride;
  const bool* pad;
  int64_t length, dh;
};

// Scratch values per head (S, z and two rows).
inline int64_t workSize(int64_t dh) { return dh * dh + 3 * dh; }

// out_i = φq_iᵀS_i / den_i, den_i = φq_iᵀz_i + eps: writes out (rows) and den (length values).
void forward(const HeadRows<float>& h, float eps, float* out, float* den, float* work);
void forward(const HeadRows<double>& h, double eps, double* out, double* den, double* work);

// With g_i = dout_i / den_i and dden_i = −g_i·out_i: dφq_i = S_i g_i + z_i dden_i (forward
// sweep), dφk_j = R_j v_j + r_j and dv_j = R_jᵀφk_j with R_j = Σ_{i≥j} φq_i g_iᵀ, r_j = Σ_{i≥j}
// φq_i dden_i (backward sweep); dq, dk through φ' (1 where x > 0, else φ(x)). Padded keys get
// dk = dv = 0. dq, dk, dv rows at stride in_stride; dout and out rows at out_stride.
void backward(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
              float* dq, float* dk, float* dv, float* work);
void backward(const HeadRows<double>& h, const double* out, const double* dout, const double* den,
              double* dq, double* dk, double* dv, double* work);

}  // namespace rsalab::linear_sweeps
