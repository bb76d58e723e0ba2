// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/model_export.h"

#include <cstring>
#include <set>
#include <stdexcept>

#include "engine/core/config/run_config.h"
#include "engine/training/trainer.h"

namespace rsalab {

namespace {

std::string dtypeName(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat64:
      return "F64";
    case torch::kFloat32:
      return "F32";
    case torch::kFloat16:
      return "F16";
    case torch::kBFloat16:
      return "BF16";
    case torch::kInt64:
      return "I64";
    case torch::kInt32:
      return "I32";
    case torch::kInt16:
      return "I16";
    case torch::kInt8:
      return "I8";
    case torch::kUInt8:
      return "U8";
    case torch::kBool:
      return "BOOL";
    default:
      throw std::invalid_argument("export: no safetensors dtype for this tensor type");
  }
}

SafetensorsTensor toSafetensor(const std::string& name, const torch::Tensor& tensor) {
  static const bool little_endian = [] {
    const uint16_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
  }();
  if (!little_endian) throw std::runtime_error("export: safetensors needs a little-endian host");
  const auto t = tensor.detach().to(torch::kCPU).contiguous();
  SafetensorsTensor out;
  out.name = name;
  out.dtype = dtypeName(t.scalar_type());
  out.shape.assign(t.sizes().begin(), t.sizes().end());
  out.bytes.assign(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
  return out;
}

}  // namespace

std::string peerIncompatibility(const ModelOptions& o, const ModelIO& io) {
  const ModelCard* card = findModel(o.model);
  if (!card || !card->has(HasPeer))  // the cards say which models the peer builds
    return "the peer (bench/peer/models.py) has no model " + o.model;
  if (io.vocab > 0) return "token inputs (the peer's models take real features)";
  if (io.pooled) return "a pooled output (the peer's models output every position)";
  if (io.revin) return "RevIN's affine (norm revin; the peer's models have none)";
  if (o.skip_lags > 0)
    return "the peer has no linear skip path (skip_lags = " + std::to_string(o.skip_lags) + ")";
  if (recurrentCell(o.model)) return "";  // the peer's cells are torch.nn's
  if (o.model == "mamba2") return "";     // causal whatever `causal` says; no PE, LN or FFN
  if (!o.causal) return "bidirectional attention (the peer's is causal)";
  if (o.linear_value_path)
    return "the linear value path (the peer's blocks have LayerNorm and FFN)";
  if (o.model == "starsaber" && o.starsaber_gated) return "gated StarSaber (the peer's is ungated)";
  if (o.model == "rsa") {
    const RemHeadCounts want = defaultRemHeads(o.heads);
    const RemHeadCounts& got = o.rem;
    if (got.regular != want.regular || got.cos != want.cos || got.sin != want.sin ||
        got.dilated_regular || got.dilated_cos || got.dilated_sin)
      return "REM heads other than the default (one regular, one cos, one sin)";
  }
  return "";
}

std::string peerTensorName(const std::string& /*model*/, const std::string& libtorch_name) {
  // The same for every model the peer has: both register input_proj, output, block<l> (ln1,
  // attention.{qkv,out,rems.{eta,nu,theta},mu,gate,norm,decay_logit,forget,decay_down,decay_up},
  // ffn.{ln,fc1,fc2}), ln_f;
  // layer<l>.{W,U,Q,V,alpha}; {rnn,lstm,gru}.{weight,bias}_{ih,hh}_l<k> (torch.nn's and LibTorch's
  // RNN names agree); mamba2's layer<l>.{norm,in_proj,conv1d,dt_bias,A_log,D,out_norm,out_proj},
  // norm_f.
  return libtorch_name;
}

ModelExport exportModel(Trainer& trainer) {
  const RunConfig& config = trainer.config();
  const ModelIO& io = trainer.data().io;
  const std::string why_not = peerIncompatibility(config.model, io);
  ModelExport out;
  for (const auto& [name, tensor] : trainer.namedParameters())
    out.weights.tensors.push_back(
        toSafetensor(why_not.empty() ? peerTensorName(config.model.model, name) : name, tensor));
  auto& m = out.weights.metadata;
  m["format"] = "rsalab-weights";
  m["rsalab_version"] = RSALAB_VERSION;
  m["model"] = config.model.model;
  m["tensor_names"] = why_not.empty() ? "peer" : "libtorch";
  m["peer"] = why_not.empty() ? "yes" : why_not;
  m["config"] = toJson(config);
  m["input_dim"] = std::to_string(io.input_dim);
  m["output_dim"] = std::to_string(io.output_dim);
  m["vocab"] = std::to_string(io.vocab);
  m["ff_mult"] = std::to_string(config.model.ff_mult);
  m["revin"] = io.revin ? "yes" : "no";
  m["steps"] = std::to_string(trainer.stepsDone());
  if (modelInfo(config.model.model).family != ModelFamily::Seq2Seq) {
    // A fixed batch of the run's input shape: the check is of the weights and the model's
    // function, which are the same for any input.
    const int64_t B = 4, T = std::min<int64_t>(trainer.data().train.x.size(1), 64);
    auto generator = at::detail::createCPUGenerator(0);
    const auto x = io.vocab > 0 ? torch::randint(io.vocab, {B, T}, generator, torch::kInt64)
                                : torch::randn({B, T, io.input_dim}, generator);
    out.sample.tensors = {toSafetensor("x", x), toSafetensor("y", trainer.forwardModel(x))};
    out.sample.metadata = {{"format", "rsalab-sample"}, {"model", config.model.model}};
  }
  return out;
}

}  // namespace rsalab
