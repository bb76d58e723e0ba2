// SPDX-License-Identifier: GPL-3.0-or-later
// The object that owns the engine in the GUI: every Trainer of the session lives here, in one
// worker QThread.
//
// Thread contract (Qt's threaded Mandelbrot example is the model):
// - Only the worker thread touches Trainers and tensors. The GUI calls the slots below through
//   queued connections (arguments copied) and never waits on training.
// - The worker runs the active runs a few steps per tick (~15 ms) and re-posts its tick, so queued
//   commands (pause, step, stop, hot edits) are seen between ticks. With more than one core and
//   more than one running run, a tick steps the runs in parallel, one run per core with one
//   intra-op thread each (as the sweep does). The tick's helper threads each take a run no other
//   thread holds, and they are joined before the tick ends, so each Trainer is still touched by
//   one thread at a time and between ticks only by the worker thread. "Step" (one step of every
//   run) stays sequential.
// - Results leave only as queued signals carrying plain values already on the CPU, throttled to
//   about 20 Hz; every metric point is sent (batched), never dropped.
// - stopRequested() is also readable across threads (atomic) so a Stop lands within one step.
// - The destructor of the owner stops the thread and waits (see TrainingController).
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "app/gui/run_messages.h"
#include "engine/core/forecast/anchors.h"
#include "engine/core/session/session_bundle.h"
#include "engine/training/trainer_faults.h"

namespace rsalab {

class TrainingWorker : public QObject {
  Q_OBJECT
 public:
  explicit TrainingWorker(QObject* parent = nullptr);
  ~TrainingWorker() override;
  std::atomic<bool>& stopFlag() { return stop_flag_; }
  // Writes `bundle` to `path` (engine/core/session/session_bundle.h), with each live run's
  // checkpoint when `with_checkpoints`. Call it on the worker thread only (the GUI posts it there
  // with QMetaObject::invokeMethod), between steps. Returns the folder written; throws on failure.
  std::string saveSession(const SessionBundle& bundle, const std::string& path,
                          bool with_checkpoints);

 public slots:
  // Builds one run per model × seed (the task is built once per seed and shared) and starts.
  void start(const rsalab::RunConfig& base, const QStringList& models, int seeds);
  void setPaused(bool paused);
  void stepOnce();  // one step of every unfinished run, then paused
  void stop();      // every run stops and saves nothing; state Stopped
  void reset();     // drops all runs
  void setHot(const rsalab::HotParameters& hot);
  void requestInspection(int run, int sample);
  // Rolls a diverged run (run < 0: every diverged run) back to its last good state and resumes it.
  void restoreLastGood(int run);
  // Test hook: faults for run `run` (by id), applied to the run now or when it is created.
  void setFaults(int run, const rsalab::TrainingFaults& faults);
  // How many runs step at once: n ≤ 0 one per core (the default), 1 interleaved on the worker
  // thread alone (the behaviour before parallel runs; rsalab-gui-bench's "before").
  void setParallelRuns(int n);

 signals:
  /// Runs of a new session (live ids, the worker's run numbers); consumed by the run store.
  void runsCreated(const QVector<rsalab::Run>& runs);
  /// The same runs with more references: a real series' anchors, fitted in the background while
  /// the runs train, arrive after runsCreated (not when they are notes: anchors_as_notes).
  void runsUpdated(const QVector<rsalab::Run>& runs);
  /// New metric points of one run (all of them, batched at ~20 Hz); consumed by curves and table.
  void metrics(const rsalab::MetricsBatch& batch);
  /// State/progress of live run `run`; consumed by the run store and the status bar.
  void status(int run, const rsalab::RunStatus& now);
  /// Inspection record at a step; consumed by the inspector views.
  void snapshot(const rsalab::InspectionSnapshot& snapshot);
  /// A line for the log dock.
  void log(const QString& line);
  /// Every run has finished, stopped or failed.
  void idle();
  /// Something the user must see, not only in the log (N capped); the main window's status bar.
  void warning(const QString& message);

 private slots:
  void tick();

 private:
  struct WorkerRun;
  void scheduleTick();
  void flush(bool force);
  bool stepRun(WorkerRun& run);
  // One tick, `workers` threads.
  void stepInParallel(const std::vector<WorkerRun*>& due, int workers);
  void failRun(WorkerRun& run, const QString& message);
  void emitStatus(WorkerRun& run);
  void emitSnapshot(WorkerRun& run);
  // A real series' anchors (TaskData::pending_anchors) are fitted on a thread of their own while
  // the runs train; their scores come back to the worker thread (anchorsFitted) and enter the
  // runs as anchorReadout says (engine/tasks/task.h, as in the CLI): as references, sent out as
  // runsUpdated, or with `as_notes` (TaskData::anchors_as_notes) as log notes only. A new start
  // or the destructor cancels the fits not yet begun and joins.
  void fitAnchorsInBackground(uint64_t seed, bool as_notes, const forecast::AnchorInput& input);
  void anchorsFitted(int generation, uint64_t seed, bool as_notes,
                     const forecast::AnchorScores& anchors);
  void joinAnchorThreads();
  std::vector<std::unique_ptr<WorkerRun>> runs_;
  bool paused_ = false;
  bool tick_pending_ = false;
  int steps_to_go_ = -1;   // >= 0: single-stepping
  int parallel_runs_ = 0;  // setParallelRuns
  std::atomic<bool> stop_flag_{false};
  std::map<int, TrainingFaults> faults_;  // test hooks by run id
  std::vector<std::thread> anchor_threads_;
  int anchor_generation_ = 0;  // which start the fits belong to: late results of an earlier one
                               // are dropped
  std::shared_ptr<std::atomic<bool>> anchor_cancel_ = std::make_shared<std::atomic<bool>>(false);
  QElapsedTimer since_flush_;
};

}  // namespace rsalab
