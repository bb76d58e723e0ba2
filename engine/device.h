// SPDX-License-Identifier: GPL-3.0-or-later
// Where tensors live: "cpu", "cuda", "cuda:N" or "auto" (CUDA when LibTorch has it and a GPU is
// present, else the CPU). Models and batches move to the resolved device; inspection records
// are always copied back to the CPU (toMatrix).
#pragma once

#include <string>

#include "engine/torch_api.h"

namespace rsalab {

// Throws std::invalid_argument with a clear message for unknown specs or missing CUDA.
torch::Device resolveDevice(const std::string& spec);
// "CPU" or "CUDA:N" for logs and the status bar.
std::string deviceName(const torch::Device& device);

}  // namespace rsalab
