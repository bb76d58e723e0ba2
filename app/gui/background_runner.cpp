// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/background_runner.h"

#include <QThread>
#include <exception>

namespace rsalab {

BackgroundRunner::BackgroundRunner(QObject* parent) : QObject(parent) {}

BackgroundRunner::~BackgroundRunner() {
  stop();
  reap();
}

void BackgroundRunner::reap() {
  if (!thread_) return;
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
}

void BackgroundRunner::post(std::function<void()> f) {
  QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection);
}

bool BackgroundRunner::start(Job job, const QString& thread_name) {
  if (running_) return false;
  reap();  // the last job's thread, done or about to be
  stop_ = false;
  running_ = true;
  thread_ = QThread::create([this, job = std::move(job)] {
    try {
      Done done = job();
      post([this, done] {
        running_ = false;
        if (done) done();
      });
    } catch (const std::exception& e) {
      const QString message = QString::fromUtf8(e.what());
      post([this, message] {
        running_ = false;
        emit failed(message);
      });
    }
  });
  if (!thread_name.isEmpty()) thread_->setObjectName(thread_name);
  thread_->start();
  return true;
}

}  // namespace rsalab
