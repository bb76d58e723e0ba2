// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/sequence_model.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rsalab {

SequenceModelImpl::SequenceModelImpl(ModelOptions options, ModelIO io)
    : options_(std::move(options)), io_(io) {
  validate(options_);
  validate(io_);
  if (io_.revin) {  // no random draw: the models' initialisation is unchanged by it
    if (io_.vocab > 0)
      throw std::invalid_argument("norm revin needs a series task (real inputs per column)");
    revin_weight_ = register_parameter("revin_weight", torch::ones({io_.input_dim}));
    revin_bias_ = register_parameter("revin_bias", torch::zeros({io_.input_dim}));
  }
}

void SequenceModelImpl::registerIoLayers(int64_t width) {
  if (io_.vocab > 0) {
    token_embed_ = register_module("token_embed", torch::nn::Embedding(io_.vocab, width));
  } else {
    input_proj_ = register_module("input_proj", torch::nn::Linear(io_.input_dim, width));
  }
  output_ = register_module("output", torch::nn::Linear(width, io_.output_dim));
  if (options_.skip_lags > 0) {
    const int64_t H = seriesHorizon(io_, "skip_lags");
    skip_ = register_module("linear_skip", torch::nn::Linear(options_.skip_lags, H));  // (K → H)
    torch::NoGradGuard no_grad;
    skip_->weight.zero_();
    skip_->bias.zero_();
  }
}

torch::Tensor SequenceModelImpl::linearSkip(const torch::Tensor& x) {
  return stepsByColumn(skip_->forward(lookbackWindows(x, options_.skip_lags)));  // (B, T, H·C)
}

int64_t seriesHorizon(const ModelIO& io, const std::string& what) {
  if (io.vocab > 0 || io.pooled || io.output_dim % io.input_dim != 0) {
    throw std::invalid_argument(
        what + " needs real inputs and per-position outputs of H steps × the input's " +
        std::to_string(io.input_dim) + " columns (a series task)");
  }
  return io.output_dim / io.input_dim;
}

torch::Tensor lookbackWindows(const torch::Tensor& x, int64_t K) {
  const int64_t B = x.size(0), C = x.size(2);
  auto padded = torch::cat({x.narrow(1, 0, 1).expand({B, K - 1, C}), x}, 1);  // (B, T+K−1, C)
  return padded.unfold(1, K, 1);  // (B, T, C, K): [b, t, c, k] = x_{t−K+1+k, c}
}

torch::Tensor stepsByColumn(const torch::Tensor& y) {
  const int64_t B = y.size(0), T = y.size(1), C = y.size(2), H = y.size(3);
  return y.transpose(2, 3).reshape({B, T, H * C});  // (B, T, H·C): step h, column c at h·C + c
}

torch::Tensor SequenceModelImpl::embed(const torch::Tensor& x) {
  if (io_.vocab > 0) return token_embed_->forward(x);  // (B, T, D)
  return input_proj_->forward(x);                      // (B, T, D)
}

torch::Tensor SequenceModelImpl::head(const torch::Tensor& h, const torch::Tensor& x) {
  if (skip_) return output_->forward(h) + linearSkip(x);  // (B, T, O)
  if (!io_.pooled) return output_->forward(h);            // (B, T, O)
  if (io_.vocab > 0 && io_.pad_token >= 0) {
    auto keep = x.ne(io_.pad_token).unsqueeze(-1).to(h.scalar_type());        // (B, T, 1)
    return output_->forward((h * keep).sum(1) / keep.sum(1).clamp_min(1.0));  // (B, O)
  }
  return output_->forward(h.mean(1));  // (B, O)
}

int64_t SequenceModelImpl::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

// PE[t, 2i] = sin(t / 10000^(2i/D)), PE[t, 2i+1] = cos(t / 10000^(2i/D))
torch::Tensor sinusoidalEncoding(int64_t T, int64_t D, int64_t offset,
                                 const torch::TensorOptions& options) {
  auto opts = options.dtype(torch::kFloat64);
  auto pos = torch::arange(offset, offset + T, opts).unsqueeze(1);                   // (T, 1)
  auto i = torch::arange(0, D, 2, opts);                                             // (⌈D/2⌉)
  auto angle = pos * torch::exp(i * (-std::log(10000.0) / static_cast<double>(D)));  // (T, ⌈D/2⌉)
  auto pe = torch::zeros({T, D}, opts);
  pe.slice(1, 0, D, 2).copy_(torch::sin(angle));
  pe.slice(1, 1, D, 2).copy_(torch::cos(angle).narrow(1, 0, D / 2));
  return pe.to(options.dtype());  // (T, D)
}

}  // namespace rsalab
