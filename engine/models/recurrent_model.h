// SPDX-License-Identifier: GPL-3.0-or-later
// RNN (tanh), LSTM and GRU baselines, multi-layer, with torch::nn's modules holding the parameters:
// on CPU they train through the fused layers of fused_recurrent.h (same weights, same numbers to
// rounding), elsewhere through the modules; plus a cell-by-cell path over the same weights that
// records the gates for the inspector.
// The equations are PyTorch's (the RNN-vs-Transformer lecture notes' recurrent layers).
// Shapes: B batch, T length, D = hidden width = options.d_model.
#pragma once

#include <vector>

#include "engine/kernels/fused_recurrent.h"
#include "engine/models/inspection_observer.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

class RecurrentModelImpl : public SequenceModelImpl {
 public:
  // options.model: a recurrent-family row of the model registry (RNN, LSTM or GRU).
  RecurrentModelImpl(const ModelOptions& options, const ModelIO& io);
  // With a record, runs the cell-by-cell path (same numbers) and records the gates.
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  bool causal() const override { return true; }

  // The stack on (B, T, D) inputs -> top-layer states (B, T, D): the fused path
  // (fused_recurrent.h) for CPU float/double, torch::nn's module otherwise or when switched off.
  torch::Tensor runModule(const torch::Tensor& input);
  // Off: torch::nn's module everywhere (the before of the bench's lever). On by default.
  void setFused(bool on) { fused_ = on; }
  // The same, one time step and one layer at a time; each layer's gates (LSTM i, f, g, o; GRU r,
  // z, n) reported to the observer once.
  torch::Tensor runCells(const torch::Tensor& input, const InspectionObserver& observe = {});

 private:
  torch::Tensor weight(const std::string& name, int64_t layer) const;
  torch::nn::RNN rnn_{nullptr};
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::GRU gru_{nullptr};
  RecurrentKind kind_ = RecurrentKind::kRnn;
  bool fused_ = true;
};

}  // namespace rsalab
