// Runs the "linear attention is an RNN" measurement (engine/training/generation_probe.h) off the
// GUI thread: one QThread per measurement. Points arrive as queued signals while it measures, the
// whole probe at the end; nothing is shared between the threads but copies and the stop flag.
// Timings are only as clean as the machine is quiet: the main window starts it with no training
// running.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>

#include "core/config/model_options.h"
#include "core/verdicts/generation_claim.h"

class QThread;

namespace rsalab {

struct GenerationProbeOptions;

class GenerationProbeRunner : public QObject {
  Q_OBJECT
 public:
  explicit GenerationProbeRunner(QObject* parent = nullptr);
  ~GenerationProbeRunner() override;  // stops a measurement and waits for its thread

  // Width, heads and layers of `model`, generation up to T = max_position. False when one is
  // already running.
  bool start(const ModelOptions& model, int64_t max_position, uint64_t seed = 0);
  void stop();
  // From start() until finished() or failed() is emitted.
  bool isRunning() const { return running_; }

 signals:
  void started(const QString& model);
  void point(const QString& kind, const rsalab::GenerationPoint& point);
  void finished(const rsalab::LinearAttentionRnnProbe& probe, bool stopped);
  void failed(const QString& message);

 private:
  QThread* thread_ = nullptr;  // the last measurement's, reaped by the next start or the destructor
  bool running_ = false;       // GUI thread only
  std::atomic<bool> stop_{false};
};

}  // namespace rsalab
