// The GUI's only handle on training: owns the worker thread and the TrainingWorker in it, and
// turns button presses into queued commands (type-checked functors run on the worker thread). Never
// blocks the UI thread except in its destructor, which asks the worker to stop and waits for the
// thread (within about a step).
#pragma once

#include <QObject>
#include <QThread>

#include "engine/training/trainer_faults.h"
#include "gui/run_messages.h"

namespace rsalab {

class TrainingWorker;

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;

  void start(const RunConfig& base, const QStringList& models, int seeds);
  void setPaused(bool paused);
  void stepOnce();
  void stop();
  void reset();
  void setHot(const HotParameters& hot);
  void requestInspection(int run, int sample);
  void restoreLastGood(int run = -1);                             // run < 0: every diverged run
  void setFaultsForTests(int run, const TrainingFaults& faults);  // test hook
  TrainingWorker* worker() const { return worker_; }

 private:
  // Runs command(worker) on the worker thread, queued behind the commands posted before it.
  template <typename Command>
  void post(Command command);
  QThread thread_;
  TrainingWorker* worker_;
};

// Registers the message types for queued connections (once per process).
void registerRunMessageTypes();

}  // namespace rsalab
