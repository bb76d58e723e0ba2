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
#include <vector>

#include "core/config/task_options.h"
#include "core/session/session_bundle.h"
#include "core/session/session_recorder.h"
#include "gui/run_messages.h"
#include "widgets/inspector_panel.h"
#include "widgets/preferences_dialog.h"

class QCustomPlot;
class QDockWidget;
class QMenu;
class QTimer;

namespace rsalab {

class TrainingController;
class RunSetupPanel;
class HyperParameterForm;
class RunsTable;
struct RunRow;
class LossCurveView;
class CsvImportDialog;
class SweepPanel;
struct SweepRow;
struct Preset;
struct ClaimVerdict;
class ElidedLabel;
class GenerationTimeView;
class GenerationProbeRunner;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Child object names (for scripts and tests): the panels RunSetupPanel, HyperParameterForm,
  // RunsTable, LossCurveView, InspectorPanel (see widgets/inspector_panel.h for its children),
  // SweepPanel, RegimeMapView, Log, TrainingController, StatusMessage (the status bar's text);
  // the actions StartAction, StepAction, StopAction, ResetAction, RestoreAction, FocusAction.
  bool isTraining() const { return training_; }
  // Task settings the run setup panel has no field for (teacher terms, series poles); the panel's
  // task name and length still apply on top. For scripted runs (app_main's flags).
  void setTaskDefaults(const TaskOptions& task) { base_config_.task = task; }
  // A preset of core/registry/presets.h: its run becomes the base of the forms (while the run setup
  // keeps the preset's task), its models are selected, training starts, its inspector tab is
  // shown and its claim is said in the status bar. A sweep preset starts its sweep instead; a
  // preset without models (linear-rnn) judges its claim at once. When what it ran has finished,
  // its measured verdict (core/verdicts/claims.h) goes to the status bar and the log. False
  // (logged) for an unknown name.
  bool applyPreset(const QString& name);
  // The "Linear attention = RNN" tab (the linear-attention preset's measurement, drawn live).
  GenerationTimeView* generationView() const { return generation_view_; }
  // Starts that measurement (main_window_generation.cpp) with the width, heads and layers of
  // `config.model`, up to T = config.task.length; stops training first. False if one is running.
  bool measureGeneration(const RunConfig& config);
  bool isMeasuringGeneration() const;
  // The last preset's verdict lines ("holds: …"); empty until one was judged.
  const QStringList& lastVerdicts() const { return last_verdicts_; }
  // Switching between a real series (csv or bundled) and the other tasks moves the setup and
  // hyperparameter forms to that kind's defaults (realSeriesDefaults or defaultRunConfig).
  void applyTaskKindDefaults(const QString& task);
  // Inspects run `run` in every view (what selecting it in the runs table does).
  void inspectRun(int run);
  // Shows a finished sweep run like a session run: its curves in the loss dock and, when its
  // inspection record was kept, its maps in the inspector (switches to that tab).
  void openSweepRun(const SweepRow& row);
  // Shows a sweep folder (plan.json + cells/) in the Sample efficiency tab, filling in as its cells
  // are written (File → Open sweep folder…, `rsalab --sweep-dir`). On a bad folder: false, the
  // reader's message in `error` when given, else in a message box.
  bool openSweepFolder(const QString& dir, QString* error = nullptr);
  // Focus mode (View → Focus on figure, FocusAction; on by itself when sweep results are opened):
  // true while it hides the docks, i.e. while it is on and a figure tab is shown.
  bool figureFocused() const { return focused_; }
  // The status bar's message, elided to its room (whole in its tooltip); cleared after
  // timeout_ms when > 0.
  void showStatus(const QString& text, int timeout_ms = 0);
  QString statusText() const;
  // Answer the "stop and quit?" question without a dialog (tests, scripts): 1 quit, 0 cancel,
  // -1 ask.
  void setCloseAnswerForTests(int answer) { close_answer_ = answer; }

