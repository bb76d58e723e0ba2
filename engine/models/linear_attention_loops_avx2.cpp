// SPDX-License-Identifier: GPL-3.0-or-later
// The sweeps compiled for AVX2 + FMA (engine/CMakeLists.txt), chosen at run time by
// linear_attention_loops.cpp on processors that have both.
#include "engine/models/linear_attention_loops_impl.h"

namespace rsalab::linear_sweeps::avx2 {

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

}  // namespace rsalab::linear_sweeps::avx2
