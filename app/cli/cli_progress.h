// SPDX-License-Identifier: GPL-3.0-or-later
// A progress line for the CLI: a bar with ETA, loss and steps/s on a terminal; plain periodic
// lines (about every 10%) when stderr is a file or pipe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rsalab {

class ProgressLine {
 public:
  ProgressLine(std::string label, int64_t total);
  // done of total units; extra is shown after the bar (e.g. "loss 0.0123").
  void update(int64_t done, const std::string& extra);
  // The last line, always drawn: `done` units (a run stopped early: its step, not the total);
  // −1: all of them.
  void finish(const std::string& extra, int64_t done = -1);

 private:
  std::string label_;
  int64_t total_;
  bool tty_;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace rsalab
