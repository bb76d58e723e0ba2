// SPDX-License-Identifier: GPL-3.0-or-later
// exp(x) without libm calls, so that the hand-fused kernels' loops vectorise (libm's exp is one
// call per entry): x = n·ln2 + r with n rounded by the 1.5·2^m trick (no floor), e^r from Cephes'
// polynomials (expf.c: |rel err| ≲ 2e-7; exp.c's Padé form: ≲ 2e-16), 2^n built in the exponent
// bits. x is clamped to where 2^n is a normal number: e^x saturates at ~e^±88 (float) and
// ~e^±708 (double). Used by the fused recurrent gates and the blocked attention's softmax rows.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__GNUC__)
#define RSALAB_FAST_EXP_INLINE inline __attribute__((always_inline))
#else
#define RSALAB_FAST_EXP_INLINE inline
#endif

namespace rsalab::fastmath {

RSALAB_FAST_EXP_INLINE float expFast(float x) {
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  const float magic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  const float t = x * 1.44269504088896341f + magic;
  const float n = t - magic;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  const int32_t scale_bits = (bits - 0x4B400000 + 127) << 23;  // bits − bits(magic) = n
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  return p * scale;
}

RSALAB_FAST_EXP_INLINE double expFast(double x) {
  x = x < -708.0 ? -708.0 : x;
  x = x > 708.0 ? 708.0 : x;
  const double magic = 6755399441055744.0;  // 1.5·2^52
  const double t = x * 1.4426950408889634074 + magic;
  const double n = t - magic;
  double r = x - n * 6.93145751953125e-1;
  r = r - n * 1.42860682030941723212e-6;
  const double rr = r * r;
  double p = 1.26177193074810590878e-4;
  p = p * rr + 3.02994407707441961300e-2;
  p = p * rr + 9.99999999999999999910e-1;
  p = p * r;
  double q = 3.00198505138664455042e-6;
  q = q * rr + 2.52448340349684104192e-3;
  q = q * rr + 2.27265548208155028766e-1;
  q = q * rr + 2.00000000000000000009e0;
  const double e = 1.0 + 2.0 * (p / (q - p));
  int64_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  const int64_t scale_bits = (bits - 0x4338000000000000LL + 1023) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  return e * scale;
}

}  // namespace rsalab::fastmath
