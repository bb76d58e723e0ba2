// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/config/model_options.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

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

AttentionKind encoderAttention(const ModelOptions& o) {
  const auto kind = parseAttentionKind(o.encoder_attention);
  if (!kind || !findAttention(*kind)) {
    throw std::invalid_argument("encoder_attention '" + o.encoder_attention + "' is unknown: use " +
                                attentionKindList());
  }
  return *kind;
}

void validate(const ModelOptions& o) {
  const ModelInfo& info = modelInfo(o.model);  // throws naming the model and the known ones
  const ModelInfo* encoder = findAttention(encoderAttention(o));  // throws for an unknown name
  require(o.d_model >= 1 && o.d_model <= 8192, "d_model", "1..8192", o.d_model);
  require(o.heads >= 1 && o.heads <= 256, "heads", "1..256", o.heads);
  if (o.d_model % o.heads != 0) {
    std::ostringstream s;
    s << "d_model = " << o.d_model << " is not divisible by heads = " << o.heads;
    throw std::invalid_argument(s.str());
  }
  require(o.layers >= 1 && o.layers <= 64, "layers", "1..64", o.layers);
  require(o.skip_lags >= 0 && o.skip_lags <= 4096, "skip_lags", "0..4096", o.skip_lags);
  require(o.lookback >= 1 && o.lookback <= 4096, "lookback", "1..4096", o.lookback);
  require(o.ff_mult >= 1 && o.ff_mult <= 16, "ff_mult", "1..16", o.ff_mult);
  require(o.decoder_layers >= 0 && o.decoder_layers <= 64, "decoder_layers", "0..64",
          o.decoder_layers);
  const RemHeadCounts& r = o.rem;
  for (int64_t c : {r.regular, r.cos, r.sin, r.dilated_regular, r.dilated_cos, r.dilated_sin}) {
    require(c >= 0, "rem head count", ">= 0", c);
  }
  // The REM heads of a model whose attention has REMs (or a seq2seq encoder using that attention).
  if (info.has_rems || (info.family == ModelFamily::Seq2Seq && encoder->has_rems)) {
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
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"rem_init.eta_min", init.eta_min},
        {"rem_init.eta_max", init.eta_max},
        {"rem_init.nu_min", init.nu_min},
        {"rem_init.nu_max", init.nu_max}}) {
    require(std::isfinite(value) && std::abs(value) <= 20, name, "-20..20", value);
  }
  require(std::isfinite(init.mu) && std::abs(init.mu) <= 50, "rem_init.mu", "-50..50", init.mu);
  require(init.eta_sign >= -1 && init.eta_sign <= 1, "rem_init.eta_sign", "-1, 0 or 1",
          static_cast<double>(init.eta_sign));
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
