// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/kernels/fused_recurrent_kernels.h"

#include <cstring>

#include "engine/kernels/fast_exp.h"

// Every loop below is inlined into the public functions at the end, which GCC compiles twice on
// x86-64 (target_clones): for AVX2 + FMA CPUs and for the baseline, picked at load time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RSALAB_INLINE inline __attribute__((always_inline))
#define RSALAB_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define RSALAB_INLINE inline
#define RSALAB_CLONES
#endif

namespace rsalab::recurrent {
namespace {

using fastmath::expFast;

template <class S>
RSALAB_INLINE S sigmoid(S x) {
  return S(1) / (S(1) + expFast(-x));
}

// tanh x = 1 − 2/(e^{2x} + 1): absolute error ~1 ulp of 1 (no cancellation trouble for training).
template <class S>
RSALAB_INLINE S tanhFast(S x) {
  return S(1) - S(2) / (expFast(S(2) * x) + S(1));
}

template <class S>
RSALAB_INLINE void sigmoidInPlace(S* __restrict a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) a[j] = sigmoid(a[j]);
}

template <class S>
RSALAB_INLINE void tanhInPlace(S* __restrict a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) a[j] = tanhFast(a[j]);
}

template <class S>
RSALAB_INLINE void lstmForwardImpl(S* gates, const S* c_prev, S* c, S* tanh_c, S* h, int64_t B,
                                   int64_t H) {
  for (int64_t b = 0; b < B; ++b) {
    S* __restrict g = gates + b * 4 * H;
    sigmoidInPlace(g, 2 * H);  // i, f
    tanhInPlace(g + 2 * H, H);
    sigmoidInPlace(g + 3 * H, H);  // o
    const S* __restrict i = g;
    const S* __restrict f = g + H;
    const S* __restrict gg = g + 2 * H;
    const S* __restrict o = g + 3 * H;
    S* __restrict cr = c + b * H;
    S* __restrict tr = tanh_c + b * H;
    S* __restrict hr = h + b * H;
    if (c_prev) {
      const S* __restrict cp = c_prev + b * H;
      for (int64_t j = 0; j < H; ++j) cr[j] = f[j] * cp[j] + i[j] * gg[j];
    } else {
      for (int64_t j = 0; j < H; ++j) cr[j] = i[j] * gg[j];
    }
    for (int64_t j = 0; j < H; ++j) {
      tr[j] = tanhFast(cr[j]);
      hr[j] = o[j] * tr[j];
    }
  }
}

// One row of lstmBackwardImpl (restrict parameters: GCC vectorises these loops, not the same
// loop over restrict locals).
template <class S>
RSALAB_INLINE void lstmBackwardRow(const S* __restrict i, const S* __restrict f,
                                   const S* __restrict g, const S* __restrict o,
                                   const S* __restrict tc, const S* __restrict dout,
                                   const S* __restrict drec, const S* __restrict cp,
                                   S* __restrict dc, S* __restrict di, S* __restrict df,
                                   S* __restrict dg, S* __restrict d_o, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const S dh = dout[j] + drec[j];
    const S dcv = dc[j] + dh * o[j] * (S(1) - tc[j] * tc[j]);
    d_o[j] = dh * tc[j] * o[j] * (S(1) - o[j]);
    di[j] = dcv * g[j] * i[j] * (S(1) - i[j]);
    df[j] = dcv * cp[j] * f[j] * (S(1) - f[j]);
    dg[j] = dcv * i[j] * (S(1) - g[j] * g[j]);
    dc[j] = dcv * f[j];
  }
}

template <class S>
RSALAB_INLINE void lstmBackwardImpl(const S* gates, const S* c_prev, const S* tanh_c,
                                    const S* dh_out, const S* dh_rec, S* dc, S* dgates, int64_t B,
                                    int64_t H) {
  for (int64_t b = 0; b < B; ++b) {
    const S* i = gates + b * 4 * H;
    S* d = dgates + b * 4 * H;
    lstmBackwardRow(i, i + H, i + 2 * H, i + 3 * H, tanh_c + b * H, dh_out + b * H, dh_rec + b * H,
                    c_prev + b * H, dc + b * H, d, d + H, d + 2 * H, d + 3 * H, H);
  }
}

template <class S>
RSALAB_INLINE void gruForwardRow(S* __restrict g, const S* __restrict hr, const S* __restrict bias,
                                 const S* __restrict hp, S* __restrict hn, S* __restrict out,
                                 int64_t H) {
  for (int64_t j = 0; j < 2 * H; ++j) g[j] = sigmoid(g[j] + hr[j] + bias[j]);  // r, z
  for (int64_t j = 0; j < H; ++j) {
    const S hnv = hr[2 * H + j] + bias[2 * H + j];
    hn[j] = hnv;
    const S r = g[j], z = g[H + j];
    const S nv = tanhFast(g[2 * H + j] + r * hnv);
    g[2 * H + j] = nv;
    out[j] = (S(1) - z) * nv + z * hp[j];
  }
}

