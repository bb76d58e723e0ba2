// SPDX-License-Identifier: GPL-3.0-or-later
// Checks of every TaskOptions value that can be made without building the task (torch-free, so
// the config loader, the CLI, the GUI form and the fuzz harnesses share it). Each failure throws
// std::invalid_argument naming the field and its allowed range. The task builders repeat the
// checks that depend on the data (e.g. a CSV file shorter than length + horizon).
#pragma once

#include <cstdint>

#include "engine/core/config/task_options.h"

namespace rsalab {

void validate(const TaskOptions& options, int64_t train_size);

}  // namespace rsalab
