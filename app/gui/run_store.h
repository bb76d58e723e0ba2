// SPDX-License-Identifier: GPL-3.0-or-later
// The runs the window shows: one descriptor and the latest status per run id, whether they came
// from the training worker, a session bundle or an opened sweep run. The runs table's rows, the
// progress bar and a train preset's verdict are read from it.
#pragma once

#include <QMap>
#include <QString>
#include <QVector>

#include "app/gui/run_messages.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/runs_table.h"

namespace rsalab {

class RunStore {
 public:
  void clear();
  void add(const RunDescriptor& run);  // its status: none yet
  void setStatus(const RunStatus& status);
  const QMap<int, RunDescriptor>& runs() const { return runs_; }
  const QMap<int, RunStatus>& statuses() const { return statuses_; }
  RunDescriptor descriptor(int id) const { return runs_.value(id); }
  bool isEmpty() const { return runs_.isEmpty(); }
  bool anyActive() const;  // a run idle or running: its verdict is still to come
  bool anyDiverged() const;
  int firstToInspect() const;  // the first run with REMs, else the first run; -1: none

  // The runs table's row for a run: with its status, or as just created (no losses yet).
  static RunRow row(const RunDescriptor& run, const RunStatus& status);
  static RunRow newRow(const RunDescriptor& run);
  static InspectedRunInfo inspectedRunInfo(const RunDescriptor& run);

  // A run that has ended (finished, stopped early, failed, interrupted) counts as complete: its
  // steps done are its total, so the bar reaches 100 % when every run has ended, however early.
  struct Progress {
    qint64 done = 0, total = 0;   // steps over every run
    double steps_per_second = 0;  // of the running runs together
    bool running = false;         // a run is still stepping
  };
  Progress progress() const;

 private:
  QMap<int, RunDescriptor> runs_;
  QMap<int, RunStatus> statuses_;
};

// The lines a run's validation curve is read against: the baselines' validation losses (the
// train mean's left out unless it is the best reference: far above every curve, it would squash
// them) and the task's Bayes floor, below which no model can go (in expectation).
std::vector<ReferenceLine> referenceLines(const RunDescriptor& run);

// The headline over the views when runs start: what trains on which task at which N, the Bayes
// floor and early stopping; `preset` (a preset's claim) first when not empty; the default
// launch adds its measured first-minute summary.
QString runsHeadline(const QVector<RunDescriptor>& runs, const RunConfig& config,
                     const QString& preset);

}  // namespace rsalab
