// SPDX-License-Identifier: GPL-3.0-or-later
// InspectorPanel: the main window's central area. Tabs of inspector views (attention and REMs,
// REM parameters, decays as memory horizons, gates and fixed points, the linear-RNN explanation)
// over a step scrubber (a slider over the inspected run's recorded steps, with Play/Pause) that
// drives every view. It keeps the inspection records of every run (SnapshotHistory), the latest
// record per run with its sample's input, and draws the inspected run's task truth (its Run in the
// RunStore) in the REM view. Plain data in: no LibTorch, nothing from app/.
//
// Child object names (for scripts and tests): InspectorTabs, AttentionView, RemParameterView,
// DecayView, GateView, StepSlider, PlayButton, StepLabel.
#pragma once

#include <QMap>
#include <QPair>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/core/session/run_id.h"
#include "widgets/sample_input.h"
#include "widgets/snapshot_history.h"

class QLabel;
class QPushButton;
class QSlider;
class QTabWidget;
class QTimer;

namespace rsalab {

class AttentionView;
class DecayView;
class GateView;
class RemParameterView;
class RunStore;

class InspectorPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InspectorPanel(QWidget* parent = nullptr);

  // The tab widget (the window adds further tabs, e.g. the sample-efficiency tab).
  QTabWidget* tabs() const { return tabs_; }
  static constexpr int kInspectorTab = 0;  // the attention view's tab
  static constexpr int kRemTab = 1;        // the REM parameters' tab
  static constexpr int kDecayTab = 2;      // every head's decay as a memory horizon
  static constexpr int kGatesTab = 3;      // gates and StarSaber's fixed-point residuals
  static constexpr int kLinearRnnTab = 4;  // "Why REMs": a linear RNN as a sum of REMs

  // A line above the tabs, word-wrapped, in full (the launch or preset and its verdict); empty
  // hides it.
  void setHeadline(const QString& text);
  QString headline() const;

  // The runs (the window's RunStore): each run's caption and the task truth the REM view matches
  // the learned parameters against. Not owned; the panel follows the store's changes.
  void setStore(const RunStore* store);
  // Forgets every run's records, latest snapshots and inputs; nothing is inspected.
  void clear();
  // A live snapshot, shared with the worker's message (copied once, on the worker thread): the
  // panel keeps the pointer as the run's latest record and a thinned copy in the history; the
  // inspected run's views follow it. A null record is ignored.
  void addSnapshot(const RunId& run, qint64 step, std::shared_ptr<const InspectionRecord> record,
                   const SampleInput& input);
  // A stored record (an opened session or sweep run): kept in the history, nothing redrawn.
  void addRecord(const RunId& run, qint64 step, const InspectionRecord& record);
  // Makes `run` the inspected one (invalid: none) and applies its ground truth; nothing redrawn.
  void setInspectedRun(const RunId& run);
  // Inspects `run` in every view, at its newest record (what selecting it in the runs table does).
  void showRun(const RunId& run);

  RunId inspectedRun() const { return inspected_run_; }
  qint64 shownStep() const { return shown_step_; }  // step of the record shown, -1: none
  int sample() const;                               // the sample picker's validation sample
  const SnapshotHistory& history() const { return history_; }

 signals:
  // The user picked another validation sample for the inspected run.
  void inspectionRequested(const rsalab::RunId& run, int sample);

 private:
  void buildScrubber();
  void applyGroundTruth();
  void refreshScrubber();  // slider range from the history; follows the newest step if asked
  void onScrubbed(int index);
  void rebuildRemView();  // REM / StarSaber curves of the inspected run from the history
  void showLatest(const RunId& run);
  void showRecord(const RunId& run, qint64 step, const InspectionRecord& rec);

  struct Latest {
    qint64 step = 0;
    std::shared_ptr<const InspectionRecord> record;
  };

  QTabWidget* tabs_;
  QLabel* headline_;
  AttentionView* attention_view_;
  RemParameterView* rem_view_;
  DecayView* decay_view_;
  GateView* gate_view_;
  QSlider* step_slider_ = nullptr;
  QLabel* step_label_ = nullptr;
  QPushButton* play_button_ = nullptr;
  QTimer* play_timer_ = nullptr;
  const RunStore* store_ = nullptr;
  QMap<RunId, Latest> latest_;                   // newest record per run
  QMap<QPair<RunId, int>, SampleInput> inputs_;  // (run, sample) → that sample's input
  SnapshotHistory history_;                      // every run's records by step, thinned
  RunId inspected_run_;
  QString applied_truth_;            // the truth the REM view shows (applyGroundTruth)
  std::vector<qint64> scrub_steps_;  // the slider's index → step
  bool follow_latest_ = true;        // false once the user moves the slider back
  qint64 shown_step_ = -1;
  qint64 rem_view_step_ = -1;  // newest step drawn in rem_view_
};

}  // namespace rsalab
