// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/window_status.h"

#include <algorithm>
#include <cmath>

#include "widgets/elided_label.h"

namespace rsalab {

WindowStatus::WindowStatus(QStatusBar* bar) : QObject(bar) {
  progress_ = new QProgressBar(bar);
  progress_->setMaximumWidth(220);
  progress_->setFormat("%p%");
  eta_label_ = new QLabel("ETA –", bar);
  speed_label_ = new QLabel("– steps/s", bar);
  device_label_ = new QLabel("device: CPU", bar);
  state_label_ = new QLabel("idle", bar);
  message_label_ = new ElidedLabel(QString(), bar);
  message_label_->setObjectName("StatusMessage");
  message_timer_ = new QTimer(this);
  message_timer_->setSingleShot(true);
  connect(message_timer_, &QTimer::timeout, this, [this] { message_label_->setText({}); });
  bar->addWidget(state_label_);
  bar->addWidget(message_label_, 1);
  bar->addPermanentWidget(progress_);
  bar->addPermanentWidget(eta_label_);
  bar->addPermanentWidget(speed_label_);
  bar->addPermanentWidget(device_label_);
}

void WindowStatus::showMessage(const QString& text, int timeout_ms) {
  message_label_->setText(text);
  if (timeout_ms > 0)
    message_timer_->start(timeout_ms);
  else
    message_timer_->stop();
}

QString WindowStatus::message() const { return message_label_->text(); }

void WindowStatus::setState(const QString& state) { state_label_->setText(state); }

void WindowStatus::setProgress(const RunStore::Progress& p) {
  progress_->setMaximum(static_cast<int>(std::min<qint64>(p.total, 1 << 30)));
  progress_->setValue(static_cast<int>(std::min<qint64>(p.done, 1 << 30)));
  const double speed = p.steps_per_second;
  speed_label_->setText(p.running ? QString("%1 steps/s").arg(speed, 0, 'f', 1) : QString());
  if (p.running)
    eta_label_->setText(speed > 0 ? QString("ETA %1 s").arg(std::ceil((p.total - p.done) / speed))
                                  : "ETA –");
  else
    eta_label_->setText(p.total > 0 && p.done >= p.total ? "done" : QString());
}

}  // namespace rsalab
