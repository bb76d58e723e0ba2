// RSA Lab's main window: docks (run setup, hyperparameters, runs, loss curves, log) around a
// central tab area for the inspector views. Thin by design: panels are widgets in widgets/,
// training lives in the TrainingController's thread; this class only wires signals.
#pragma once

#include <QLabel>
#include <QMainWindow>
#include <QMap>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QTabWidget>

#include "app/run_messages.h"
#include "widgets/snapshot_history.h"

class QDockWidget;
class QPushButton;
class QSlider;
class QTimer;
class QVBoxLayout;

namespace rsalab {

class TrainingController;
class TrainingWorker;
class RunSetupPanel;
class HyperParameterForm;
class RunsTable;
class LossCurveView;
class HeatMapGrid;
class RemParameterView;
class SweepPanel;
struct SweepRow;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // For tests and scripted screenshots.
  RunSetupPanel* setupPanel() const { return setup_; }
  RunsTable* runsTable() const { return runs_table_; }
  LossCurveView* curves() const { return curves_; }
  HeatMapGrid* inspectorGrid() const { return grid_; }
  HyperParameterForm* hyperParameters() const { return hyper_; }
  RemParameterView* remParameters() const { return rem_view_; }
  // Step scrubber of the inspector tab: the slider indexes the inspected run's recorded steps.
  QSlider* stepSlider() const { return step_slider_; }
  const SnapshotHistory& snapshotHistory() const { return history_; }
  int inspectedRun() const { return inspected_run_; }
  qint64 shownStep() const { return shown_step_; }  // step of the record in the grid, -1: none
  bool isTraining() const { return training_; }
  TrainingWorker* controllerWorker() const;
  QAction* startAction() const { return start_action_; }
  QAction* stepAction() const { return step_action_; }
  QAction* stopAction() const { return stop_action_; }
  QAction* resetAction() const { return reset_action_; }
  SweepPanel* sweepPanel() const { return sweep_panel_; }  // the "Sample efficiency" tab
  QTabWidget* centralTabs() const { return tabs_; }
  // Shows a finished sweep run like a session run: its curves in the loss dock and, when its
  // inspection record was kept, its maps in the inspector (switches to that tab).
  void openSweepRun(const SweepRow& row);
  // Answer the "stop and quit?" question without a dialog (tests): 1 quit, 0 cancel, -1 ask.
  void setCloseAnswerForTests(int answer) { close_answer_ = answer; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildActions();
  void buildDocks();
  void buildStatusBar();
  RunConfig currentConfig() const;
  void startTraining();
  void togglePause();
  void setTrainingState(bool training, bool paused);
  void onRunsCreated(const QVector<RunDescriptor>& runs);
  void onMetrics(const MetricsBatch& batch);
  void onStatus(const RunStatus& status);
  void onSnapshot(const InspectionSnapshot& snapshot);
  void onHotChanged(const QString& name, double value);
  void showSnapshot(int run);
  void showRecord(int run, qint64 step, const InspectionRecord& rec);
  void buildScrubber(QWidget* inspector, QVBoxLayout* layout);
  void refreshScrubber();    // slider range from the history; follows the newest step if asked
  void onScrubbed(int index);
  void rebuildRemView();     // REM parameter curves of the inspected run from the history
  void appendLog(const QString& line);
  void updateStatusBar();
  void buildSweepTab();  // the "Sample efficiency" tab and Run → New sweep…

  TrainingController* controller_;
  RunSetupPanel* setup_;
  HyperParameterForm* hyper_;
  RunsTable* runs_table_;
  LossCurveView* curves_;
  QPlainTextEdit* log_;
  QTabWidget* tabs_;
  HeatMapGrid* grid_;
  QLabel* grid_caption_;
  QProgressBar* progress_;
  QLabel *eta_label_, *speed_label_, *device_label_, *state_label_;
  QAction *start_action_, *step_action_, *stop_action_, *reset_action_;
  QByteArray default_layout_;
  bool training_ = false, paused_ = false;
  int close_answer_ = -1;
  int inspected_run_ = -1;
  qint64 last_step_ = 0;
  QMap<int, RunDescriptor> runs_;
  QMap<int, RunStatus> statuses_;
  QMap<int, InspectionSnapshot> snapshots_;  // latest per run
  SnapshotHistory history_;                  // every run's records by step, thinned
  QSlider* step_slider_ = nullptr;
  QLabel* step_label_ = nullptr;
  QPushButton* play_button_ = nullptr;
  QTimer* play_timer_ = nullptr;
  RemParameterView* rem_view_ = nullptr;
  std::vector<qint64> scrub_steps_;  // the slider's index → step
  bool follow_latest_ = true;        // false once the user moves the slider back
  qint64 shown_step_ = -1;
  qint64 rem_view_step_ = -1;        // newest step drawn in rem_view_
  HotParameters hot_;
  SweepPanel* sweep_panel_ = nullptr;
};

}  // namespace rsalab
