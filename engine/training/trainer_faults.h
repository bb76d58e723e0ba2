// SPDX-License-Identifier: GPL-3.0-or-later
// Test hooks of the Trainer as plain data (torch-free, so the GUI worker's header can carry them).
#pragma once

#include <cstdint>
#include <string>

namespace rsalab {

// Makes one chosen step fail, so the divergence and failure paths can be tested without waiting
// for a real blow-up. Each fires once (it is cleared when it fires). Steps are 1-based.
struct TrainingFaults {
  int64_t nan_loss_at_step = 0;    // > 0: that step's loss reads NaN (the step is diverged)
  int64_t throw_at_step = 0;       // > 0: that step throws, as `throw_kind` says
  std::string throw_kind = "c10";  // c10 (c10::Error) | bad_alloc | shape (a real shape mismatch)
};

}  // namespace rsalab
