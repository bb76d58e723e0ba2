// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench/fixtures.h"

#include <stdexcept>

#include "engine/core/registry/model_registry.h"
#include "engine/models/model_factory.h"

namespace rsalab::bench {

const std::vector<TrainConfig>& trainConfigs() {
  static const std::vector<TrainConfig> configs = {{"tiny", 32, 2, 2, 8, 32},
                                                   {"small", 64, 4, 2, 32, 128},
                                                   {"large", 128, 8, 4, 16, 512},
                                                   {"gpu", 512, 8, 6, 32, 1024}};
  return configs;
}

const TrainConfig& trainConfig(const std::string& name) {
  for (const auto& c : trainConfigs()) {
    if (c.name == name) return c;
  }
  throw std::invalid_argument("unknown training configuration " + name);
}

std::vector<std::string> trainConfigNames() {
  std::vector<std::string> out;
  for (const auto& c : trainConfigs()) out.push_back(c.name);
  return out;
}

std::vector<std::string> defaultTrainConfigNames() { return {"tiny", "small", "large"}; }

ModelOptions modelOptions(const std::string& model, int64_t d, int64_t h, int64_t L) {
  ModelOptions o;
  o.model = model;
  o.d_model = d;
  o.heads = h;
  o.layers = L;
  o.rem = defaultRemHeads(h);
  return o;
}

int64_t remHeads(const std::string& model, int64_t h) {
  return modelInfo(model).has(HasRems) ? defaultRemHeads(h).total() : 0;
}

std::vector<std::string> attentionModels() {
  std::vector<std::string> out;
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Attention) out.emplace_back(row.name);
  }
  return out;
}

std::string attentionModel(AttentionKind kind) {
  if (const ModelCard* row = findAttention(kind)) return row->name;
  throw std::invalid_argument(std::string("no model in the registry has ") +
                              attentionKindName(kind) + " attention");
}

bool isRecurrent(const std::string& model) {
  return modelInfo(model).family == ModelFamily::Recurrent;
}

TrainCase::TrainCase(const std::string& m, const TrainConfig& c, bool flat_buffer, torch::Device on)
    : model(m), device(on) {
  torch::manual_seed(0);
  ModelIO io;
  io.input_dim = 1;
  io.output_dim = 1;
  net = makeSequenceModel(modelOptions(m, c.d, c.h, c.L), io);
  net->to(device);
  net->train();
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& p : net->parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  if (flat_buffer) {
    flat = std::make_unique<FlatAdam>(decay, no_decay, 1e-3, 0.01, /*decoupled=*/true);
    x = torch::randn({c.B, c.T, 1}).to(device);
    y = torch::randn({c.B, c.T, 1}).to(device);
    return;
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(
                                 torch::optim::AdamWOptions(1e-3).weight_decay(0.01)));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::AdamWOptions>(
                                    torch::optim::AdamWOptions(1e-3).weight_decay(0)));
  optimizer = std::make_unique<torch::optim::AdamW>(groups);
  x = torch::randn({c.B, c.T, 1}).to(device);
  y = torch::randn({c.B, c.T, 1}).to(device);
}

void TrainCase::step() {
  if (flat) {
    flat->zeroGrad();
    torch::mse_loss(net->forward(x), y).backward();
    flat->step();
  } else {
    optimizer->zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    optimizer->step();
  }
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace rsalab::bench
