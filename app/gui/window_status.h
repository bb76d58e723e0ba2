// SPDX-License-Identifier: GPL-3.0-or-later
// The window's status bar: the state (idle, training, paused, sweep 12/225, measuring), the
// message (elided to its room, whole in its tooltip; StatusMessage), and on the right the
// progress over every run's steps, the ETA, the speed and the device.
#pragma once

#include <QLabel>
#include <QObject>
#include <QProgressBar>
#include <QStatusBar>
#include <QTimer>

#include "widgets/run_store.h"

namespace rsalab {

class ElidedLabel;

class WindowStatus : public QObject {
  Q_OBJECT
 public:
  explicit WindowStatus(QStatusBar* bar);
  void showMessage(const QString& text, int timeout_ms = 0);  // cleared after timeout_ms > 0
  QString message() const;
  void setState(const QString& state);
  void setProgress(const RunStore::Progress& progress);

 private:
  QProgressBar* progress_;
  QLabel *eta_label_, *speed_label_, *device_label_, *state_label_;
  ElidedLabel* message_label_;
  QTimer* message_timer_;
};

}  // namespace rsalab
