// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/device.h"

#include <stdexcept>

namespace rsalab {

torch::Device resolveDevice(const std::string& spec) {
  if (spec == "cpu") return torch::kCPU;
  const bool cuda = torch::cuda::is_available();
  if (spec == "auto") return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (spec.rfind("cuda", 0) == 0) {
    if (!cuda) {
      throw std::invalid_argument("device '" + spec +
                                  "' requested but this LibTorch has no CUDA or no GPU is visible; "
                                  "use --device cpu or auto");
    }
    int index = 0;
    if (spec.size() > 4) {
      if (spec[4] != ':')
        throw std::invalid_argument("device '" + spec + "' is malformed: use cuda:N");
      try {
        index = std::stoi(spec.substr(5));
      } catch (const std::exception&) {
        throw std::invalid_argument("device '" + spec + "' is malformed: use cuda:N");
      }
    }
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (index < 0 || index >= count) {
      throw std::invalid_argument("device '" + spec + "' does not exist: " + std::to_string(count) +
                                  " CUDA device(s) visible");
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw std::invalid_argument("device '" + spec + "' is unknown: use cpu, cuda, cuda:N or auto");
}

std::string deviceName(const torch::Device& device) {
  if (device.is_cpu()) return "CPU";
  return "CUDA:" + std::to_string(static_cast<int>(device.index()));
}

}  // namespace rsalab
