// SPDX-License-Identifier: GPL-3.0-or-later
// InspectorPanel: the main window's central area. Tabs of inspector views (attention and REMs,
// REM parameters, gates and fixed points, the linear-RNN explanation) over a step scrubber (a
// slider over the inspected run's recorded steps, with Play/Pause) that drives every view. It keeps
// the inspection records of every run (SnapshotHistory), the latest record per run with its
// sample's input, and draws the inspected run's task truth in the REM view. Plain data in: no
// LibTorch, nothing from gui/.
//
// Child object names (for scripts and tests): InspectorTabs, AttentionView, RemParameterView,
// GateView, StepSlider, PlayButton, StepLabel.
#pragma once

#include <QMap>
#include <QPair>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "engine/core/io/inspection.h"
#include "engine/core/registry/ground_truth.h"
#include "widgets/sample_input.h"
#include "widgets/snapshot_history.h"

class QLabel;
class QPushButton;
class QSlider;
class QTabWidget;
class QTimer;

namespace rsalab {

class AttentionView;
class GateView;
class RemParameterView;

// What the inspector shows about a run besides its records: a caption, and the task's ground
// truth matched against the learned REM parameters (no components: none).
struct InspectedRunInfo {
  QString model;
  quint64 seed = 0;
  GroundTruth truth;
  qint64 length = 0;  // the task's sequence length T (REM errors are measured at it)
};

class InspectorPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InspectorPanel(QWidget* parent = nullptr);

  // The tab widget (the window adds further tabs, e.g. the sample-efficiency tab).
  QTabWidget* tabs() const { return tabs_; }
  static constexpr int kInspectorTab = 0;  // the attention view's tab
  static constexpr int kRemTab = 1;        // the REM parameters' tab
  static constexpr int kGatesTab = 2;      // gates and StarSaber's fixed-point residuals
  static constexpr int kLinearRnnTab = 3;  // "Why REMs": a linear RNN as a sum of REMs

  // A line above the tabs, word-wrapped, in full (the launch or preset and its verdict); empty
  // hides it.
  void setHeadline(const QString& text);
  QString headline() const;

  // Forgets every run: records, latest snapshots, inputs, run infos; nothing is inspected.
  void clear();
  void setRunInfo(int run, const InspectedRunInfo& info);
  // A live snapshot, shared with the worker's message (copied once, on the worker thread): the
  // panel keeps the pointer as the run's latest record and a thinned copy in the history; the
  // inspected run's views follow it. A null record is ignored.
  void addSnapshot(int run, qint64 step, std::shared_ptr<const InspectionRecord> record,
                   const SampleInput& input);
  // A stored record (an opened session or sweep run): kept in the history, nothing redrawn.
  void addRecord(int run, qint64 step, const InspectionRecord& record);
  // Makes `run` the inspected one (-1: none) and applies its ground truth; nothing redrawn.
  void setInspectedRun(int run);
  // Inspects `run` in every view, at its newest record (what selecting it in the runs table does).
  void showRun(int run);

  int inspectedRun() const { return inspected_run_; }
  qint64 shownStep() const { return shown_step_; }  // step of the record shown, -1: none
  int sample() const;                               // the sample picker's validation sample
  const SnapshotHistory& history() const { return history_; }

 signals:
  // The user picked another validation sample for the inspected run.
  void inspectionRequested(int run, int sample);

 private:
  void buildScrubber();
  void applyGroundTruth();
  void refreshScrubber();  // slider range from the history; follows the newest step if asked
  void onScrubbed(int index);
  void rebuildRemView();  // REM / StarSaber curves of the inspected run from the history
  void showLatest(int run);
  void showRecord(int run, qint64 step, const InspectionRecord& rec);

  struct Latest {
    qint64 step = 0;
    std::shared_ptr<const InspectionRecord> record;
  };

  QTabWidget* tabs_;
  QLabel* headline_;
  AttentionView* attention_view_;
  RemParameterView* rem_view_;
  GateView* gate_view_;
  QSlider* step_slider_ = nullptr;
  QLabel* step_label_ = nullptr;
  QPushButton* play_button_ = nullptr;
  QTimer* play_timer_ = nullptr;
  QMap<int, InspectedRunInfo> infos_;
  QMap<int, Latest> latest_;                   // newest record per run
  QMap<QPair<int, int>, SampleInput> inputs_;  // (run, sample) → that sample's input
  SnapshotHistory history_;                    // every run's records by step, thinned
  int inspected_run_ = -1;
  std::vector<qint64> scrub_steps_;  // the slider's index → step
  bool follow_latest_ = true;        // false once the user moves the slider back
  qint64 shown_step_ = -1;
  qint64 rem_view_step_ = -1;  // newest step drawn in rem_view_
};

}  // namespace rsalab
