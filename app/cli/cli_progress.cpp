// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_progress.h"

#include <unistd.h>

#include <cstdio>

namespace rsalab {

ProgressLine::ProgressLine(std::string label, int64_t total)
    : label_(std::move(label)),
      total_(total > 0 ? total : 1),
      tty_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void ProgressLine::update(int64_t done, const std::string& extra) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double fraction = static_cast<double>(done) / static_cast<double>(total_);
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
  if (tty_) {
    if (std::chrono::duration<double>(now - last_draw_).count() < 0.1 && done < total_) return;
    last_draw_ = now;
    const int width = 30, filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r%s [%s] %3.0f%% %lld/%lld  %.1f/s  ETA %.0fs  %s   ", label_.c_str(),
                 bar.c_str(), 100 * fraction, static_cast<long long>(done),
                 static_cast<long long>(total_), rate, eta, extra.c_str());
  } else {
    const int decile = static_cast<int>(fraction * 10);
    if (decile == last_decile_) return;
    last_decile_ = decile;
    std::fprintf(stderr, "%s %3.0f%% %lld/%lld %.1f/s ETA %.0fs %s\n", label_.c_str(),
                 100 * fraction, static_cast<long long>(done), static_cast<long long>(total_), rate,
                 eta, extra.c_str());
  }
  std::fflush(stderr);
}

void ProgressLine::finish(const std::string& extra, int64_t done) {
  last_decile_ = -1000;  // draw whatever the last line drawn was
  last_draw_ = start_ - std::chrono::hours(1);
  update(done >= 0 ? done : total_, extra);
  if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace rsalab
