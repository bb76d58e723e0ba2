#include "engine/models/linear_attention_sweeps.h"

#include <atomic>

#include "engine/models/linear_attention_sweeps_impl.h"

namespace rsalab::linear_sweeps {

namespace {
// The AVX2 + FMA copy (linear_attention_sweeps_avx2.cpp, built where the compiler targets
// x86-64) on processors that have both; this file's own copy elsewhere.
#ifdef RSALAB_SWEEPS_AVX2
const bool kHasAvx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
constexpr bool kHasAvx2 = false;
#endif
std::atomic<bool> use_avx2{kHasAvx2};
}  // namespace

bool useAvx2(bool enable) {
  use_avx2 = enable && kHasAvx2;
  return kHasAvx2;
}

void forward(const HeadRows<float>& h, float eps, float* out, float* den, float* work) {
  if (use_avx2.load(std::memory_order_relaxed)) return avx2::forward(h, eps, out, den, work);
  forwardAny(h, eps, out, den, work);
}
void forward(const HeadRows<double>& h, double eps, double* out, double* den, double* work) {
  if (use_avx2.load(std::memory_order_relaxed)) return avx2::forward(h, eps, out, den, work);
  forwardAny(h, eps, out, den, work);
}
void backward(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
              float* dq, float* dk, float* dv, float* work) {
  if (use_avx2.load(std::memory_order_relaxed))
    return avx2::backward(h, out, dout, den, dq, dk, dv, work);
  backwardAny(h, out, dout, den, dq, dk, dv, work);
}
void backward(const HeadRows<double>& h, const double* out, const double* dout, const double* den,
              double* dq, double* dk, double* dv, double* work) {
  if (use_avx2.load(std::memory_order_relaxed))
    return avx2::backward(h, out, dout, den, dq, dk, dv, work);
  backwardAny(h, out, dout, den, dq, dk, dv, work);
}

}  // namespace rsalab::linear_sweeps
