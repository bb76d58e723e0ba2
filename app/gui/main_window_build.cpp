// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, the window's parts: the training toolbar and its actions, the docks (run setup,
// hyperparameters, runs, loss curves, log) with the View menu, and the sample-efficiency and
// regime-map tabs with the Sweep menu.
#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QToolBar>

#include "app/gui/main_window.h"
#include "app/gui/sweep_folder_watcher.h"
#include "app/gui/sweep_panel.h"
#include "app/gui/training_controller.h"
#include "engine/core/config/task_options.h"
#include "engine/core/registry/model_registry.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/regime_map_view.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"

namespace rsalab {

namespace {

QList<QPair<QString, QString>> taskList() {
  QList<QPair<QString, QString>> out;
  for (const auto& name : taskNames()) {
    if (readsCsvPath(name)) continue;  // needs a file: opened by drag and drop / the CLI
    out.push_back({QString::fromStdString(name), QString::fromStdString(taskDescription(name))});
  }
  return out;
}

}  // namespace

void MainWindow::buildActions() {
  auto* toolbar = addToolBar("Training");
  toolbar->setObjectName("TrainingToolBar");
  toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  auto add = [this, toolbar](QStyle::StandardPixmap icon, const QString& text, const char* name,
                             const QKeySequence& key, const QString& tip, auto slot) {
    QAction* a = toolbar->addAction(style()->standardIcon(icon), text, this, slot);
    a->setObjectName(name);
    a->setShortcut(key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    a->setToolTip(tip);
    return a;
  };
  start_action_ = add(QStyle::SP_MediaPlay, "Start", "StartAction", QKeySequence(Qt::Key_Space),
                      "Start / pause / resume (Space)", [this] { togglePause(); });
  step_action_ =
      add(QStyle::SP_MediaSkipForward, "Step", "StepAction", QKeySequence(Qt::CTRL | Qt::Key_Space),
          "One step of every run, then pause (Ctrl+Space)", [this] {
            if (!training_) startTraining();
            controller_->stepOnce();
            setTrainingState(true, true);
          });
  stop_action_ = add(QStyle::SP_MediaStop, "Stop", "StopAction", QKeySequence(Qt::Key_Escape),
                     "Stop every run (Esc)", [this] { controller_->stop(); });
  reset_action_ = add(QStyle::SP_BrowserReload, "Reset", "ResetAction",
                      QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                      "Drop all runs (Ctrl+Shift+R)", [this] { resetRuns(); });
  // Divergence: the run pauses as "diverged"; this rolls it back to its last good state.
  restore_action_ = new QAction("Restore last good checkpoint", this);
  connect(restore_action_, &QAction::triggered, this, [this] {
    controller_->restoreLastGood(-1);
    setTrainingState(true, false);
    appendLog("Restoring every diverged run to its last good state.");
  });
  restore_action_->setObjectName("RestoreAction");
  restore_action_->setToolTip("Roll diverged runs back to their last good state and resume");
  restore_action_->setEnabled(false);
}

void MainWindow::buildDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* w,
                     Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  setup_ = new RunSetupPanel(taskList(), this);
  setup_->setObjectName("RunSetupPanel");
  connect(setup_, &RunSetupPanel::startRequested, this, [this] {
    if (!training_) startTraining();
  });
  connect(setup_, &RunSetupPanel::setupChanged, this, [this] {
    applyTaskKindDefaults(QString::fromStdString(setup_->setup().config.task.name));
    if (training_)
      appendLog(
          "Run setup changed: it applies at the next Start (the running session is unchanged).");
    setWindowModified(true);
  });
  auto* setup_dock = dock("Run setup", "RunSetupDock", setup_, Qt::LeftDockWidgetArea);

  hyper_ = new HyperParameterForm(formHyperParameters(), this);
  hyper_->setObjectName("HyperParameterForm");
  controller_->resetHot(defaultLaunchConfig().trainer);
  connect(hyper_, &HyperParameterForm::hotChanged, this, &MainWindow::onHotChanged);
  connect(hyper_, &HyperParameterForm::applyAndRestart, this, [this](const QMap<QString, double>&) {
    appendLog("Applying pending settings: restarting every run.");
    controller_->stop();
    startTraining();
  });
  auto* hyper_dock = dock("Hyperparameters", "HyperParametersDock", hyper_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(setup_dock, hyper_dock);
  setup_dock->raise();

  runs_table_ = new RunsTable(this);
  runs_table_->setObjectName("RunsTable");
  runs_table_->setStore(runs_);
  connect(runs_table_, &RunsTable::runSelected, this, &MainWindow::inspectRun);
  auto* runs_dock = dock("Runs", "RunsDock", runs_table_, Qt::BottomDockWidgetArea);

  curves_ = new LossCurveView(this);  // has its own x-axis, smoothing, log-y and fit controls
  curves_->setObjectName("LossCurveView");
  curves_->setStore(runs_);  // colour and visibility: the store's, shared with the runs table
  curves_->setSmoothing(0.9);
  curves_->setLogY(true);  // losses part by factors; the Bayes floor stays readable near the curves
  auto* curves_dock = dock("Loss curves", "LossCurvesDock", curves_, Qt::BottomDockWidgetArea);

  log_ = new QPlainTextEdit(this);
  log_->setObjectName("Log");
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  auto* log_dock = dock("Log", "LogDock", log_, Qt::BottomDockWidgetArea);
  splitDockWidget(runs_dock, curves_dock, Qt::Horizontal);
  tabifyDockWidget(runs_dock, log_dock);
  runs_dock->raise();

  resizeDocks({runs_dock, curves_dock}, {620, 780}, Qt::Horizontal);
  resizeDocks({runs_dock}, {330}, Qt::Vertical);
  auto* view = menuBar()->addMenu("&View");
  view->setObjectName("ViewMenu");
  for (auto* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction("Reset layout", this, [this] {
    focus_->leave();
    restoreState(default_layout_, kLayoutVersion);
  });
  view->addSeparator();
  view->addAction(focus_->action());
  if (auto* toolbar = findChild<QToolBar*>("TrainingToolBar")) {
    toolbar->addSeparator();
    toolbar->addAction(focus_->action());
  }
}

// ---- Sample-efficiency sweeps: the tabs, the Sweep menu, opening a sweep folder.

void MainWindow::buildSweepTab() {
  sweep_panel_ = new SweepPanel(tabs_);
  sweep_panel_->setObjectName("SweepPanel");
  tabs_->addTab(sweep_panel_, "Sample efficiency");
  tabs_->addTab(sweep_panel_->regimeView(), "Regime map");
  focus_->addFigureTab(sweep_panel_);
  focus_->addFigureTab(sweep_panel_->regimeView());
  sweep_panel_->setBaseConfigProvider([this] { return currentConfig(); });
}

// ---- The jobs: each gets the panels it acts on, and talks back through signals.

void MainWindow::buildJobs() {
  csv_ = new CsvImporter(setup_, this);
  SessionViews sessions;
  sessions.window = this;
  sessions.runs = runs_;
  sessions.curves = curves_;
  sessions.inspector = inspector_;
  sessions.sweeps = sweep_panel_;
  sessions.setup = setup_;
  sessions.hyper = hyper_;
  sessions.csv = csv_;
  sessions.focus = focus_;
  sessions.training = controller_;
  sessions_ = new SessionController(sessions, this);
  settings_ = new WindowSettings(this, sessions_, csv_, focus_, curves_);
  presets_ = new PresetController({runs_, inspector_, focus_, sweep_panel_}, this);
  presets_->buildGenerationTab();
  presets_->buildPaperTableTab();
}

void MainWindow::wireJobs() {
  const auto status = [this](const QString& text, int timeout_ms) { showStatus(text, timeout_ms); };
  connect(csv_, &CsvImporter::log, this, &MainWindow::appendLog);
  connect(csv_, &CsvImporter::status, this, status);
  connect(csv_, &CsvImporter::taskSelected, this, &MainWindow::applyTaskKindDefaults);
  connect(csv_, &CsvImporter::openRequested, this,
          [this](const QString& path) { sessions_->open(path); });
  connect(sessions_, &SessionController::log, this, &MainWindow::appendLog);
  connect(sessions_, &SessionController::status, this, status);
  connect(sessions_, &SessionController::saved, this, &MainWindow::sessionSaved);
  connect(settings_, &WindowSettings::status, this, status);
  connect(settings_, &WindowSettings::openSweepFolderRequested, this,
          [this](const QString& dir) { openSweepFolder(dir); });
  connect(presets_, &PresetController::log, this, &MainWindow::appendLog);
  connect(presets_, &PresetController::status, this, status);
  connect(presets_, &PresetController::busyChanged, this, &MainWindow::updateStateLabel);
  connect(presets_, &PresetController::quietRequested, this, [this] {
    if (training_) resetRuns();
  });
  connect(presets_, &PresetController::trainRequested, this, &MainWindow::trainPreset);

  connect(sweep_panel_->regimeView(), &RegimeMapView::emptyActionClicked, this,
          [this] { presets_->apply("figure1"); });
  connect(sweep_panel_, &SweepPanel::log, this, &MainWindow::appendLog);
  connect(sweep_panel_, &SweepPanel::runActivated, sessions_, &SessionController::showSweepRun);
  connect(sweep_panel_->runner(), &SweepRunner::rowFinished, this, &MainWindow::updateStateLabel);
  connect(sweep_panel_, &SweepPanel::sweepFinished, this, [this](bool cancelled) {
    updateStateLabel();
    presets_->sweepFinished(cancelled);
  });
  // Opened results: the regime map (or sample efficiency), focused.
  connect(sweep_panel_, &SweepPanel::resultsOpened, this, [this] {
    auto* regime = sweep_panel_->regimeView();
    focus_->show(regime->pointCount() > 0 ? static_cast<QWidget*>(regime)
                                          : static_cast<QWidget*>(sweep_panel_));
  });
  connect(sweep_panel_->folderWatcher(), &SweepFolderWatcher::statusChanged, this,
          [this](const QString& line) { showStatus(line); });
  auto* menu = menuBar()->addMenu("&Sweep");
  menu->addAction("&New sample-efficiency sweep…", this, [this] {
    tabs_->setCurrentWidget(sweep_panel_);
    sweep_panel_->openDialog();
  });
  menu->addAction("&Cancel sweep", sweep_panel_, &SweepPanel::cancelSweep);
  presets_->buildMenu(menuBar()->addMenu("&Presets"));
}

bool MainWindow::openSweepFolder(const QString& dir, QString* error) {
  QString message;
  tabs_->setCurrentWidget(sweep_panel_);
  if (sweep_panel_->watchFolder(dir, &message)) return true;
  if (error)
    *error = message;
  else
    QMessageBox::warning(this, "Cannot open the sweep folder", message);
  appendLog("Cannot open sweep folder " + dir + ": " + message);
  return false;
}

}  // namespace rsalab
