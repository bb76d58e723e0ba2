// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_interrupt.h"

namespace rsalab {

namespace {

std::atomic<bool>* g_stop_flag = nullptr;

extern "C" void onInterrupt(int) {
  if (g_stop_flag) g_stop_flag->store(true);
}

}  // namespace

InterruptToStop::InterruptToStop(std::atomic<bool>& flag) {
  g_stop_flag = &flag;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

InterruptToStop::~InterruptToStop() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  g_stop_flag = nullptr;
}

}  // namespace rsalab
