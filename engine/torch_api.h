// SPDX-License-Identifier: GPL-3.0-or-later
// The one place engine code includes LibTorch; compiled once as the engine's precompiled header.
#pragma once

#include <torch/torch.h>