  // ---- Sessions, settings, shortcuts and CSV import (main_window_session.cpp and
  // main_window_settings.cpp).
  static constexpr int kLayoutVersion = 2;  // saveState/restoreState version of the dock layout
  static constexpr int kSnapshotsPerRunSaved = 24;  // inspection snapshots kept per run in a bundle
  // Replaces the picture with a saved session (runs table, curves, inspector, layout); offline:
  // nothing trains until Start. On a bad bundle: false, the picture unchanged, the reader's
  // message (naming the file and key) in `error` when given, else in a message box and the log.
  bool openSession(const QString& path, QString* error = nullptr);
  // Saves asynchronously on the worker thread (checkpoints of live runs included); the outcome
  // arrives as sessionSaved(). An empty path means the current session path.
  void saveSessionTo(const QString& path);
  QString sessionPath() const { return session_path_; }
  QStringList recentSessions() const;
  SessionBundle sessionBundle() const;  // what a save writes, minus checkpoints
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
  /// An opened session holds a sweep.json (its raw JSON), for views of the sweep.
  void sessionSweepLoaded(const QByteArray& sweep_json);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // Window parts (main_window_build.cpp).
  void buildActions();
  void buildDocks();
  void buildStatusBar();
  void buildSweepTab();       // the "Sample efficiency" tab and Run → New sweep…
  void buildPresetMenu();     // Presets: one entry per row of presets()
  void buildGenerationTab();  // "Linear attention = RNN" (main_window_generation.cpp)
  bool startPresetSweep(const Preset& preset);
  void judgePreset();  // the active preset's verdict, once its runs or sweep have finished
  void showVerdicts(const std::vector<ClaimVerdict>& verdicts);
  // Focus mode and the status message (main_window_focus.cpp).
  QAction* buildFocusAction();
  bool isFigureTab(const QWidget* tab) const;
  void applyFigureFocus();  // hides or restores the docks for the action's state and the tab
  void leaveFigureFocus();
  QByteArray layoutState() const;  // what settings and sessions save: the layout before focus
  void showSweepFigures();         // opened results: the regime map (or sample efficiency), focused
  // Training (main_window.cpp).
  RunConfig currentConfig() const;
  void startTraining();
  void togglePause();
  void resetRuns();
  void setTrainingState(bool training, bool paused);
  void updateStateLabel();  // idle, training, paused, "sweep 12/225" or measuring
  void onRunsCreated(const QVector<RunDescriptor>& runs);
  void onMetrics(const MetricsBatch& batch);
  void onStatus(const RunStatus& status);
  // The runs table's row for a run (live status or one read from a session bundle).
  static RunRow runRow(const RunDescriptor& descriptor, const RunStatus& status);
  static InspectedRunInfo inspectedRunInfo(const RunDescriptor& descriptor);
  void onSnapshot(const InspectionSnapshot& snapshot);
  void onHotChanged(const QString& name, double value);
  void appendLog(const QString& line);
  void updateStatusBar();
  // Sessions (main_window_session.cpp).
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void autosave();
  void showBundle(const SessionBundle& bundle);  // the picture of an opened bundle
  void applyBundleToPanels(const SessionBundle& bundle);
  // Menus, settings, copy/zoom and CSV import (main_window_settings.cpp).
  void buildSessionActions();
  void restoreSettings();
  void storeSettings();
  void zoomFocusedPlot(double factor);
  void copyFocused();
  QCustomPlot* focusedPlot() const;

  TrainingController* controller_;
  RunSetupPanel* setup_;
  HyperParameterForm* hyper_;
  RunsTable* runs_table_;
  LossCurveView* curves_;
  QPlainTextEdit* log_;
  InspectorPanel* inspector_;
  QTabWidget* tabs_;  // the inspector panel's tabs, with the sample-efficiency tab added
  QProgressBar* progress_;
  QLabel *eta_label_, *speed_label_, *device_label_, *state_label_;
  QAction *start_action_, *step_action_, *stop_action_, *reset_action_;
  QAction* restore_action_ = nullptr;
  QByteArray default_layout_;
  bool training_ = false, paused_ = false;
  int close_answer_ = -1;
  qint64 last_step_ = 0;
  QMap<int, RunDescriptor> runs_;
  QMap<int, RunStatus> statuses_;
  HotParameters hot_;
  // What the forms overlay (currentConfig): defaultLaunchConfig(), a preset's run, or scripted task
  // settings; it applies while the run setup's task is its task.
  RunConfig base_config_ = defaultLaunchConfig();
  QString preset_status_;  // the running preset's claim, first in the status bar
  QString active_preset_;  // a preset whose verdict is still to come (empty: none)
  QStringList last_verdicts_;
  GenerationTimeView* generation_view_ = nullptr;
  GenerationProbeRunner* generation_runner_ = nullptr;
  RunConfig generation_config_;  // the last measurement's (Measure again repeats it)
  // Session state (main_window_session.cpp). The recorder holds what a save writes: the config,
  // the runs with every metric point received, checkpoint files of offline runs, the sweep table.
  SessionRecorder recorder_;
  QMenu* file_menu_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMap<QKeySequence::StandardKey, QAction*> standard_actions_;
  QString session_path_;
  bool offline_ = false;  // the runs shown came from a bundle, not from the worker
  bool saving_ = false;
  QTimer* autosave_timer_ = nullptr;
  QString csv_path_;
  bool real_series_defaults_ = false;  // the forms hold realSeriesDefaults' values
  int csv_horizon_ = 1;
  SweepPanel* sweep_panel_ = nullptr;
  QAction* focus_action_ = nullptr;
  QByteArray pre_focus_layout_;  // restored when focus mode ends
  bool focused_ = false;
  ElidedLabel* message_label_ = nullptr;
  QTimer* message_timer_ = nullptr;
};

}  // namespace rsalab
