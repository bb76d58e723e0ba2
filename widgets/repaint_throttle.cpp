// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/repaint_throttle.h"

#include <QEvent>
#include <QWidget>

namespace rsalab {

RepaintThrottle::RepaintThrottle(QWidget* view, std::function<void()> draw_function,
                                 int interval_ms)
    : view_(view), draw_(std::move(draw_function)) {
  timer_.setSingleShot(true);
  timer_.setInterval(interval_ms);
  connect(&timer_, &QTimer::timeout, this, [this] {
    if (view_->isVisible()) draw();
  });
  view_->installEventFilter(this);
}

void RepaintThrottle::markDirty() {
  dirty_ = true;
  if (!timer_.isActive()) timer_.start();
}

void RepaintThrottle::flush() {
  timer_.stop();
  draw();
}

void RepaintThrottle::draw() {
  if (!dirty_) return;
  dirty_ = false;
  draw_();
}

bool RepaintThrottle::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_ && event->type() == QEvent::Show && dirty_ && !timer_.isActive())
    timer_.start();
  return false;
}

}  // namespace rsalab
