// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/model_options.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "engine/core/config/model_variant.h"

namespace rsalab {
namespace {

void require(bool ok, const std::string& field, const std::string& range, double value) {
  if (ok) return;
  std::ostringstream s;
  s << field << " = " << value << " is out of range: " << range;
  throw std::invalid_argument(s.str());
}

}  // namespace

RemHeadCounts defaultRemHeads(int64_t heads) {
  RemHeadCounts c;
  c.regular = heads >= 1 ? 1 : 0;
  c.cos = heads >= 2 ? 1 : 0;
  c.sin = heads >= 3 ? 1 : 0;
  return c;
}

const std::vector<OptionInfo<ModelOptions>>& modelOptionTable() {
  using M = ModelOptions;
  // clang-format off
  static const std::vector<OptionInfo<ModelOptions>> rows = {
      // name, label, unit, minimum, maximum, log scale, hot, member, flag, help, search range
      {"model", "Model", "", 0, 0, false, false, &M::model, "--model",
       "model: " + modelNameList()},
      {"d_model", "Width D", "", 1, 8192, true, false, &M::d_model, "--d-model",
       "width D (divisible by heads)", {16, 128, SearchScale::Log, SearchScope::Network, 8}},
      {"heads", "Heads H", "heads", 1, 256, false, false, &M::heads, "--heads",
       "attention heads H", {1, 8, SearchScale::Linear, SearchScope::Heads}},
      {"layers", "Layers L", "layers", 1, 64, false, false, &M::layers, "--layers", "layers L",
       {1, 4, SearchScale::Linear, SearchScope::Network}},
      {"ff_mult", "Feed-forward width (x D)", "", 1, 16, false, false, &M::ff_mult},
      {"causal", "Causal", "", 0, 0, false, false, &M::causal},
      {"dilations", "Dilations", "", 0, 0, false, false, &M::dilations},
      {"starsaber_gated", "Gated StarSaber", "", 0, 0, false, false, &M::starsaber_gated},
      {"encoder_attention", "Encoder attention", "", 0, 0, false, false,
       &M::encoder_attention},
      {"decoder_layers", "Decoder layers (0 = as the encoder)", "layers", 0, 64, false, false,
       &M::decoder_layers},
      {"linear_cumulative", "Linear attention as running sums", "", 0, 0, false, false,
       &M::linear_cumulative},
      {"linear_value_path", "Linear value path", "", 0, 0, false, false, &M::linear_value_path},
      {"retnet_learnable_decay", "RetNet: learnable decays", "", 0, 0, false, false,
       &M::retnet_learnable_decay, "--retnet-learnable-decay",
       "retnet: learn each head's decay gamma = sigmoid(nu), starting at 1 - 2^(-5-h) (default: "
       "fixed at that value)",
       {0, 1, SearchScale::Linear, SearchScope::Retention}},
      {"retnet_rotation", "RetNet: rotation", "", 0, 0, false, false, &M::retnet_rotation,
       "--retnet-rotation",
       "retnet: turn q and k by their position (e^(i n theta), RoPE angles; needs an even head "
       "width d_model / heads). Default: off, the decay alone carries position",
       {0, 1, SearchScale::Linear, SearchScope::Retention}},
      {"alibi_code_slopes", "ALiBi: the authors' code slopes", "", 0, 0, false, false,
       &M::alibi_code_slopes, "--alibi-code-slopes",
       "alibi: slopes as the authors' code (get_slopes) for heads not a power of two: those of "
       "the largest power of two P <= H, then every other slope of 2P. Default: off, the "
       "paper's text m_h = 2^(-8h/H) (the same when H is a power of two)"},
      {"skip_lags", "Linear skip path K (0 = off)", "steps", 0, 4096, false, false,
       &M::skip_lags, "--skip-lags",
       "linear skip path over the last K inputs beside the model (series; 0 = off; real series "
       "default 24)"},
      {"lookback", "Lookback L", "steps", 1, 4096, false, false, &M::lookback, "--lookback",
       "lookback window L of the linear forecasters (dlinear, nlinear): inputs t-L+1..t"},
      {"informer_factor", "Informer: ProbSparse factor c", "", 1, 1000, false, false,
       &M::informer_factor, "--informer-factor",
       "informer, rsa-informer: ProbSparse factor c (c ln L active queries and sampled keys)"},
      {"label_length", "Informer: start-token length", "steps", 1, 4096, false, false,
       &M::label_length, "--label-length",
       "informer, rsa-informer: the window's last known steps the decoder starts from (label_len; "
       "at most the input length)"},
  };
  // clang-format on
  return rows;
}

const std::vector<OptionInfo<RemHeadCounts>>& remHeadTable() {
  using R = RemHeadCounts;
  // The REM head split: 0..2 heads of each kind (tune keeps their sum in 1..H).
  const SearchRange kRemHeadSearch{0, 2, SearchScale::Linear, SearchScope::Rems};
  static const std::vector<OptionInfo<RemHeadCounts>> rows = {
      {"regular", "Regular REM heads", "heads", 0, 256, false, false, &R::regular, nullptr, "",
       kRemHeadSearch},
      {"cos", "Cos REM heads", "heads", 0, 256, false, false, &R::cos, nullptr, "", kRemHeadSearch},
      {"sin", "Sin REM heads", "heads", 0, 256, false, false, &R::sin, nullptr, "", kRemHeadSearch},
      {"dilated_regular", "Dilated regular REM heads", "heads", 0, 256, false, false,
       &R::dilated_regular},
      {"dilated_cos", "Dilated cos REM heads", "heads", 0, 256, false, false, &R::dilated_cos},
      {"dilated_sin", "Dilated sin REM heads", "heads", 0, 256, false, false, &R::dilated_sin},
  };
  return rows;
}

const std::vector<OptionInfo<RemInit>>& remInitTable() {
  using I = RemInit;
  // The start ranges of λ = tanh(η), γ = σ(ν) and the gate σ(µ) (tune keeps min <= max).
  const SearchRange eta{0.1, 3, SearchScale::Linear, SearchScope::Rems};
  const SearchRange nu{-1, 3, SearchScale::Linear, SearchScope::Rems};
  const SearchRange mu{-4, 4, SearchScale::Linear, SearchScope::Rems};
  static const std::vector<OptionInfo<RemInit>> rows = {
      {"eta_min", "|eta| from", "", -20, 20, false, false, &I::eta_min, nullptr, "", eta},
      {"eta_max", "|eta| to", "", -20, 20, false, false, &I::eta_max, nullptr, "", eta},
      {"eta_sign", "Sign of lambda (0 = random)", "", -1, 1, false, false, &I::eta_sign},
      {"nu_min", "nu from", "", -20, 20, false, false, &I::nu_min, nullptr, "", nu},
      {"nu_max", "nu to", "", -20, 20, false, false, &I::nu_max, nullptr, "", nu},
      {"mu", "Gate logit mu", "", -50, 50, false, false, &I::mu, nullptr, "", mu},
      {"learn_gate", "Learn the gate", "", 0, 0, false, false, &I::learn_gate},
      {"theta", "Cyclical angles theta", "", 0, 0, false, false, &I::theta},
  };
  return rows;
}

const OptionInfo<ModelOptions>* findModelOption(const std::string& name) {
  return findOption(modelOptionTable(), name);
}

AttentionKind encoderAttention(const ModelOptions& o) {
  const ModelCard* row = findAttention(o.encoder_attention);
  if (!row) {
    throw std::invalid_argument(std::string("encoder_attention '") +
                                attentionKindName(o.encoder_attention) + "' is unknown: use " +
                                encoderAttentionKindList());
  }
  if (row->causalOnly()) {  // the encoder is bidirectional
    throw std::invalid_argument(
        std::string("encoder_attention '") + attentionKindName(o.encoder_attention) +
        "' is causal only and the encoder is bidirectional: use " + encoderAttentionKindList());
  }
  return o.encoder_attention;
}

void validate(const ModelOptions& options) {
  const ModelOptions o = withVariant(options);  // a named variant's overrides, or its error
  const ModelCard& info = modelInfo(o.model);   // throws naming the model and the known ones
  const ModelCard* encoder = findAttention(encoderAttention(o));
  checkRanges(modelOptionTable(), o);
  if (o.d_model % o.heads != 0) {
    std::ostringstream s;
    s << "d_model = " << o.d_model << " is not divisible by heads = " << o.heads;
    throw std::invalid_argument(s.str());
  }
  if (info.attention == attentionKind("retention") && o.retnet_rotation &&
      (o.d_model / o.heads) % 2 != 0) {
    std::ostringstream s;
    s << "retnet_rotation turns pairs of channels: the head width d_model / heads = "
      << o.d_model / o.heads << " must be even";
    throw std::invalid_argument(s.str());
  }
  const RemHeadCounts& r = o.rem;
  checkRanges(remHeadTable(), r, "rem.");
  // The REM heads of a model whose attention has REMs (or a seq2seq encoder using that attention).
  if (info.has(HasRems) || (info.family == ModelFamily::Seq2Seq && encoder->has(HasRems))) {
    if (r.total() > o.heads) {
      std::ostringstream s;
      s << "REM head counts sum to " << r.total() << " but there are only heads = " << o.heads;
      throw std::invalid_argument(s.str());
    }
    const int64_t dilated = r.dilated_regular + r.dilated_cos + r.dilated_sin;
    if (dilated > 0 && o.dilations.empty()) {
      throw std::invalid_argument("dilations is empty but dilated REM heads are requested");
    }
    for (int64_t d : o.dilations) require(d >= 1 && d <= 1024, "dilation", "1..1024", d);
  }
  const RemInit& init = o.rem_init;
  checkRanges(remInitTable(), init, "rem_init.");
  require(init.eta_min <= init.eta_max, "rem_init.eta_min", "<= eta_max", init.eta_min);
  require(init.nu_min <= init.nu_max, "rem_init.nu_min", "<= nu_max", init.nu_min);
  require(init.theta.size() <= 256, "rem_init.theta count", "0..256",
          static_cast<double>(init.theta.size()));
  for (double t : init.theta) require(std::isfinite(t), "rem_init.theta", "a finite angle", t);
  require(o.dilations.size() <= 64, "dilations count", "0..64",
          static_cast<double>(o.dilations.size()));
}

void validate(const ModelIO& io) {
  require(io.input_dim >= 1 && io.input_dim <= 65536, "input_dim", "1..65536", io.input_dim);
  require(io.vocab >= 0 && io.vocab <= 1000000, "vocab", "0..1000000", io.vocab);
  require(io.output_dim >= 1 && io.output_dim <= 1000000, "output_dim", "1..1000000",
          io.output_dim);
}

}  // namespace rsalab
