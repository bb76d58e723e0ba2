// SPDX-License-Identifier: GPL-3.0-or-later
// rsalab-peer-check: the engine's side of bench/peer/check_same_loss.py. For each model × config
// it builds the bench's TrainCase (seed 0: the same weights and batch that section 2 times) and
// writes DIR/<model>-<config>.pt, a torch::serialize archive that Python's torch.jit.load reads:
// "model" (the initial weights), "x", "y" (the batch), "loss0" (the loss at those weights) and
// "loss1" (the loss on the same batch after one training step: forward + backward + AdamW).
//   rsalab-peer-check DIR [models (comma-separated)] [configs (comma-separated)]
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "bench/fixtures.h"
#include "engine/core/registry/model_registry.h"
#include "engine/runtime.h"

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rsalab::bench;
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: %s DIR [models] [configs]\n", argv[0]);
    return 2;
  }
  try {
    rsalab::initRuntime();
    const std::string dir = argv[1];
    std::vector<std::string> models;  // default: every card the peer builds (HasPeer)
    for (const auto& card : rsalab::modelRegistry())
      if (card.has(rsalab::HasPeer)) models.emplace_back(card.name);
    if (argc > 2) models = split(argv[2]);
    const auto configs = split(argc > 3 ? argv[3] : "tiny,small");
    for (const auto& config : configs) {
      for (const auto& model : models) {
        // Two identical cases (seed 0): the archive refers to tc's tensors, which must not step.
        TrainCase tc(model, trainConfig(config)), stepped(model, trainConfig(config));
        torch::serialize::OutputArchive root, weights;
        tc.net->save(weights);
        torch::Tensor loss0, loss1;
        stepped.step();
        {
          torch::NoGradGuard no_grad;
          loss0 = torch::mse_loss(tc.net->forward(tc.x), tc.y);
          loss1 = torch::mse_loss(stepped.net->forward(stepped.x), stepped.y);
        }
        root.write("model", weights);
        root.write("x", tc.x, /*is_buffer=*/true);
        root.write("y", tc.y, /*is_buffer=*/true);
        root.write("loss0", loss0.detach(), /*is_buffer=*/true);
        root.write("loss1", loss1.detach(), /*is_buffer=*/true);
        const std::string path = dir + "/" + model + "-" + config + ".pt";
        root.save_to(path);
        std::printf("%s %s loss0 %.9g loss1 %.9g -> %s\n", model.c_str(), config.c_str(),
                    loss0.item<double>(), loss1.item<double>(), path.c_str());
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rsalab-peer-check: %s\n", e.what());
    return 1;
  }
  return 0;
}
