// SPDX-License-Identifier: GPL-3.0-or-later
// Adam / AdamW over one flat buffer: every trainable parameter (one dtype, one device) becomes a
// view of a single contiguous tensor, and so does its gradient, so that the optimizer step, weight
// decay, the gradient norm and clipping are a handful of whole-buffer ops per step instead of
// several per parameter tensor (issue "Speed round 2", item 2).
//
// The update is LibTorch's torch::optim::AdamW / Adam step, term for term:
//   AdamW: p ← p·(1 − lr·wd) (matrices only), m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g²,
//          p ← p − lr/(1−β₁ᵗ) · m / (√v/√(1−β₂ᵗ) + ε);
//   Adam:  the same with g ← g + wd·p (matrices only) and no decoupled decay;
// clipping as torch::nn::utils::clip_grad_norm_ (scale by max/(‖g‖ + 1e-6) when that is < 1).
// Tests: tests/test_flat_adam.cpp (the same parameters as the per-tensor optimizers, 100 steps).
//
// Differences from the per-tensor optimizers, by design: one step counter for all parameters (as
// LibTorch 1.13's optimizers, whose zero_grad keeps gradients defined, a parameter that has no
// gradient in a step still takes the step with a zero gradient, its moments decaying); parameters
// with requires_grad = false are left out.
#pragma once

#include <vector>

#include "engine/torch_api.h"

namespace rsalab {

class FlatAdam {
 public:
  // `decay` get weight decay, `no_decay` never. `decoupled`: AdamW, else Adam with L2 decay.
  FlatAdam(const std::vector<torch::Tensor>& decay, const std::vector<torch::Tensor>& no_decay,
           double learning_rate, double weight_decay, bool decoupled);

  void setLearningRate(double lr) { lr_ = lr; }
  void setWeightDecay(double wd) { wd_ = wd; }
  void zeroGrad();          // one fill of the flat gradient
  double gradNorm() const;  // ‖g‖ (one host sync)
  // Scales g by max_norm / (norm + 1e-6) when that is < 1; `norm` is gradNorm() of this g.
  void clipGradNorm(double max_norm, double norm);
  void step();
  int64_t steps() const { return step_; }
  int64_t numel() const { return flat_.numel(); }

  // A module load (torch::nn::Module::load) gives parameters new storage: copy their values
  // into the buffer and make them views of it again.
  void rebind();
  // State as archive entries (flat_m, flat_v, flat_step). load() also reads a checkpoint written by
  // torch::optim::AdamW / Adam over the same parameter groups (older RSA Lab checkpoints).
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

 private:
  void bind();
  std::vector<torch::Tensor> decay_, no_decay_;  // as given
  std::vector<torch::Tensor> params_;            // trainable ones, decay first: the buffer's order
  int64_t decay_numel_ = 0;
  torch::Tensor flat_, grad_, m_, v_;
  int64_t step_ = 0;
  double lr_, wd_;
  bool decoupled_;
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
};

}  // namespace rsalab
