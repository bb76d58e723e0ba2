// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/inspection_copy.h"

namespace rsalab {

Matrix toMatrix(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  Matrix m;
  m.rows = c.size(0);
  m.cols = c.dim() > 1 ? c.size(1) : 1;
  const float* p = c.data_ptr<float>();
  m.values.assign(p, p + c.numel());
  return m;
}

}  // namespace rsalab
