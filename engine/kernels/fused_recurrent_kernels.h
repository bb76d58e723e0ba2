// SPDX-License-Identifier: GPL-3.0-or-later
// Raw loops for the fused recurrent layers (engine/kernels/fused_recurrent.h): the elementwise gate
// work of one time step, forward and backward (no LibTorch, no Qt). S = float or double.
// Layout per step: B rows (batch); a row of gates holds G blocks of H units in PyTorch's order
// (LSTM i, f, g, o; GRU r, z, n); states are B × H, row-major. No pointer may be null except
// lstmForward's c_prev: at the first step (zero initial state) and where nothing is to be added,
// the caller passes zeros (so that the loops have no branches and vectorise).
// Spec models.md "RNN, LSTM, GRU": PyTorch's equations.
#pragma once

#include <cstdint>

namespace rsalab::recurrent {

// gates: on entry x W_ihᵀ + b_ih + b_hh + h_{t−1} W_hhᵀ (B × 4H); on exit i, f, g, o.
// c = f⊙c_prev + i⊙g, tanh_c = tanh(c), h = o⊙tanh_c. c_prev (B × H) or null.
template <class S>
void lstmForward(S* gates, const S* c_prev, S* c, S* tanh_c, S* h, int64_t B, int64_t H);

// The step's gradients. dh = dh_out + dh_rec; dc: on entry ∂/∂c_t from step t+1
// (zeros at the last step), on exit ∂/∂c_{t−1}. c_prev: zeros at t = 0. dgates (B × 4H): ∂/∂ of the
// pre-activations.
template <class S>
void lstmBackward(const S* gates, const S* c_prev, const S* tanh_c, const S* dh_out,
                  const S* dh_rec, S* dc, S* dgates, int64_t B, int64_t H);

// gates: on entry x W_ihᵀ + b_ih (B × 3H); on exit r, z, n. hw = h_{t−1} W_hhᵀ (B × 3H);
// b_hh (3H). hn = W_hn h_{t−1} + b_hn (B × H, saved for the backward);
// n = tanh(x_n + r⊙hn), h = (1 − z)⊙n + z⊙h_prev.
template <class S>
void gruForward(S* gates, const S* hw, const S* b_hh, const S* h_prev, S* hn, S* h, int64_t B,
                int64_t H);

// dh = dh_out + dh_rec. dgi, dgh (B × 3H): ∂/∂ of the input-side and the
// hidden-side pre-activations (they differ in the n block: ∂/∂(x_n) vs ∂/∂hn); dh_direct = dh⊙z,
// the part of ∂/∂h_{t−1} that does not go through W_hh.
template <class S>
void gruBackward(const S* gates, const S* hn, const S* h_prev, const S* dh_out, const S* dh_rec,
                 S* dgi, S* dgh, S* dh_direct, int64_t B, int64_t H);

// h = tanh(a) over n entries, in place (a = x W_ihᵀ + b_ih + b_hh + h_{t−1} W_hhᵀ).
template <class S>
void rnnForward(S* a, int64_t n);

// da = (dh_out + dh_rec)⊙(1 − h²) over n entries.
template <class S>
void rnnBackward(const S* h, const S* dh_out, const S* dh_rec, S* da, int64_t n);

}  // namespace rsalab::recurrent