template <class S>
RSALAB_INLINE void gruForwardImpl(S* gates, const S* hw, const S* b_hh, const S* h_prev, S* hn,
                                  S* h, int64_t B, int64_t H) {
  for (int64_t b = 0; b < B; ++b) {
    gruForwardRow(gates + b * 3 * H, hw + b * 3 * H, b_hh, h_prev + b * H, hn + b * H, h + b * H,
                  H);
  }
}

template <class S>
RSALAB_INLINE void gruBackwardRow(const S* __restrict r, const S* __restrict z,
                                  const S* __restrict n, const S* __restrict hn,
                                  const S* __restrict hp, const S* __restrict dout,
                                  const S* __restrict drec, S* __restrict dgi, S* __restrict dgh,
                                  S* __restrict dd, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    const S dh = dout[j] + drec[j];
    const S dan = dh * (S(1) - z[j]) * (S(1) - n[j] * n[j]);  // ∂/∂(x_n + r⊙hn)
    const S dar = dan * hn[j] * r[j] * (S(1) - r[j]);
    const S daz = dh * (hp[j] - n[j]) * z[j] * (S(1) - z[j]);
    dgi[j] = dar;
    dgh[j] = dar;
    dgi[H + j] = daz;
    dgh[H + j] = daz;
    dgi[2 * H + j] = dan;
    dgh[2 * H + j] = dan * r[j];
    dd[j] = dh * z[j];
  }
}

template <class S>
RSALAB_INLINE void gruBackwardImpl(const S* gates, const S* hn, const S* h_prev, const S* dh_out,
                                   const S* dh_rec, S* dgi, S* dgh, S* dh_direct, int64_t B,
                                   int64_t H) {
  for (int64_t b = 0; b < B; ++b) {
    const S* r = gates + b * 3 * H;
    gruBackwardRow(r, r + H, r + 2 * H, hn + b * H, h_prev + b * H, dh_out + b * H, dh_rec + b * H,
                   dgi + b * 3 * H, dgh + b * 3 * H, dh_direct + b * H, H);
  }
}

template <class S>
RSALAB_INLINE void rnnForwardImpl(S* a, int64_t n) {
  tanhInPlace(a, n);
}

template <class S>
RSALAB_INLINE void rnnBackwardImpl(const S* h, const S* dh_out, const S* dh_rec, S* da, int64_t n) {
  const S* __restrict hh = h;
  const S* __restrict dout = dh_out;
  S* __restrict d = da;
  const S* __restrict drec = dh_rec;
  for (int64_t j = 0; j < n; ++j) d[j] = (dout[j] + drec[j]) * (S(1) - hh[j] * hh[j]);
}

}  // namespace

#define RSALAB_RECURRENT_KERNELS(S)                                                                \
  template <>                                                                                      \
  RSALAB_CLONES void lstmForward<S>(S * gates, const S* c_prev, S* c, S* tanh_c, S* h, int64_t B,  \
                                    int64_t H) {                                                   \
    lstmForwardImpl(gates, c_prev, c, tanh_c, h, B, H);                                            \
  }                                                                                                \
  template <>                                                                                      \
  RSALAB_CLONES void lstmBackward<S>(const S* gates, const S* c_prev, const S* tanh_c,             \
                                     const S* dh_out, const S* dh_rec, S* dc, S* dgates,           \
                                     int64_t B, int64_t H) {                                       \
    lstmBackwardImpl(gates, c_prev, tanh_c, dh_out, dh_rec, dc, dgates, B, H);                     \
  }                                                                                                \
  template <>                                                                                      \
  RSALAB_CLONES void gruForward<S>(S * gates, const S* hw, const S* b_hh, const S* h_prev, S* hn,  \
                                   S* h, int64_t B, int64_t H) {                                   \
    gruForwardImpl(gates, hw, b_hh, h_prev, hn, h, B, H);                                          \
  }                                                                                                \
  template <>                                                                                      \
  RSALAB_CLONES void gruBackward<S>(const S* gates, const S* hn, const S* h_prev, const S* dh_out, \
                                    const S* dh_rec, S* dgi, S* dgh, S* dh_direct, int64_t B,      \
                                    int64_t H) {                                                   \
    gruBackwardImpl(gates, hn, h_prev, dh_out, dh_rec, dgi, dgh, dh_direct, B, H);                 \
  }                                                                                                \
  template <>                                                                                      \
  RSALAB_CLONES void rnnForward<S>(S * a, int64_t n) {                                             \
    rnnForwardImpl(a, n);                                                                          \
  }                                                                                                \
  template <>                                                                                      \
  RSALAB_CLONES void rnnBackward<S>(const S* h, const S* dh_out, const S* dh_rec, S* da,           \
                                    int64_t n) {                                                   \
    rnnBackwardImpl(h, dh_out, dh_rec, da, n);                                                     \
  }

RSALAB_RECURRENT_KERNELS(float)
RSALAB_RECURRENT_KERNELS(double)

#undef RSALAB_RECURRENT_KERNELS

}  // namespace rsalab::recurrent
