// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/linear_forecasters.h"

#include <stdexcept>

#include "engine/models/inspection_observer.h"

namespace rsalab {
namespace {

// A (L, L) with trend_j = Σ_m A[j, m] w_m = mean of w_{clamp(i, 0, L−1)} for i = j−p..j+p,
// p = (k−1)/2: the paper's moving average (AvgPool1d of stride 1 over the window padded with
// repeats of its end values), as a matrix, so that the two maps fold into one (forward).
torch::Tensor movingAverageMatrix(int64_t L, int64_t kernel) {
  const int64_t p = (kernel - 1) / 2;
  auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto taps = torch::arange(-p, p + 1, torch::kInt64);                              // (k)
  auto at = (torch::arange(L, torch::kInt64).unsqueeze(1) + taps).clamp(0, L - 1);  // (L, k)
  return torch::zeros({L, L}, f64)
      .scatter_add_(1, at,
                    torch::full({L, kernel}, 1.0 / static_cast<double>(kernel), f64));  // (L, L)
}

}  // namespace

DLinearModelImpl::DLinearModelImpl(const ModelOptions& options, const ModelIO& io)
    : SequenceModelImpl(options, io) {
  const int64_t L = options_.lookback, H = seriesHorizon(io_, options_.model);
  trend_ = register_module("trend", torch::nn::Linear(L, H));          // (L → H)
  remainder_ = register_module("remainder", torch::nn::Linear(L, H));  // (L → H)
  average_ = movingAverageMatrix(L, kDLinearKernel);
}

// DLinear: W_t·A·w + W_r·(w − A·w) + b = (W_r + (W_t − W_r)·A)·w + b, one map per position
torch::Tensor DLinearModelImpl::forward(const torch::Tensor& x, InspectionRecord* record) {
  const InspectionObserver observe(record, options_.model, 0);  // nothing to inspect
  const auto& Wt = trend_->weight;
  const auto& Wr = remainder_->weight;
  auto A = average_.to(Wt.options());                                   // (L, L)
  auto W = Wr + torch::matmul(Wt - Wr, A);                              // (H, L)
  auto windows = lookbackWindows(x, options_.lookback);                 // (B, T, C, L)
  auto y = torch::linear(windows, W, trend_->bias + remainder_->bias);  // (B, T, C, H)
  return stepsByColumn(y);                                              // (B, T, H·C)
}

NLinearModelImpl::NLinearModelImpl(const ModelOptions& options, const ModelIO& io)
    : SequenceModelImpl(options, io) {
  const int64_t L = options_.lookback, H = seriesHorizon(io_, options_.model);
  map_ = register_module("map", torch::nn::Linear(L, H));  // (L → H)
}

// NLinear: W·(w − w_L) + b + w_L
torch::Tensor NLinearModelImpl::forward(const torch::Tensor& x, InspectionRecord* record) {
  const InspectionObserver observe(record, options_.model, 0);  // nothing to inspect
  auto windows = lookbackWindows(x, options_.lookback);         // (B, T, C, L)
  auto last = x.unsqueeze(-1);                                  // (B, T, C, 1): w_L = x_t
  auto y = map_->forward(windows - last) + last;                // (B, T, C, H)
  return stepsByColumn(y);                                      // (B, T, H·C)
}

SequenceModel makeLinearForecaster(const ModelOptions& options, const ModelIO& io) {
  if (options.model == "dlinear") return std::make_shared<DLinearModelImpl>(options, io);
  if (options.model == "nlinear") return std::make_shared<NLinearModelImpl>(options, io);
  throw std::invalid_argument("model '" + options.model + "' is no linear forecaster");
}

}  // namespace rsalab
