// SPDX-License-Identifier: GPL-3.0-or-later
// The interface every trainable sequence model shares, and the input/output layers around it.
// x: (B, T, F) float features, or (B, T) int64 token ids when io.vocab > 0.
// y: (B, T, O) per position, or (B, O) when io.pooled (mean over positions, then Linear).
#pragma once

#include <memory>
#include <string>

#include "engine/core/config/model_options.h"
#include "engine/core/io/inspection.h"
#include "engine/torch_api.h"

namespace rsalab {

class SequenceModelImpl : public torch::nn::Module {
 public:
  SequenceModelImpl(ModelOptions options, ModelIO io);
  ~SequenceModelImpl() override = default;

  // With `record`, also fills it for batch element record->sample (through one
  // InspectionObserver, engine/models/inspection_observer.h, that each layer reports to once).
  virtual torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) = 0;
  // True when output t depends only on inputs 0..t.
  virtual bool causal() const = 0;
  // A model that also reads each window's calendar marks (DataSplit::marks, (B, L + H, 4)): the
  // trainer then calls forwardMarked. The others ignore marks.
  virtual bool readsMarks() const { return false; }
  virtual torch::Tensor forwardMarked(const torch::Tensor& x, const torch::Tensor& marks,
                                      InspectionRecord* record = nullptr) {
    (void)marks;
    return forward(x, record);
  }

  const ModelOptions& options() const { return options_; }
  const ModelIO& io() const { return io_; }
  int64_t parameterCount() const;
  // ModelIO::revin: RevIN's learned scale and shift per input column, (C) each (registered as
  // revin_weight and revin_bias, initialised to 1 and 0); undefined otherwise.
  const torch::Tensor& revinWeight() const { return revin_weight_; }
  const torch::Tensor& revinBias() const { return revin_bias_; }

 protected:
  torch::Tensor embed(const torch::Tensor& x);  // (B, T, F) | (B, T) -> (B, T, D)
  // (B, T, D) -> (B, T, O) | (B, O); pooled: mean over the positions of x that are not padding.
  torch::Tensor head(const torch::Tensor& h, const torch::Tensor& x);
  void registerIoLayers(int64_t width);

  ModelOptions options_;
  ModelIO io_;
  torch::nn::Linear input_proj_{nullptr};
  torch::nn::Embedding token_embed_{nullptr};
  torch::nn::Linear output_{nullptr};
  torch::nn::Linear skip_{nullptr};  // ModelOptions::skip_lags: (K → H), shared by the columns
  torch::Tensor revin_weight_, revin_bias_;

 private:
  torch::Tensor linearSkip(const torch::Tensor& x);  // (B, T, C) -> (B, T, H·C)
};

using SequenceModel = std::shared_ptr<SequenceModelImpl>;

// The series helpers of the linear paths (the skip path above, the linear family's models):
// The horizon H of a series IO: real inputs, per-position outputs of H steps × the input's C
// columns. Otherwise throws std::invalid_argument starting with `what` (an option or a model).
int64_t seriesHorizon(const ModelIO& io, const std::string& what);
// Each position's lookback window of K inputs, positions before 0 read as position 0 (causal:
// window t holds inputs ≤ t only). (B, T, C) -> (B, T, C, K): [b, t, c, k] = x[b, t−K+1+k, c].
torch::Tensor lookbackWindows(const torch::Tensor& x, int64_t K);
// Per-column forecasts in the series targets' layout: (B, T, C, H) -> (B, T, H·C), column c of
// step h at h·C + c.
torch::Tensor stepsByColumn(const torch::Tensor& y);

// Sinusoidal positional encoding rows for positions offset..offset+T−1: (T, D).
torch::Tensor sinusoidalEncoding(int64_t T, int64_t D, int64_t offset,
                                 const torch::TensorOptions& options);

}  // namespace rsalab
