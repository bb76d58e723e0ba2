// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI's only handle on training: owns the worker thread and the TrainingWorker in it, and
// turns button presses into queued commands (type-checked functors run on the worker thread). Never
// blocks the UI thread except in its destructor, which asks the worker to stop and waits for the
// thread (within about a step).
#pragma once

#include <QObject>
#include <QThread>

#include "app/gui/run_messages.h"
#include "engine/training/trainer_faults.h"

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
  // The values hot edits start from: a launch's trainer options.
  void resetHot(const TrainerOptions& trainer);
  // A hot edit from the form (learning_rate, weight_decay, grad_clip, snapshot_every), kept for
  // applyHot(); its label ("lr 0.001 → 0.002"), empty for any other name.
  QString editHot(const QString& name, double value);
  void applyHot() { setHot(hot_); }  // sends the edited values to the runs
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
  HotParameters hot_;
};

// Registers the message types for queued connections (once per process).
void registerRunMessageTypes();

}  // namespace rsalab
