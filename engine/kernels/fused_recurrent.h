// SPDX-License-Identifier: GPL-3.0-or-later
// A hand-fused training path for multi-layer RNN (tanh), LSTM and GRU stacks on CPU: one autograd
// node per layer instead of autograd through a dozen small ops per time step.
// Forward per layer: X W_ihᵀ + b_ih for all steps in one product, then per step one product
// h_{t−1} W_hhᵀ and the gate nonlinearities as plain loops (fused_recurrent_kernels.h), saving
// the activated gates (and c, tanh c for LSTM; W_hn h + b_hn for GRU). Backward: the reverse-time
// loop with plain loops for the gate gradients and one product per step for ∂/∂h_{t−1}, then the
// weight gradients as a few products over all steps at once (dW_hh = dGᵀ H_prev, dW_ih = dGᵀ X,
// biases = column sums, dX = dG W_ih).
// The same equations as torch::nn (spec models.md "RNN, LSTM, GRU"; PyTorch's gate order, GRU's
// n = tanh(W_in x + b_in + r⊙(W_hn h + b_hn))), zero initial state, the caller's parameter tensors
// (only read, never replaced). Not twice differentiable.
#pragma once

#include <vector>

#include "engine/torch_api.h"

namespace rsalab {

enum class RecurrentKind { kRnn, kLstm, kGru };

// One layer's parameters as torch::nn names them: weight_ih_l{k} (G·H × D_in), weight_hh_l{k}
// (G·H × H), bias_ih_l{k}, bias_hh_l{k} (G·H); G = 1, 4, 3 for RNN, LSTM, GRU.
struct RecurrentLayerWeights {
  torch::Tensor w_ih, w_hh, b_ih, b_hh;
};

// The layers of a torch::nn::RNN/LSTM/GRU (`module`: its Module, e.g. *lstm), read by name.
std::vector<RecurrentLayerWeights> recurrentWeights(const torch::nn::Module& module,
                                                    int64_t layers);

// True when fusedRecurrent runs `input` with these weights: CPU, float or double, the same dtype
// everywhere, every bias present, B, T ≥ 1. Anything else (CUDA, half, ...) stays on torch::nn.
bool fusedRecurrentSupports(const torch::Tensor& input,
                            const std::vector<RecurrentLayerWeights>& layers);

// The stack on batch-first input (B, T, D_in) -> the top layer's states (B, T, H), as
// std::get<0>(torch::nn::LSTM(...batch_first(true))->forward(input)) with zero initial states.
torch::Tensor fusedRecurrent(RecurrentKind kind, const torch::Tensor& input,
                             const std::vector<RecurrentLayerWeights>& layers);

// The per-step products call the BLAS's gemm directly when LibTorch's BLAS exports it (on by
// default); off, or where it is not exported, they go through LibTorch (for tests: both paths).
void setFusedRecurrentDirectBlas(bool on);

}  // namespace rsalab
