// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/informer.h"

#include <stdexcept>
#include <string>

#include "engine/core/registry/model_registry.h"

namespace rsalab {

namespace {
constexpr int64_t kMonths = 13, kDays = 32, kWeekdays = 7, kHours = 24;  // 1–12, 1–31, 0–6, 0–23
}  // namespace

InformerEmbeddingImpl::InformerEmbeddingImpl(int64_t columns, int64_t d_model, bool causal_conv)
    : causal_conv_(causal_conv) {
  auto conv = torch::nn::Conv1dOptions(columns, d_model, 3).bias(false);
  if (!causal_conv) conv.padding(1).padding_mode(torch::kCircular);
  value_ = register_module("value", torch::nn::Conv1d(conv));
  month_ = register_module("month", torch::nn::Embedding(kMonths, d_model));
  day_ = register_module("day", torch::nn::Embedding(kDays, d_model));
  weekday_ = register_module("weekday", torch::nn::Embedding(kWeekdays, d_model));
  hour_ = register_module("hour", torch::nn::Embedding(kHours, d_model));
}

torch::Tensor InformerEmbeddingImpl::forward(const torch::Tensor& x, const torch::Tensor& marks) {
  auto in = x.transpose(1, 2);                                   // (B, C, T)
  if (causal_conv_) in = torch::constant_pad_nd(in, {2, 0}, 0);  // t reads t−2..t
  auto value = value_->forward(in).transpose(1, 2);              // (B, T, D)
  const int64_t T = x.size(1), D = value.size(2);
  const auto m = marks.to(torch::kInt64);
  auto stamp = month_->forward(m.select(2, 0)) + day_->forward(m.select(2, 1)) +
               weekday_->forward(m.select(2, 2)) + hour_->forward(m.select(2, 3));  // (B, T, D)
  return value + sinusoidalEncoding(T, D, 0, value.options()).unsqueeze(0) + stamp;
}

InformerModelImpl::InformerModelImpl(const ModelOptions& o, const ModelIO& io)
    : SequenceModelImpl(o, io), columns_(io.input_dim), label_(o.label_length) {
  horizon_ = seriesHorizon(io, o.model);  // throws for tokens, pooling or another output
  const bool rsa = modelInfo(o.model).has(HasRems);
  const RemHeadCounts none{0, 0, 0, 0, 0, 0};
  const auto& rems = rsa ? o.rem : none;
  const int64_t D = o.d_model, H = o.heads, F = o.ff_mult * o.d_model, c = o.informer_factor;
  enc_embed_ = register_module("enc_embed", InformerEmbedding(columns_, D, false));
  dec_embed_ = register_module("dec_embed", InformerEmbedding(columns_, D, true));
  for (int64_t l = 0; l < o.layers; ++l) {
    const auto n = "encoder" + std::to_string(l);
    EncoderLayer e;
    e.attention = register_module(
        n + "_attention", ProbAttention(D, H, c, false, true, rems, o.dilations, o.rem_init));
    e.ff1 = register_module(n + "_ff1", torch::nn::Linear(D, F));
    e.ff2 = register_module(n + "_ff2", torch::nn::Linear(F, D));
    e.norm1 = register_module(n + "_norm1", torch::nn::LayerNorm(std::vector<int64_t>{D}));
    e.norm2 = register_module(n + "_norm2", torch::nn::LayerNorm(std::vector<int64_t>{D}));
    encoder_.push_back(e);
    if (l + 1 == o.layers) break;
    Distil d;
    d.conv = register_module(
        n + "_distil_conv",
        torch::nn::Conv1d(
            torch::nn::Conv1dOptions(D, D, 3).padding(1).padding_mode(torch::kCircular)));
    d.norm = register_module(n + "_distil_norm", torch::nn::BatchNorm1d(D));
    distil_.push_back(d);
  }
  const int64_t decoder_layers = o.decoder_layers > 0 ? o.decoder_layers : 1;
  for (int64_t l = 0; l < decoder_layers; ++l) {
    const auto n = "decoder" + std::to_string(l);
    DecoderLayer d;
    d.self = register_module(n + "_self",
                             ProbAttention(D, H, c, true, true, rems, o.dilations, o.rem_init));
    d.cross = register_module(n + "_cross", ProbAttention(D, H, c, false, false));
    d.ff1 = register_module(n + "_ff1", torch::nn::Linear(D, F));
    d.ff2 = register_module(n + "_ff2", torch::nn::Linear(F, D));
    d.norm1 = register_module(n + "_norm1", torch::nn::LayerNorm(std::vector<int64_t>{D}));
    d.norm2 = register_module(n + "_norm2", torch::nn::LayerNorm(std::vector<int64_t>{D}));
    d.norm3 = register_module(n + "_norm3", torch::nn::LayerNorm(std::vector<int64_t>{D}));
    decoder_.push_back(d);
  }
  enc_norm_ = register_module("enc_norm", torch::nn::LayerNorm(std::vector<int64_t>{D}));
  dec_norm_ = register_module("dec_norm", torch::nn::LayerNorm(std::vector<int64_t>{D}));
  projection_ = register_module("projection", torch::nn::Linear(D, columns_));
}

torch::Tensor InformerModelImpl::encode(const torch::Tensor& x, const torch::Tensor& marks) {
  auto h = enc_embed_->forward(x, marks);  // (B, L, D)
  for (size_t l = 0; l < encoder_.size(); ++l) {
    auto& e = encoder_[l];
    h = e.norm1->forward(h + e.attention->forward(h));
    h = e.norm2->forward(h + e.ff2->forward(torch::gelu(e.ff1->forward(h))));
    if (l < distil_.size()) {  // distilling: (B, L, D) → (B, ⌊(L − 1)/2⌋ + 1, D)
      auto& d = distil_[l];
      auto y = torch::elu(d.norm->forward(d.conv->forward(h.transpose(1, 2))));
      h = torch::max_pool1d(y, 3, 2, 1).transpose(1, 2);
    }
  }
  return enc_norm_->forward(h);
}

torch::Tensor InformerModelImpl::decode(const torch::Tensor& x_enc, const torch::Tensor& marks_enc,
                                        const torch::Tensor& x_dec,
                                        const torch::Tensor& marks_dec) {
  const auto memory = encode(x_enc, marks_enc);
  auto h = dec_embed_->forward(x_dec, marks_dec);  // (B, T_dec, D)
  for (auto& d : decoder_) {
    h = d.norm1->forward(h + d.self->forward(h));
    h = d.norm2->forward(h + d.cross->forward(h, memory));
    h = d.norm3->forward(h + d.ff2->forward(torch::gelu(d.ff1->forward(h))));
  }
  return projection_->forward(dec_norm_->forward(h));  // (B, T_dec, C)
}

torch::Tensor InformerModelImpl::forward(const torch::Tensor&, InspectionRecord*) {
  throw std::invalid_argument(options_.model +
                              " reads each window's calendar marks: run it on the long-horizon "
                              "protocol (a bundled ETT series)");
}

torch::Tensor InformerModelImpl::forwardMarked(const torch::Tensor& x, const torch::Tensor& marks,
                                               InspectionRecord* record) {
  if (record) record->model = options_.model;  // no views of its own yet: an empty record
  const int64_t B = x.size(0), L = x.size(1), C = columns_, Hz = horizon_;
  if (x.dim() != 3 || x.size(2) != C)
    throw std::invalid_argument(options_.model + ": input must be (B, L, " + std::to_string(C) +
                                ")");
  if (marks.dim() != 3 || marks.size(0) != B || marks.size(1) != L + Hz || marks.size(2) != 4)
    throw std::invalid_argument(options_.model + ": marks must be (B, L + H, 4) = (" +
                                std::to_string(B) + ", " + std::to_string(L + Hz) + ", 4)");
  if (label_ > L)
    throw std::invalid_argument(options_.model + ": label_length " + std::to_string(label_) +
                                " is longer than the input length " + std::to_string(L));
  const auto m = marks.to(x.device(), torch::kInt64);
  const auto x_dec =
      torch::cat({x.narrow(1, L - label_, label_), torch::zeros({B, Hz, C}, x.options())}, 1);
  const auto out = decode(x, m.narrow(1, 0, L), x_dec, m.narrow(1, L - label_, label_ + Hz));
  return out.narrow(1, label_, Hz).reshape({B, 1, Hz * C});  // step h, column c at h·C + c
}

std::vector<ProbAttention> InformerModelImpl::attentions() const {
  std::vector<ProbAttention> out;
  for (const auto& e : encoder_) out.push_back(e.attention);
  for (const auto& d : decoder_) {
    out.push_back(d.self);
    out.push_back(d.cross);
  }
  return out;
}

void InformerModelImpl::holdSelection(bool hold) {
  for (auto& a : attentions()) a->holdSelection(hold);
}

void InformerModelImpl::setSampleSeed(uint64_t seed) {
  uint64_t k = 0;
  for (auto& a : attentions()) a->setSampleSeed(seed + 1000003 * k++);
}

SequenceModel makeInformer(const ModelOptions& options, const ModelIO& io) {
  return std::make_shared<InformerModelImpl>(options, io);
}

}  // namespace rsalab
