// SPDX-License-Identifier: GPL-3.0-or-later
// RepaintThrottle: at most one redraw per interval for a view fed many small updates (metric
// batches at ~20 Hz, snapshots, sweep points). markDirty() schedules the view's draw function
// within the interval; more marks before it runs are folded into the same draw. A hidden view (a
// tab in the background) stays dirty and draws when it is shown; flush() draws now (exports,
// tests, grabs).
#pragma once

#include <QObject>
#include <QTimer>
#include <functional>

class QWidget;

namespace rsalab {

class RepaintThrottle : public QObject {
 public:
  static constexpr int kIntervalMs = 40;  // 25 frames per second at most

  // `draw_function` runs with the dirty mark already cleared.
  RepaintThrottle(QWidget* view, std::function<void()> draw_function,
                  int interval_ms = kIntervalMs);

  void markDirty();
  void flush();  // draws now when dirty
  bool isDirty() const { return dirty_; }
  bool isPending() const { return timer_.isActive(); }  // a draw is scheduled

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void draw();

  QWidget* view_;
  std::function<void()> draw_;
  QTimer timer_;
  bool dirty_ = false;
};

}  // namespace rsalab
