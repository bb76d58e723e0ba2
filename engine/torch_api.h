// The one place engine code includes LibTorch; compiled once as the engine's precompiled header.
#pragma once

#include <torch/torch.h>
