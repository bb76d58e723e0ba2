// SPDX-License-Identifier: GPL-3.0-or-later
// What several sections build: the training configurations, model options with the one REM-head
// rule, the registry's attention models by kind, and one model training on fixed random data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/config/model_options.h"
#include "engine/models/sequence_model.h"
#include "engine/torch_api.h"
#include "engine/training/flat_adam.h"

namespace rsalab::bench {

struct TrainConfig {
  std::string name;
  int64_t d, h, L, B, T;
};

// tiny, small, large, and gpu (d512 h8 L6 B32 T1024: scripts/gpu-check.sh's size, which only
// runs when named, --configs gpu).
const std::vector<TrainConfig>& trainConfigs();
const TrainConfig& trainConfig(const std::string& name);
std::vector<std::string> trainConfigNames();
// The configurations a run without --configs trains: tiny, small, large.
std::vector<std::string> defaultTrainConfigNames();

// Options of `model` at width d, h heads, L layers; RSA-style models get defaultRemHeads(h).
ModelOptions modelOptions(const std::string& model, int64_t d, int64_t h, int64_t L);
// REM heads `model` carries at h heads (0 for models without REMs).
int64_t remHeads(const std::string& model, int64_t h);
// The registry's attention-family model whose attention is `kind`.
std::string attentionModel(AttentionKind kind);
// The attention-family models, in registry order.
std::vector<std::string> attentionModels();
bool isRecurrent(const std::string& model);

// One model training on fixed random data: real-valued input (F = 1), per-position MSE, AdamW
// with weight decay on matrices only (as the Trainer): the engine's flat-buffer AdamW, or
// (flat = false) LibTorch's per-tensor torch::optim::AdamW, the "before" of that lever. On a
// CUDA device the model and the data live there and step() waits for the GPU before it returns,
// so that a step's wall time is its GPU time.
struct TrainCase {
  std::string model;
  SequenceModel net;
  std::unique_ptr<torch::optim::AdamW> optimizer;  // flat = false
  std::unique_ptr<FlatAdam> flat;                  // flat = true
  torch::Tensor x, y;
  int max_reps = 0;
  std::vector<double> times;

  torch::Device device = torch::kCPU;

  TrainCase(const std::string& m, const TrainConfig& c, bool flat = true,
            torch::Device on = torch::kCPU);
  void step();
};

}  // namespace rsalab::bench
