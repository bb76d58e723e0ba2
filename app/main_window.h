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
#include "engine/session/session_bundle.h"
#include "engine/tasks/task_options.h"
#include "widgets/preferences_dialog.h"
#include "widgets/snapshot_history.h"

class QCustomPlot;
class QDockWidget;
class QMenu;
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
struct RunRow;
class LossCurveView;
class HeatMapGrid;
class RemParameterView;
class AttentionView;
class GateView;
class CsvImportDialog;
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
  HeatMapGrid* inspectorGrid() const;  // the attention view's grid
  AttentionView* attentionView() const { return attention_view_; }
  GateView* gateView() const { return gate_view_; }
  QTabWidget* tabs() const { return tabs_; }
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
  // Task settings the run setup panel has no field for (teacher terms, series poles); the panel's
  // task name and length still apply on top. For scripted runs (app_main's flags).
  void setTaskDefaults(const TaskOptions& task) { task_defaults_ = task; }
  // Inspects run `run` in every view (what selecting it in the runs table does).
  void inspectRun(int run);
  QAction* restoreAction() const { return restore_action_; }  // enabled while a run is diverged
  TrainingController* controller() const { return controller_; }
  SweepPanel* sweepPanel() const { return sweep_panel_; }  // the "Sample efficiency" tab
  QTabWidget* centralTabs() const { return tabs_; }
  // Shows a finished sweep run like a session run: its curves in the loss dock and, when its
  // inspection record was kept, its maps in the inspector (switches to that tab).
  void openSweepRun(const SweepRow& row);
  // Answer the "stop and quit?" question without a dialog (tests): 1 quit, 0 cancel, -1 ask.
  void setCloseAnswerForTests(int answer) { close_answer_ = answer; }

  // ---- Sessions, settings, shortcuts and CSV import (implemented in main_window_session.cpp).
  static constexpr int kLayoutVersion = 2;  // saveState/restoreState version of the dock layout
  static constexpr int kSnapshotsPerRunSaved = 24;  // inspection snapshots kept per run in a bundle
  // Replaces the picture with a saved session (runs table, curves, inspector, layout); offline:
  // nothing trains until Start. False (and a message naming the file and key) on a bad bundle.
  bool openSession(const QString& path);
  // Saves asynchronously on the worker thread (checkpoints of live runs included); the outcome
  // arrives as sessionSaved(). An empty path means the current session path.
  void saveSessionTo(const QString& path);
  QString sessionPath() const { return session_path_; }
  QStringList recentSessions() const;
  SessionBundle sessionBundle() const;  // what a save writes, minus checkpoints
  // The open session's sweep (sweep.json from `rsalab-cli sweep --session` or the app): raw JSON
  // and its rows; empty when the session is not a sweep. See also sessionSweepLoaded().
  const QByteArray& sessionSweepJson() const { return sweep_json_; }
  const std::vector<SessionSweepRow>& sessionSweepRows() const { return sweep_rows_; }
  // Parses a CSV (torch-free reader) and opens the import preview (non-modal; accepting it makes
  // the file the run setup's "csv" task). nullptr, with the reader's message logged, on error.
  CsvImportDialog* importCsv(const QString& path);
  QString csvTaskPath() const { return csv_path_; }
  // Every action bound to a QKeySequence::StandardKey (Open, Save, Save As, Quit, Copy, Zoom in,
  // Zoom out, Full screen, Preferences), and every action with a shortcut (Help → Keyboard
  // shortcuts).
  QAction* standardAction(QKeySequence::StandardKey key) const {
    return standard_actions_.value(key);
  }
  QList<QAction*> shortcutActions() const;
  Preferences preferences() const;
  void setPreferences(const Preferences& preferences);  // stores and applies

 signals:
  /// A session save finished; `error` is empty on success. Consumed by tests and the status bar.
  void sessionSaved(const QString& path, const QString& error);
  /// An opened session holds a sweep.json; for the sample-efficiency view (wired by the lead).
  void sessionSweepLoaded(const QByteArray& sweep_json);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

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
  // The runs table's row for a run (live status or one read from a session bundle).
  static RunRow runRow(const RunDescriptor& descriptor, const RunStatus& status);
  void onSnapshot(const InspectionSnapshot& snapshot);
  void onHotChanged(const QString& name, double value);
  void showSnapshot(int run);
  void showRecord(int run, qint64 step, const InspectionRecord& rec);
  void buildScrubber(QWidget* parent, QVBoxLayout* layout);
  void setInspectedRun(int run);
  void applyGroundTruth();  // the inspected run's task truth into the REM view
  void refreshScrubber();   // slider range from the history; follows the newest step if asked
  void onScrubbed(int index);
  void rebuildRemView();  // REM / StarSaber curves of the inspected run from the history
  void appendLog(const QString& line);
  void updateStatusBar();
  // Session support (main_window_session.cpp).
  void buildSessionActions();
  void restoreSettings();
  void storeSettings();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void autosave();
  void recordMetrics(const MetricsBatch& batch);
  void noteSessionStart(const RunConfig& config, const QStringList& models, int seeds);
  void applyBundleToPanels(const SessionBundle& bundle);
  void zoomFocusedPlot(double factor);
  void copyFocused();
  QCustomPlot* focusedPlot() const;
  void buildSweepTab();  // the "Sample efficiency" tab and Run → New sweep…

  TrainingController* controller_;
  RunSetupPanel* setup_;
  HyperParameterForm* hyper_;
  RunsTable* runs_table_;
  LossCurveView* curves_;
  QPlainTextEdit* log_;
  QTabWidget* tabs_;
  AttentionView* attention_view_ = nullptr;
  GateView* gate_view_ = nullptr;
  QProgressBar* progress_;
  QLabel *eta_label_, *speed_label_, *device_label_, *state_label_;
  QAction *start_action_, *step_action_, *stop_action_, *reset_action_;
  QAction* restore_action_ = nullptr;
  QByteArray default_layout_;
  bool training_ = false, paused_ = false;
  int close_answer_ = -1;
  int inspected_run_ = -1;
  qint64 last_step_ = 0;
  QMap<int, RunDescriptor> runs_;
  QMap<int, RunStatus> statuses_;
  QMap<int, InspectionSnapshot> snapshots_;    // latest per run
  QMap<QPair<int, int>, SampleInput> inputs_;  // (run, sample) → that sample's input
  SnapshotHistory history_;                    // every run's records by step, thinned
  QSlider* step_slider_ = nullptr;
  QLabel* step_label_ = nullptr;
  QPushButton* play_button_ = nullptr;
  QTimer* play_timer_ = nullptr;
  RemParameterView* rem_view_ = nullptr;
  std::vector<qint64> scrub_steps_;  // the slider's index → step
  bool follow_latest_ = true;        // false once the user moves the slider back
  qint64 shown_step_ = -1;
  qint64 rem_view_step_ = -1;  // newest step drawn in rem_view_
  HotParameters hot_;
  TaskOptions task_defaults_;
  // Session state (main_window_session.cpp).
  QMenu* file_menu_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMap<QKeySequence::StandardKey, QAction*> standard_actions_;
  QString session_path_;
  QString session_created_;
  RunConfig session_config_;
  QStringList session_models_;
  int session_seeds_ = 1;
  bool offline_ = false;  // the runs shown came from a bundle, not from the worker
  bool saving_ = false;
  QMap<int, QVector<StepMetrics>> recorded_steps_;  // every point received, per run
  QMap<int, QVector<EvalMetrics>> recorded_evals_;
  QMap<int, QString> checkpoint_files_;  // offline runs: checkpoint inside the bundle
  QByteArray sweep_json_;
  std::vector<SessionSweepRow> sweep_rows_;
  QTimer* autosave_timer_ = nullptr;
  QString csv_path_;
  int csv_horizon_ = 1;
  SweepPanel* sweep_panel_ = nullptr;
};

}  // namespace rsalab
