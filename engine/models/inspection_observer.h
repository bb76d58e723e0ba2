// SPDX-License-Identifier: GPL-3.0-or-later
// Inspection as one optional observer: what an inspected model call computed for its chosen
// sample, copied to the CPU into the plain InspectionRecord (engine/core/io/inspection.h).
// The model's forward, given a record, makes one InspectionObserver and hands each layer its
// LayerObserver; the layer's forward calls it once with what it computed. Empty observers (no
// record) are false and the forwards take their fast paths.
// Any model with a T × T attention, explicit or implied (softmax, RSA, linear, StarSaber, or a
// RetNet/Mamba-2/GLA decay matrix), fills HeadInspection::attention with one attention() call.
#pragma once

#include <string>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/models/rem_builder.h"
#include "engine/torch_api.h"

namespace rsalab {

// A 2-D tensor (any device/dtype) as a row-major CPU float Matrix; 1-D becomes n × 1.
Matrix toMatrix(const torch::Tensor& t);

// One layer of one inspected call; default-constructed: not inspecting.
class LayerObserver {
 public:
  LayerObserver() = default;
  LayerObserver(LayerInspection* layer, int64_t sample) : layer_(layer), sample_(sample) {}
  explicit operator bool() const { return layer_ != nullptr; }
  int64_t sample() const { return sample_; }

  // Per-head weights applied to V, explicit or implied: (B, H, Tq, Tk) -> the sample's
  // heads[h].attention for every head h.
  void attention(const torch::Tensor& weights) const;
  // A decaying head's per-step decay (HeadInspection::decay), after attention(): (H) for a decay
  // that does not depend on the token (one value per head), or (B, H, Tq) for one per position.
  void decay(const torch::Tensor& decays) const;
  // RSA: the softmax weights S (B, H, Tq, Tk), the REMs P (R, Tq, Tk) and gates σ(µ) (R) of REM
  // heads 0..R−1: heads[h].attention = (1 − σ(µ_h))·S_h + σ(µ_h)·P_h for h < R (S_h after), with
  // softmax_part, rem, the gate and the REM's scalars (λ or γ, θ, d) from `rems`.
  void rsaAttention(const torch::Tensor& softmax, const torch::Tensor& P,
                    const torch::Tensor& gates, const RemBuilderImpl& rems) const;
  // Encoder–decoder cross-attention weights (B, H, Tt, Ts) -> cross_attention.
  void crossAttention(const torch::Tensor& weights) const;
  // StarSaber's layer: α_l (undefined when gated), h^l, h^{l+1} and tanh(A^l + V^l x) (B, T, D)
  // -> alpha, update ‖h^{l+1} − h^l‖, residual and equation_residual (inspection.h).
  void fixedPoint(const torch::Tensor& alpha, const torch::Tensor& h, const torch::Tensor& next,
                  const torch::Tensor& update) const;

 private:
  LayerInspection* layer_ = nullptr;
  int64_t sample_ = 0;
};

// One inspected model call; default-constructed (or from a null record): not inspecting.
class InspectionObserver {
 public:
  InspectionObserver() = default;
  // Starts `record` for `model`: `layers` (encoder) layers, `decoder_layers`, no gates.
  InspectionObserver(InspectionRecord* record, const std::string& model, size_t layers,
                     size_t decoder_layers = 0);
  explicit operator bool() const { return record_ != nullptr; }
  int64_t sample() const { return record_ ? record_->sample : 0; }

  LayerObserver layer(size_t l) const;         // self-attention stack (the encoder's)
  LayerObserver decoderLayer(size_t l) const;  // the encoder–decoder's decoder stack
  // A recurrent layer's gates: values[k] (B, T, units) of gate names[k] -> the sample's T × units
  // GateTrace, appended in order.
  void gates(int64_t layer, const std::vector<std::string>& names,
             const std::vector<torch::Tensor>& values) const;

 private:
  InspectionRecord* record_ = nullptr;
};

}  // namespace rsalab
