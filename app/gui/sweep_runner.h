// SPDX-License-Identifier: GPL-3.0-or-later
// Runs one sample-efficiency sweep (engine runSweep) off the GUI thread, on a BackgroundRunner
// (app/gui/background_runner.h: the thread contract).
//
// - runSweep trains runs on its own std::threads (one per core, one intra-op thread each).
// - Commands go in only as an atomic: cancel() sets the shared TrainingControl's stop flag, seen
//   by every trainer between steps and by runSweep before it picks the next run. Runs cut short
//   come back with stop_reason "stopped" (SweepRow::ok() is false: not a point on the figure).
// - Results come out only as posted functors delivered in the GUI thread: rowFinished per run (the
//   row shared, read-only: copied once off the sweep thread, never again), then finished.
// - Memory stays bounded however many runs: the rows keep thinned curves, and their every point
//   and inspection record go to the sweep's folder (SweepOptions::run_folder, set by the panel).
// - The destructor cancels and waits for the thread (within about one training step per run).
// - No LibTorch in this header (widget-side code and tests include it).
// - runSweep sets LibTorch's global intra-op thread count for its duration and restores it; a
//   GUI training session running at the same time shares the cores (and that setting).
#pragma once

#include <QElapsedTimer>
#include <QMetaType>
#include <QObject>
#include <memory>

#include "app/gui/background_runner.h"
#include "engine/core/sweep/sweep_types.h"

namespace rsalab {

struct TrainingControl;

class SweepRunner : public QObject {
  Q_OBJECT
 public:
  explicit SweepRunner(QObject* parent = nullptr);
  ~SweepRunner() override;

  // Starts a sweep; false (and nothing starts) while one is running.
  bool start(const SweepOptions& options);
  void cancel();
  bool isRunning() const { return runner_->isRunning(); }
  int64_t total() const { return total_; }
  int64_t done() const { return done_; }
  // Seconds left, from the mean wall time per finished run and the runs still to go (spread over
  // the concurrent runs); negative until the first run has finished.
  double etaSeconds() const;
  const SweepOptions& options() const { return options_; }

 signals:
  /// One run finished (or failed, or was cut short by cancel); consumed by the sweep panel.
  void rowFinished(std::shared_ptr<const rsalab::SweepRow> row, qint64 done, qint64 total);
  /// The sweep ended (all runs, or cancelled: `cancelled`); fits over the finished runs.
  void finished(const rsalab::SweepResult& result, bool cancelled);
  /// The sweep could not start (bad config): one line naming the field.
  void failed(const QString& message);

 private:
  SweepOptions options_;
  std::unique_ptr<TrainingControl> control_;  // outlives the runner's thread (destroyed after it)
  BackgroundRunner* runner_;
  QElapsedTimer clock_;
  int64_t total_ = 0, done_ = 0;
  int64_t parallel_ = 1;
};

}  // namespace rsalab

Q_DECLARE_METATYPE(rsalab::SweepResult)
