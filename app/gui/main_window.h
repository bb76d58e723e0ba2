// SPDX-License-Identifier: GPL-3.0-or-later
// RSA Lab's main window: docks (run setup, hyperparameters, runs, loss curves, log) around a
// central tab area for the inspector views. It builds the panels and wires their signals; the
// jobs live elsewhere: training in the TrainingController's thread, the runs in a RunStore,
// presets in the PresetController, sessions in the SessionController, menus and settings in
// WindowSettings, CSV import in the CsvImporter, focus mode in FigureFocus, the status bar in
// WindowStatus. Each helper gets the store and panels it acts on when it is built and talks
// back through its signals (log, status, requests); none reaches into this class.
#pragma once

#include <QMainWindow>
#include <QPlainTextEdit>
#include <QTabWidget>

#include "app/gui/csv_importer.h"
#include "app/gui/figure_focus.h"
#include "app/gui/preset_controller.h"
#include "app/gui/run_messages.h"
#include "app/gui/session_controller.h"
#include "app/gui/window_settings.h"
#include "engine/core/config/task_options.h"
#include "widgets/run_store.h"

namespace rsalab {

class TrainingController;
class RunSetupPanel;
class HyperParameterForm;
class InspectorPanel;
class LossCurveView;
class RunsTable;
class SweepPanel;
class WindowStatus;

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
  // A real series (csv or bundled) task moves the forms to realSeriesDefaults, another task back.
  void applyTaskKindDefaults(const QString& task);
  void inspectRun(const RunId& run);  // shows `run` in every view (a runs table selection)
  // The status bar's message, elided to its room (whole in its tooltip); cleared after
  // timeout_ms when > 0.
  void showStatus(const QString& text, int timeout_ms = 0);
  QString statusText() const;
  // Answer the "stop and quit?" question without a dialog (tests, scripts): 1 quit, 0 cancel,
  // -1 ask.
  void setCloseAnswerForTests(int answer) { close_answer_ = answer; }

  // The jobs, for scripts and tests (their headers say what each does).
  PresetController* presets() const { return presets_; }
  SessionController* sessions() const { return sessions_; }
  WindowSettings* settings() const { return settings_; }
  CsvImporter* csv() const { return csv_; }
  FigureFocus* focus() const { return focus_; }
  RunStore* runStore() const { return runs_; }
  // Shows a sweep folder (plan.json + cells/) in the Sample efficiency tab, filling in as its cells
  // are written (File → Open sweep folder…, `rsalab --sweep-dir`). On a bad folder: false, the
  // reader's message in `error` when given, else in a message box.
  bool openSweepFolder(const QString& dir, QString* error = nullptr);
  static constexpr int kLayoutVersion = 2;  // saveState/restoreState version of the dock layout

 signals:
  /// A session save finished; `error` is empty on success. Consumed by tests and the status bar.
  void sessionSaved(const QString& path, const QString& error);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  // Window parts (main_window_build.cpp).
  void buildActions();
  void buildDocks();
  void buildSweepTab();  // the "Sample efficiency" and "Regime map" tabs
  void buildJobs();      // the helpers, given the panels they act on
  void wireJobs();       // their signals and the Sweep menu
  // Training (main_window.cpp).
  RunConfig currentConfig() const;
  void startTraining();
  void togglePause();
  void resetRuns();
  void setTrainingState(bool training, bool paused);
  void updateStateLabel();  // idle, training, paused, "sweep 12/225" or measuring
  void onRunsCreated(const QVector<Run>& runs);
  void onRunsUpdated(const QVector<Run>& runs);  // more references (the anchors)
  void onMetrics(const MetricsBatch& batch);
  void onStatus(int run, const RunStatus& now);
  // A preset's runs: its config becomes the base of the forms, its models train.
  void trainPreset(const RunConfig& config, const QStringList& models);
  void onHotChanged(const QString& name, double value);
  void appendLog(const QString& line);

  TrainingController* controller_;
  RunSetupPanel* setup_;
  HyperParameterForm* hyper_;
  RunsTable* runs_table_;
  LossCurveView* curves_;
  QPlainTextEdit* log_;
  InspectorPanel* inspector_;
  QTabWidget* tabs_;  // the inspector panel's tabs, with the sweep and generation tabs added
  SweepPanel* sweep_panel_ = nullptr;
  QAction *start_action_, *step_action_, *stop_action_, *reset_action_, *restore_action_;
  QByteArray default_layout_;
  bool training_ = false, paused_ = false;
  // The forms hold: 0 the defaults, 1 realSeriesDefaults', 2 longHorizonDefaults' values.
  int task_kind_ = 0;
  int close_answer_ = -1;
  qint64 last_step_ = 0;
  RunStore* runs_;
  // What the forms overlay (currentConfig): defaultLaunchConfig(), a preset's run, or scripted task
  // settings; it applies while the run setup's task is its task.
  RunConfig base_config_ = defaultLaunchConfig();
  WindowStatus* status_ = nullptr;
  FigureFocus* focus_ = nullptr;
  PresetController* presets_ = nullptr;
  SessionController* sessions_ = nullptr;
  WindowSettings* settings_ = nullptr;
  CsvImporter* csv_ = nullptr;
};

}  // namespace rsalab
