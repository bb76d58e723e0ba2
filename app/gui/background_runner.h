// SPDX-License-Identifier: GPL-3.0-or-later
// Runs one job at a time off the GUI thread: the one background-thread runner of the app (the
// sweep, app/gui/sweep_runner.h, and the linear-attention measurement,
// app/gui/preset_controller.h).
//
// Thread contract:
// - start() launches a QThread whose only job is `job`; the GUI thread never waits on it.
// - Commands go in only as atomics: stopFlag() (the job reads it between its steps) or the job's
//   own (a sweep's TrainingControl).
// - Results come out only as functors queued to this object with post(), run in the GUI thread;
//   one queued after the runner is gone is dropped by Qt. `job` returns the last one, run after
//   isRunning() has turned false; a job that throws emits failed() instead.
// - The next start() and the destructor reap the last thread; the destructor sets the stop flag
//   and waits (within about one step of the job).
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>

class QThread;

namespace rsalab {

class BackgroundRunner : public QObject {
  Q_OBJECT
 public:
  using Done = std::function<void()>;
  using Job = std::function<Done()>;  // runs on the thread; returns what the GUI thread does last

  explicit BackgroundRunner(QObject* parent = nullptr);
  ~BackgroundRunner() override;

  // False (and nothing starts) while a job is running.
  bool start(Job job, const QString& thread_name = QString());
  void stop() { stop_ = true; }
  const std::atomic<bool>& stopFlag() const { return stop_; }
  // From start() until the job's last functor has run or failed() is emitted.
  bool isRunning() const { return running_; }
  // From the job's thread: runs `f` in the GUI thread, queued behind what was posted before.
  void post(std::function<void()> f);

 signals:
  /// The job threw: its message (isRunning() is false by then).
  void failed(const QString& message);

 private:
  void reap();
  QThread* thread_ = nullptr;  // the last job's, reaped by the next start or the destructor
  bool running_ = false;       // GUI thread only
  std::atomic<bool> stop_{false};
};

}  // namespace rsalab
