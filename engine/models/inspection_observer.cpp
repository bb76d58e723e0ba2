// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/inspection_observer.h"

#include <algorithm>

namespace rsalab {

Matrix toMatrix(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  Matrix m;
  m.rows = c.size(0);
  m.cols = c.dim() > 1 ? c.size(1) : 1;
  const float* p = c.data_ptr<float>();
  m.values.assign(p, p + c.numel());
  return m;
}

void LayerObserver::attention(const torch::Tensor& weights) const {
  if (!layer_) return;
  const int64_t H = weights.size(1);
  layer_->heads.resize(static_cast<size_t>(H));
  for (int64_t h = 0; h < H; ++h) {
    layer_->heads[static_cast<size_t>(h)].attention = toMatrix(weights[sample_][h]);
  }
}

void LayerObserver::decay(const torch::Tensor& decays) const {
  if (!layer_) return;
  const int64_t H = decays.dim() == 1 ? decays.size(0) : decays.size(1);
  layer_->heads.resize(std::max(layer_->heads.size(), static_cast<size_t>(H)));
  for (int64_t h = 0; h < H; ++h) {
    const Matrix m = toMatrix(decays.dim() == 1 ? decays[h].reshape({1}) : decays[sample_][h]);
    layer_->heads[static_cast<size_t>(h)].decay = m.values;
  }
}

void LayerObserver::rsaAttention(const torch::Tensor& softmax, const torch::Tensor& P,
                                 const torch::Tensor& gates, const RemBuilderImpl& rems) const {
  if (!layer_) return;
  attention(softmax);
  auto base = rems.base().detach().cpu();    // (R): λ or γ
  auto theta = rems.theta().detach().cpu();  // (R)
  auto g = gates.detach().cpu();             // (R)
  for (int64_t h = 0; h < rems.size(); ++h) {
    auto& head = layer_->heads[static_cast<size_t>(h)];
    const auto& spec = rems.specs()[static_cast<size_t>(h)];
    const double gh = g[h].item<double>();
    head.softmax_part = head.attention;
    head.rem = toMatrix(P[h]);
    head.attention = toMatrix((1 - gh) * softmax[sample_][h] + gh * P[h]);
    head.has_rem = true;
    head.rem_kind = spec.kind;
    head.dilation = spec.dilation;
    head.gate = gh;
    if (spec.kind == RemKind::Regular) {
      head.lambda = base[h].item<double>();
    } else {
      head.gamma = base[h].item<double>();
      head.theta = theta[h].item<double>();
    }
  }
}

void LayerObserver::crossAttention(const torch::Tensor& weights) const {
  if (!layer_) return;
  layer_->cross_attention.clear();
  for (int64_t h = 0; h < weights.size(1); ++h) {
    layer_->cross_attention.push_back(toMatrix(weights[sample_][h]));
  }
}

void LayerObserver::fixedPoint(const torch::Tensor& alpha, const torch::Tensor& h,
                               const torch::Tensor& next, const torch::Tensor& update) const {
  if (!layer_) return;
  layer_->has_alpha = alpha.defined();  // the gated variant has no α to report
  if (alpha.defined()) layer_->alpha = alpha.item<double>();
  auto before = h[sample_].detach();
  const double norm = before.norm().item<double>() + 1e-12;
  layer_->update = (next[sample_].detach() - before).norm().item<double>();
  layer_->residual = layer_->update / norm;
  layer_->equation_residual = (before - update[sample_].detach()).norm().item<double>() / norm;
}

InspectionObserver::InspectionObserver(InspectionRecord* record, const std::string& model,
                                       size_t layers, size_t decoder_layers)
    : record_(record) {
  if (!record_) return;
  record_->model = model;
  record_->layers.assign(layers, LayerInspection{});
  record_->decoder_layers.assign(decoder_layers, LayerInspection{});
  record_->gates.clear();
}

LayerObserver InspectionObserver::layer(size_t l) const {
  if (!record_) return {};
  return {&record_->layers.at(l), record_->sample};
}

LayerObserver InspectionObserver::decoderLayer(size_t l) const {
  if (!record_) return {};
  return {&record_->decoder_layers.at(l), record_->sample};
}

void InspectionObserver::gates(int64_t layer, const std::vector<std::string>& names,
                               const std::vector<torch::Tensor>& values) const {
  if (!record_) return;
  for (size_t k = 0; k < names.size(); ++k) {
    record_->gates.push_back({layer, names[k], toMatrix(values[k][record_->sample])});
  }
}

}  // namespace rsalab
