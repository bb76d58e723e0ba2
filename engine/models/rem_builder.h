// SPDX-License-Identifier: GPL-3.0-or-later
// Recurrence Encoding Matrices (REMs), built in closed form for all heads at once.
// From the RSA paper, "Encoding Recurrence into Transformers": the lag matrix and the REMs.
//   regular:      P[i,j] = λ^(i−j),                 λ = tanh(η)
//   cyclical cos: P[i,j] = γ^(i−j)·cos(θ(i−j)),      γ = σ(ν)
//   cyclical sin: P[i,j] = γ^(i−j)·sin(θ(i−j))
//   dilated (d):  the entry at lag (i−j)/d where d divides i−j, else 0.
// Zero diagonal; causal = strictly lower triangular; bidirectional uses |i−j| (our choice).
#pragma once

#include <string>
#include <vector>

#include "engine/core/config/model_options.h"
#include "engine/core/io/enums.h"
#include "engine/torch_api.h"

namespace rsalab {

struct RemHeadSpec {
  RemKind kind = RemKind::Regular;
  int64_t dilation = 1;
};

// Heads in the order of the counts (regular, cos, sin, dilated regular, dilated cos, dilated
// sin); dilated heads take the factors of `dilations` in turn.
std::vector<RemHeadSpec> assignRemHeads(const RemHeadCounts& counts,
                                        const std::vector<int64_t>& dilations);

// Owns η (regular heads), ν and θ (cyclical heads) and builds the R = specs.size() REMs.
class RemBuilderImpl : public torch::nn::Module {
 public:
  RemBuilderImpl(std::vector<RemHeadSpec> specs, const RemInit& init, bool causal);

  // REMs for the lag matrix lag[i, j] = position(i) − position(j) (int64, Tq × Tk): (R, Tq, Tk).
  torch::Tensor build(const torch::Tensor& lag) const;
  // Square REMs for positions 0..T−1, cached by T while the scalars are unchanged and no
  // gradient is being recorded: (R, T, T).
  torch::Tensor build(int64_t T);
  // The square REMs' diagonals, flipped, for blockedSoftmaxAttention: e[h, m] = P_h[i, j] where
  // m = T − 1 − (i − j), m in 0..2T−2; (R, 2T − 1). O(R·T) to build and to differentiate.
  torch::Tensor diagonals(int64_t T) const;

  torch::Tensor base() const;   // (R): λ for regular heads, γ for cyclical heads
  torch::Tensor theta() const;  // (R): θ for cyclical heads, 0 for regular
  const std::vector<RemHeadSpec>& specs() const { return specs_; }
  int64_t size() const { return static_cast<int64_t>(specs_.size()); }
  bool causal() const { return causal_; }

  torch::Tensor eta, nu, theta_raw;  // parameters: (n_regular), (n_cyclical), (n_cyclical)

 private:
  // f_h(m) for lags m = 0..max_lag: (R, max_lag + 1); 0 at m = 0 and where d_h does not divide m.
  torch::Tensor lagValues(int64_t max_lag) const;

  std::vector<RemHeadSpec> specs_;
  bool causal_;
  torch::Tensor head_index_;  // (R) int64: position of each head in cat(η-heads, ν-heads)
  torch::Tensor dilation_;    // (R) int64
  torch::Tensor selector_;    // (R, 3) float: one-hot of {1, cos, sin} per head
  // Inference cache of build(T).
  torch::Tensor cached_;
  int64_t cached_T_ = -1;
  std::vector<int64_t> cached_versions_;
};
TORCH_MODULE(RemBuilder);

// Lag matrix L[i, j] = i − j for i, j in 0..T−1 (int64, on `device`).
torch::Tensor lagMatrix(int64_t T, const torch::Device& device);

}  // namespace rsalab
