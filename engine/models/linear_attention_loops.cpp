// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/linear_attention_loops.h"

#include <algorithm>
#include <atomic>

#include "engine/models/linear_attention_loops_impl.h"

namespace rsalab::linear_sweeps {

namespace {
// The copies built for x86-64 (RSALAB_SWEEPS_AVX2: linear_attention_loops_avx2.cpp and
// linear_attention_loops_avx512.cpp), on processors that have their instructions; this file's
// own copy elsewhere.
Isa highestIsa() {
#ifdef RSALAB_SWEEPS_AVX2
  __builtin_cpu_init();  // this runs during static initialisation, maybe before libgcc's own
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Isa::portable;
  return __builtin_cpu_supports("avx512f") ? Isa::avx512 : Isa::avx2;
#endif
  return Isa::portable;
}
const Isa kHighest = highestIsa();
std::atomic<Isa> isa{kHighest};
}  // namespace

Isa useIsa(Isa highest) {
  isa = std::min(highest, kHighest);
  return isa;
}

bool computesFeatures(bool is_float, int64_t dh) {
  return is_float && dh == 16 && isa.load(std::memory_order_relaxed) >= Isa::avx512;
}

// Without the x86-64 copies (RSALAB_SWEEPS_AVX2 undefined) useIsa keeps Isa::portable and the
// dispatch below is compiled out.
void forward(const HeadRows<float>& h, float eps, float* out, float* den, float* work) {
#ifdef RSALAB_SWEEPS_AVX2
  const Isa now = isa.load(std::memory_order_relaxed);
  if (now >= Isa::avx512 && h.dh == 16) return avx512::forward16(h, eps, out, den);
  if (now >= Isa::avx2) return avx2::forward(h, eps, out, den, work);
#endif
  forwardAny(h, eps, out, den, work);
}
void forward(const HeadRows<double>& h, double eps, double* out, double* den, double* work) {
#ifdef RSALAB_SWEEPS_AVX2
  if (isa.load(std::memory_order_relaxed) >= Isa::avx2)
    return avx2::forward(h, eps, out, den, work);
#endif
  forwardAny(h, eps, out, den, work);
}
void backward(const HeadRows<float>& h, const float* out, const float* dout, const float* den,
              float* dq, float* dk, float* dv, float* work) {
#ifdef RSALAB_SWEEPS_AVX2
  const Isa now = isa.load(std::memory_order_relaxed);
  if (now >= Isa::avx512 && h.dh == 16) return avx512::backward16(h, out, dout, den, dq, dk, dv);
  if (now >= Isa::avx2) return avx2::backward(h, out, dout, den, dq, dk, dv, work);
#endif
  backwardAny(h, out, dout, den, dq, dk, dv, work);
}
void backward(const HeadRows<double>& h, const double* out, const double* dout, const double* den,
              double* dq, double* dk, double* dv, double* work) {
#ifdef RSALAB_SWEEPS_AVX2
  if (isa.load(std::memory_order_relaxed) >= Isa::avx2)
    return avx2::backward(h, out, dout, den, dq, dk, dv, work);
#endif
  backwardAny(h, out, dout, den, dq, dk, dv, work);
}

}  // namespace rsalab::linear_sweeps
