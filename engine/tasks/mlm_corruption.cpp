// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/mlm_corruption.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace rsalab {

MlmCorruption corruptForMlmWithMask(const torch::Tensor& tokens, double p, int64_t vocab,
                                    torch::Generator gen) {
  if (!(p >= 0 && p <= 1)) {
    throw std::invalid_argument("mlm probability = " + std::to_string(p) +
                                " is out of range: [0, 1]");
  }
  if (vocab < 1) {
    throw std::invalid_argument("vocab = " + std::to_string(vocab) + " is out of range: >= 1");
  }
  if (tokens.scalar_type() != torch::kInt64) {
    throw std::invalid_argument("corruptForMlm needs int64 token ids");
  }
  auto cpu = torch::TensorOptions().device(torch::kCPU);
  // Both draws always happen, so the generator advances the same way for any p.
  auto u = torch::rand(tokens.sizes(), gen, cpu.dtype(torch::kFloat32));
  auto random = torch::randint(0, vocab, tokens.sizes(), gen, cpu.dtype(torch::kInt64));
  MlmCorruption out;
  out.replaced = (u < p).to(tokens.device());
  out.tokens = torch::where(out.replaced, random.to(tokens.device()), tokens);
  return out;
}

torch::Tensor corruptForMlm(const torch::Tensor& tokens, double p, int64_t vocab,
                            torch::Generator gen) {
  return corruptForMlmWithMask(tokens, p, vocab, std::move(gen)).tokens;
}

}  // namespace rsalab
