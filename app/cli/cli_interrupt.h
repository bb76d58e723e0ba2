// SPDX-License-Identifier: GPL-3.0-or-later
// Ctrl+C (SIGINT) and SIGTERM (what Slurm's scancel and time limit send) while training: the first
// asks the trainer to stop after its current step (an atomic store is async-signal-safe); the
// handler then resets itself, so a second Ctrl+C ends the process at once. Scoped: the previous
// handlers come back when it goes.
#pragma once

#include <atomic>
#include <csignal>

namespace rsalab {

class InterruptToStop {
 public:
  explicit InterruptToStop(std::atomic<bool>& flag);
  ~InterruptToStop();
  InterruptToStop(const InterruptToStop&) = delete;
  InterruptToStop& operator=(const InterruptToStop&) = delete;

 private:
  struct sigaction previous_int_ {
  }, previous_term_{};
};

}  // namespace rsalab
