// SPDX-License-Identifier: GPL-3.0-or-later
// Copies tensors into the plain-data inspection types (CPU, float32).
#pragma once

#include "engine/core/io/inspection.h"
#include "engine/torch_api.h"

namespace rsalab {

// A 2-D tensor (any device/dtype) as a row-major CPU float Matrix; 1-D becomes n × 1.
Matrix toMatrix(const torch::Tensor& t);

}  // namespace rsalab
