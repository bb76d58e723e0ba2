// SPDX-License-Identifier: GPL-3.0-or-later
// StarSaber: attention as a fixed-point iteration of a bidirectional RNN, one layer per
// iteration, separate past/future matrices, a direct path from the input, no FFN, no PE.
// Seed: starsaber-fixed-point-attention.txt (§3.2–3.3); spec models.md "StarSaber".
// Shapes: B batch, T length, D width, H heads, Dh = D/H.
#pragma once

#include <utility>

#include "engine/models/inspection_observer.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

class StarSaberLayerImpl : public torch::nn::Module {
 public:
  StarSaberLayerImpl(int64_t d_model, int64_t heads, bool causal, bool gated);
  // h (B, T, D) at iteration l, x (B, T, D) the layer-0 input projection -> h^{l+1} (B, T, D).
  // key_padding (B, T) bool, optional: true at padding, which no position attends to.
  // The observer gets G per head and the layer's α and residuals.
  torch::Tensor forward(const torch::Tensor& h, const torch::Tensor& x,
                        const torch::Tensor& key_padding = {}, const LayerObserver& observe = {});
  // The map this layer relaxes, F(h) = tanh(A(h) + V x) with this layer's weights (materialised
  // G; h, x (B, T, D) -> (B, T, D)). The layer's output is h + α·F(h).
  torch::Tensor equationMap(const torch::Tensor& h, const torch::Tensor& x,
                            const torch::Tensor& key_padding = {});
  // The score scale 1/√D: the seed paper's d "is the hidden size" (the width D of h, not Dh).
  double scoreScale() const;
  bool gated() const { return gated_; }
  // The uninspected CPU path runs the blocked kernel; off: the materialised G (before/after in
  // the bench's starsaber-levers; the values are the same).
  void setBlocked(bool on) { blocked_ = on; }
  torch::Tensor alpha;  // α_l, init 1; the gated variant has none (undefined)

 private:
  torch::Tensor splitHeads(const torch::Tensor& t) const;  // (B, T, D) -> (B, H, T, Dh)
  // A(h) (B, T, D) and the weights G (B, H, T, T), materialised.
  std::pair<torch::Tensor, torch::Tensor> attend(const torch::Tensor& h,
                                                 const torch::Tensor& key_padding);
  // The uninspected CPU path without padding: same values, on the blocked attention kernel.
  torch::Tensor forwardBlocked(const torch::Tensor& h, const torch::Tensor& x);
  int64_t d_model_, heads_, head_dim_;
  bool causal_, gated_;
  bool blocked_ = true;
  torch::nn::Linear W_{nullptr}, U_{nullptr}, Q_{nullptr}, V_{nullptr};
  torch::nn::Linear Wz_{nullptr}, Vz_{nullptr};  // gated variant
};
TORCH_MODULE(StarSaberLayer);

// The last layer's fixed point for the recorded sample (LayerInspection::fixed_point_*): F of
// `layer` iterated from its output h_out (B, T, D) until a step changes h by at most
// kFixedPointTolerance relative to ‖h‖, or kFixedPointIterations steps; no gradient.
void recordFixedPoint(StarSaberLayerImpl& layer, const torch::Tensor& h_out, const torch::Tensor& x,
                      const torch::Tensor& key_padding, int64_t sample, LayerInspection& out);

class StarSaberModelImpl : public SequenceModelImpl {
 public:
  StarSaberModelImpl(const ModelOptions& options, const ModelIO& io);
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  bool causal() const override { return options_.causal; }
  void setBlocked(bool on) {
    for (auto& layer : layers_) layer->setBlocked(on);
  }

 private:
  std::vector<StarSaberLayer> layers_;
};

}  // namespace rsalab
