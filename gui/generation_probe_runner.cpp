#include "gui/generation_probe_runner.h"

#include <QThread>

#include "engine/training/generation_probe.h"

namespace rsalab {

GenerationProbeRunner::GenerationProbeRunner(QObject* parent) : QObject(parent) {}

GenerationProbeRunner::~GenerationProbeRunner() {
  stop();
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

void GenerationProbeRunner::stop() { stop_ = true; }

bool GenerationProbeRunner::start(const ModelOptions& model, int64_t max_position, uint64_t seed) {
  if (running_) return false;
  if (thread_) {  // the last measurement's thread, done or about to be: reap it
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  GenerationProbeOptions o;
  o.model = model;
  o.max_position = max_position;
  o.seed = seed;
  stop_ = false;
  running_ = true;
  emit started(QString("d%1 h%2 L%3, T up to %4")
                   .arg(model.d_model)
                   .arg(model.heads)
                   .arg(model.layers)
                   .arg(max_position));
  // Results come back as functors queued to this object (GUI thread); a functor queued after the
  // runner is gone is dropped by Qt, and the destructor waits for the thread anyway.
  thread_ = QThread::create([this, o] {
    try {
      auto probe = probeLinearAttentionRnn(
          o,
          [this](const std::string& kind, const GenerationPoint& p) {
            const QString k = QString::fromStdString(kind);
            QMetaObject::invokeMethod(
                this, [this, k, p] { emit point(k, p); }, Qt::QueuedConnection);
          },
          &stop_);
      const bool stopped = stop_.load();
      QMetaObject::invokeMethod(
          this,
          [this, probe, stopped] {
            running_ = false;
            emit finished(probe, stopped);
          },
          Qt::QueuedConnection);
    } catch (const std::exception& e) {
      const QString message = QString::fromStdString(e.what());
      QMetaObject::invokeMethod(
          this,
          [this, message] {
            running_ = false;
            emit failed(message);
          },
          Qt::QueuedConnection);
    }
  });
  thread_->start();
  return true;
}

}  // namespace rsalab
