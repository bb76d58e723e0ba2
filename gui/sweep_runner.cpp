#include "gui/sweep_runner.h"

#include <QMetaObject>
#include <algorithm>
#include <thread>

#include "engine/sweep/sweep.h"

namespace rsalab {

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
  qRegisterMetaType<rsalab::SweepRow>();
  qRegisterMetaType<rsalab::SweepResult>();
}

SweepRunner::~SweepRunner() {
  cancel();
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

bool SweepRunner::start(const SweepOptions& options) {
  if (running_) return false;
  if (thread_) {  // the previous sweep's thread has finished
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  options_ = options;
  control_ = std::make_unique<TrainingControl>();
  const int64_t axis_values =
      options.axis.empty() ? 1 : static_cast<int64_t>(options.axis.values.size());
  total_ = static_cast<int64_t>(options.models.size() * options.sizes.size()) * options.seeds *
           axis_values;
  done_ = 0;
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  parallel_ = std::clamp<int64_t>(options.parallel > 0 ? options.parallel : cores, 1,
                                  std::max<int64_t>(1, total_));
  running_ = true;
  clock_.start();
  TrainingControl* control = control_.get();
  thread_ = QThread::create([this, options, control] {
    // Runs in the sweep thread: only queued invocations reach the GUI thread from here.
    try {
      SweepResult result = runSweep(
          options,
          [this](int64_t done, int64_t total, const SweepRow& row) {
            QMetaObject::invokeMethod(
                this,
                [this, row, done, total] {
                  done_ = done;
                  emit rowFinished(row, done, total);
                },
                Qt::QueuedConnection);
          },
          control);
      const bool cancelled = control->stop.load();
      QMetaObject::invokeMethod(
          this,
          [this, result, cancelled] {
            running_ = false;
            emit finished(result, cancelled);
          },
          Qt::QueuedConnection);
    } catch (const std::exception& e) {
      const QString message = QString::fromUtf8(e.what());
      QMetaObject::invokeMethod(
          this,
          [this, message] {
            running_ = false;
            emit failed(message);
          },
          Qt::QueuedConnection);
    }
  });
  thread_->setObjectName("SweepThread");
  thread_->start();
  return true;
}

void SweepRunner::cancel() {
  if (control_) control_->stop = true;
}

double SweepRunner::etaSeconds() const {
  if (!running_ || done_ <= 0) return -1;
  const double elapsed = static_cast<double>(clock_.elapsed()) / 1000.0;
  // Runs finish `parallel_` at a time: elapsed / done is the wall time per finished run.
  return elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
}

}  // namespace rsalab
