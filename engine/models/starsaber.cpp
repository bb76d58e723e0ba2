// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/starsaber.h"

#include <cmath>
#include <limits>

#include "engine/kernels/blocked_attention.h"
#include "engine/models/attention.h"

namespace rsalab {

StarSaberLayerImpl::StarSaberLayerImpl(int64_t d_model, int64_t heads, bool causal, bool gated)
    : d_model_(d_model), heads_(heads), head_dim_(d_model / heads), causal_(causal), gated_(gated) {
  auto no_bias = [&](int64_t in) { return torch::nn::LinearOptions(in, d_model).bias(false); };
  W_ = register_module("W", torch::nn::Linear(no_bias(d_model)));  // bilinear graph
  U_ = register_module("U", torch::nn::Linear(no_bias(d_model)));  // past (i < n)
  Q_ = register_module("Q", torch::nn::Linear(no_bias(d_model)));  // present and future (i ≥ n)
  V_ = register_module("V", torch::nn::Linear(d_model, d_model));  // direct input path
  if (gated_) {
    Wz_ = register_module("Wz", torch::nn::Linear(no_bias(d_model)));
    Vz_ = register_module("Vz", torch::nn::Linear(d_model, d_model));
  } else {
    alpha = register_parameter("alpha", torch::ones({1}));  // the gate z replaces α when gated
  }
}

double StarSaberLayerImpl::scoreScale() const {
  return 1.0 / std::sqrt(static_cast<double>(d_model_));
}

torch::Tensor StarSaberLayerImpl::splitHeads(const torch::Tensor& t) const {
  return t.view({t.size(0), t.size(1), heads_, head_dim_}).transpose(1, 2);  // (B, H, T, Dh)
}

// h^{l+1}_n = h^l_n + α_l·tanh(A^l_n + V^l x_n),
// A^l_n = Σ_{i<n} G_ni U h_i + Σ_{i≥n} G_ni Q h_i,  G = softmax_i(h_nᵀ W h_i / √D) per head.
// The seed paper scales by √d and says "d here is the hidden size": D, the width of h, also with
// several heads (each head compares Dh-wide slices, still scaled by 1/√D).
// Gated variant (the seed paper's appendix): h^{l+1} = (1 − z)·h^l + z·tanh(A^l + V^l x),
// z = σ(Wz h^l + Vz x), with no α.
torch::Tensor StarSaberLayerImpl::forward(const torch::Tensor& h, const torch::Tensor& x,
                                          const torch::Tensor& key_padding,
                                          const LayerObserver& observe) {
  if (blocked_ && !observe && h.is_cpu() && !key_padding.defined()) return forwardBlocked(h, x);
  auto [A, G] = attend(h, key_padding);           // (B, T, D), (B, H, T, T)
  auto update = torch::tanh(A + V_->forward(x));  // (B, T, D)
  torch::Tensor next;
  if (gated_) {
    auto z = torch::sigmoid(Wz_->forward(h) + Vz_->forward(x));  // (B, T, D)
    next = (1 - z) * h + z * update;
  } else {
    next = h + alpha * update;
  }
  observe.attention(G);
  observe.fixedPoint(alpha, h, next, update);  // α undefined when gated
  return next;
}

std::pair<torch::Tensor, torch::Tensor> StarSaberLayerImpl::attend(
    const torch::Tensor& h, const torch::Tensor& key_padding) {
  const auto B = h.size(0), T = h.size(1);
  auto hw = splitHeads(W_->forward(h));                                  // (B, H, T, Dh)
  auto hh = splitHeads(h);                                               // (B, H, T, Dh)
  auto scores = torch::matmul(hw, hh.transpose(-2, -1)) * scoreScale();  // (B, H, T, T)
  if (causal_) {
    auto upper = torch::ones({T, T}, scores.options().dtype(torch::kBool)).triu(1);
    scores.masked_fill_(upper, -std::numeric_limits<double>::infinity());
  }
  if (key_padding.defined()) {
    scores.masked_fill_(key_padding.view({B, 1, 1, T}), -std::numeric_limits<double>::infinity());
  }
  auto G = torch::softmax(scores, -1);  // (B, H, T, T)
  auto past = G.tril(-1);               // i < n
  auto future = G.triu(0);              // i ≥ n
  auto A = torch::matmul(past, splitHeads(U_->forward(h))) +
           torch::matmul(future, splitHeads(Q_->forward(h)));  // (B, H, T, Dh)
  return {A.transpose(1, 2).contiguous().view({B, T, d_model_}), G};
}

torch::Tensor StarSaberLayerImpl::equationMap(const torch::Tensor& h, const torch::Tensor& x,
                                              const torch::Tensor& key_padding) {
  return torch::tanh(attend(h, key_padding).first + V_->forward(x));  // (B, T, D)
}

void recordFixedPoint(StarSaberLayerImpl& layer, const torch::Tensor& h_out, const torch::Tensor& x,
                      const torch::Tensor& key_padding, int64_t sample, LayerInspection& out) {
  torch::NoGradGuard no_grad;
  const auto one = [&](const torch::Tensor& t) {
    return t.defined() ? t.narrow(0, sample, 1).detach() : t;
  };
  const auto start = one(h_out), xs = one(x), padding = one(key_padding);  // (1, T, D), (1, T)
  auto z = start;
  out.fixed_point_converged = false;
  out.fixed_point_iterations = kFixedPointIterations;
  for (int64_t k = 1; k <= kFixedPointIterations; ++k) {
    auto next = layer.equationMap(z, xs, padding);
    const double step = (next - z).norm().item<double>() / (next.norm().item<double>() + 1e-12);
    z = next;
    if (std::isfinite(step) && step <= kFixedPointTolerance) {
      out.fixed_point_converged = true;
      out.fixed_point_iterations = k;
      break;
    }
  }
  out.fixed_point_distance = (start - z).norm().item<double>() / (z.norm().item<double>() + 1e-12);
}

// The training path: the same layer with W, U, Q (and Wz) as one product of h, and G's past and
// future parts read on the blocked kernel's blocks (no (B, H, T, T) tensor, split at the
// diagonal: i < n reads U h, i ≥ n reads Q h).
torch::Tensor StarSaberLayerImpl::forwardBlocked(const torch::Tensor& h, const torch::Tensor& x) {
  std::vector<torch::Tensor> weights{W_->weight, U_->weight, Q_->weight};
  if (gated_) weights.push_back(Wz_->weight);
  auto parts = torch::linear(h, torch::cat(weights, 0)).split(d_model_, -1);  // (B, T, D) each
  auto A = blockedSplitValueAttention(splitHeads(parts[0]), splitHeads(h), splitHeads(parts[1]),
                                      splitHeads(parts[2]), scoreScale(), causal_);  // (B,H,T,Dh)
  A = A.transpose(1, 2).reshape({h.size(0), h.size(1), d_model_});                   // (B, T, D)
  auto update = torch::tanh(A + V_->forward(x));                                     // (B, T, D)
  if (!gated_) return torch::addcmul(h, alpha, update);  // h + α·update
  auto z = torch::sigmoid(parts[3] + Vz_->forward(x));   // (B, T, D)
  return torch::lerp(h, update, z);                      // (1 − z)·h + z·update
}

StarSaberModelImpl::StarSaberModelImpl(const ModelOptions& options, const ModelIO& io)
    : SequenceModelImpl(options, io) {
  registerIoLayers(options_.d_model);
  for (int64_t l = 0; l < options_.layers; ++l) {
    layers_.push_back(register_module("layer" + std::to_string(l),
                                      StarSaberLayer(options_.d_model, options_.heads,
                                                     options_.causal, options_.starsaber_gated)));
  }
}

torch::Tensor StarSaberModelImpl::forward(const torch::Tensor& input, InspectionRecord* record) {
  auto x = embed(input);  // (B, T, D): h^0 = x, and the direct path of every layer
  auto h = x;
  const auto padding = keyPaddingMask(input, io_);  // (B, T) or undefined
  const InspectionObserver observe(record, options_.model, layers_.size());
  for (size_t l = 0; l < layers_.size(); ++l)
    h = layers_[l]->forward(h, x, padding, observe.layer(l));
  if (record && !layers_.empty())
    recordFixedPoint(*layers_.back(), h, x, padding, record->sample, record->layers.back());
  return head(h, input);  // (B, T, O) | (B, O)
}

}  // namespace rsalab
