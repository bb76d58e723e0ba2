// SPDX-License-Identifier: GPL-3.0-or-later
// The linear forecasters that the forecasting literature reports beside its transformers: DLinear
// and NLinear (Zeng, Chen, Zhang and Xu, "Are Transformers Effective for Time Series
// Forecasting?", arXiv 2205.13504, §4). Each maps a lookback window of L values of one column to
// its H next values with one map shared by every column (the paper's default, individual=False).
// In the engine's per-position interface, position t's window is x_{t−L+1..t} (positions before 0
// read as position 0, as the skip path's): output t sees inputs ≤ t only.
// Shapes: B batch, T length, C columns, L = options.lookback, H = io.output_dim / C.
#pragma once

#include <cstdint>

#include "engine/models/sequence_model.h"

namespace rsalab {

// DLinear's moving-average kernel (the paper's 25): an odd width, centred on each window
// position, the window's end values repeated (k−1)/2 times beyond each end.
constexpr int64_t kDLinearKernel = 25;

// y = W_t·A·w + W_r·(w − A·w) + b_t + b_r: A·w the trend (the moving average), w − A·w the
// remainder, one (L → H) map each ("trend", "remainder").
class DLinearModelImpl : public SequenceModelImpl {
 public:
  DLinearModelImpl(const ModelOptions& options, const ModelIO& io);
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  bool causal() const override { return true; }

 private:
  torch::nn::Linear trend_{nullptr}, remainder_{nullptr};
  torch::Tensor average_;  // A (L, L), float64 on the CPU: trend = A·w; a constant, not saved
};

// y = W·(w − w_L) + b + w_L: the window minus its last value through one (L → H) map ("map"),
// the last value added back to every step.
class NLinearModelImpl : public SequenceModelImpl {
 public:
  NLinearModelImpl(const ModelOptions& options, const ModelIO& io);
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  bool causal() const override { return true; }

 private:
  torch::nn::Linear map_{nullptr};
};

// The linear family's factory case: options.model names dlinear or nlinear. Throws
// std::invalid_argument for other names and for an IO that is no series forecast.
SequenceModel makeLinearForecaster(const ModelOptions& options, const ModelIO& io);

}  // namespace rsalab
