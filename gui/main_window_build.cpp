// MainWindow, the window's parts: the training toolbar and Run menu, the docks (run setup,
// hyperparameters, runs, loss curves, log), the status bar, and the sample-efficiency and
// regime-map tabs with opening a clicked sweep run.
#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>

#include "core/config/task_options.h"
#include "core/registry/model_registry.h"
#include "core/registry/presets.h"
#include "core/verdicts/claims.h"
#include "gui/main_window.h"
#include "gui/sweep_folder_watcher.h"
#include "gui/sweep_panel.h"
#include "gui/training_controller.h"
#include "widgets/elided_label.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/regime_map_view.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {

QList<QPair<QString, QString>> taskList() {
  QList<QPair<QString, QString>> out;
  for (const auto& name : taskNames()) {
    if (name == "csv") continue;  // needs a file: opened by drag and drop / the CLI
    out.push_back({QString::fromStdString(name), QString::fromStdString(taskDescription(name))});
  }
  return out;
}

}  // namespace

void MainWindow::buildActions() {
  auto* toolbar = addToolBar("Training");
  toolbar->setObjectName("TrainingToolBar");
  toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  start_action_ = toolbar->addAction(style()->standardIcon(QStyle::SP_MediaPlay), "Start", this,
                                     &MainWindow::togglePause);
  start_action_->setShortcut(QKeySequence(Qt::Key_Space));
  start_action_->setToolTip("Start / pause / resume (Space)");
  step_action_ =
      toolbar->addAction(style()->standardIcon(QStyle::SP_MediaSkipForward), "Step", this, [this] {
        if (!training_) startTraining();
        controller_->stepOnce();
        setTrainingState(true, true);
      });
  step_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Space));
  step_action_->setToolTip("One step of every run, then pause (Ctrl+Space)");
  stop_action_ = toolbar->addAction(style()->standardIcon(QStyle::SP_MediaStop), "Stop", this,
                                    [this] { controller_->stop(); });
  stop_action_->setShortcut(QKeySequence(Qt::Key_Escape));
  stop_action_->setToolTip("Stop every run (Esc)");
  reset_action_ = toolbar->addAction(style()->standardIcon(QStyle::SP_BrowserReload), "Reset", this,
                                     &MainWindow::resetRuns);
  reset_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  reset_action_->setToolTip("Drop all runs (Ctrl+Shift+R)");
  start_action_->setObjectName("StartAction");
  step_action_->setObjectName("StepAction");
  stop_action_->setObjectName("StopAction");
  reset_action_->setObjectName("ResetAction");
  for (auto* a : {start_action_, step_action_, stop_action_, reset_action_}) {
    a->setShortcutContext(Qt::ApplicationShortcut);
  }
  file_menu_ = menuBar()->addMenu("&File");  // filled by buildSessionActions()
  auto* run = menuBar()->addMenu("&Run");
  run->addActions({start_action_, step_action_, stop_action_, reset_action_});
  // Divergence: the run pauses as "diverged"; this rolls it back to its last good state.
  restore_action_ = run->addAction("Restore last good checkpoint", this, [this] {
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
  hot_ = defaultLaunchConfig().trainer;
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
  connect(runs_table_, &RunsTable::visibilityToggled, this,
          [this](int id, bool visible) { curves_->setRunVisible(id, visible); });
  connect(runs_table_, &RunsTable::runSelected, this, &MainWindow::inspectRun);
  auto* runs_dock = dock("Runs", "RunsDock", runs_table_, Qt::BottomDockWidgetArea);

  curves_ = new LossCurveView(this);  // has its own x-axis, smoothing, log-y and fit controls
  curves_->setObjectName("LossCurveView");
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
  for (auto* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction("Reset layout", this, [this] {
    leaveFigureFocus();
    restoreState(default_layout_, kLayoutVersion);
  });
  view->addSeparator();
  view->addAction(buildFocusAction());
  if (auto* toolbar = findChild<QToolBar*>("TrainingToolBar")) {
    toolbar->addSeparator();
    toolbar->addAction(focus_action_);
  }
}

void MainWindow::buildStatusBar() {
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setFormat("%p%");
  eta_label_ = new QLabel("ETA –", this);
  speed_label_ = new QLabel("– steps/s", this);
  device_label_ = new QLabel("device: CPU", this);
  state_label_ = new QLabel("idle", this);
  message_label_ = new ElidedLabel(QString(), this);
  message_label_->setObjectName("StatusMessage");
  message_timer_ = new QTimer(this);
  message_timer_->setSingleShot(true);
  connect(message_timer_, &QTimer::timeout, this, [this] { message_label_->setText({}); });
  statusBar()->addWidget(state_label_);
  statusBar()->addWidget(message_label_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(eta_label_);
  statusBar()->addPermanentWidget(speed_label_);
  statusBar()->addPermanentWidget(device_label_);
}

// ---- Sample-efficiency sweeps: the tab, its menu entry, and opening a clicked run.

void MainWindow::buildSweepTab() {
  sweep_panel_ = new SweepPanel(tabs_);
  sweep_panel_->setObjectName("SweepPanel");
  tabs_->addTab(sweep_panel_, "Sample efficiency");
  tabs_->addTab(sweep_panel_->regimeView(), "Regime map");
  connect(sweep_panel_->regimeView(), &RegimeMapView::emptyActionClicked, this,
          [this] { applyPreset("figure1"); });
  sweep_panel_->setBaseConfigProvider([this] { return currentConfig(); });
  connect(sweep_panel_, &SweepPanel::log, this, &MainWindow::appendLog);
  connect(sweep_panel_, &SweepPanel::runActivated, this, &MainWindow::openSweepRun);
  connect(sweep_panel_->runner(), &SweepRunner::rowFinished, this, &MainWindow::updateStateLabel);
  connect(sweep_panel_, &SweepPanel::sweepFinished, this, [this](bool cancelled) {
    updateStateLabel();
    if (cancelled)
      active_preset_.clear();  // a cut-short sweep judges nothing
    else
      judgePreset();
  });
  connect(sweep_panel_, &SweepPanel::resultsOpened, this, &MainWindow::showSweepFigures);
  connect(sweep_panel_->folderWatcher(), &SweepFolderWatcher::statusChanged, this,
          [this](const QString& line) { showStatus(line); });
  auto* menu = menuBar()->addMenu("&Sweep");
  menu->addAction("&New sample-efficiency sweep…", this, [this] {
    tabs_->setCurrentWidget(sweep_panel_);
    sweep_panel_->openDialog();
  });
  menu->addAction("&Cancel sweep", sweep_panel_, &SweepPanel::cancelSweep);
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

void MainWindow::openSweepRun(const SweepRow& row) {
  leaveFigureFocus();                    // its curves go to the loss dock
  constexpr int kSweepRunIds = 1 << 20;  // apart from the session's run ids
  const int id = kSweepRunIds + static_cast<int>(row.run);
  const QString model = QString::fromStdString(row.model);
  RunDescriptor d;
  d.id = id;
  d.model = model;
  d.seed = row.seed;
  d.parameters = row.parameters;
  d.train_size = row.size;
  d.requested_train_size = row.requested_size;
  runs_[id] = d;
  inspector_->setRunInfo(id, inspectedRunInfo(d));
  curves_->removeRun(id);
  curves_->addRun(id, QString("%1 N=%2 s%3 (sweep)").arg(model).arg(row.size).arg(row.seed),
                  SampleEfficiencyView::modelColor(model));
  for (const auto& m : row.train_curve) curves_->appendStep(id, m);
  for (const auto& e : row.validation_curve) curves_->appendEvaluation(id, e);
  curves_->fitAll();
  QString what = row.train_curve.empty()
                     ? "no curves stored"
                     : QString("%1 steps of curves").arg(row.train_curve.size());
  if (row.has_inspection) {
    inspector_->addRecord(id, row.steps, row.inspection);
    tabs_->setCurrentIndex(InspectorPanel::kInspectorTab);
    inspector_->showRun(id);
    what += ", inspector at the last step";
  }
  appendLog(QString("Opened sweep run %1 N=%2 seed %3: test loss %4 (%5).")
                .arg(model)
                .arg(row.size)
                .arg(row.seed)
                .arg(QString::number(row.test_loss, 'g', 3))
                .arg(what));
}

// ---- Presets: a claim from the seeds and the run that tests it (core/registry/presets.h).

void MainWindow::buildPresetMenu() {
  auto* menu = menuBar()->addMenu("&Presets");
  menu->setToolTipsVisible(true);
  for (const Preset& p : presets()) {
    const QString name = QString::fromStdString(p.name);
    auto* action =
        menu->addAction(QString::fromStdString(p.title), this, [this, name] { applyPreset(name); });
    action->setObjectName("Preset_" + name);
    action->setToolTip(QString::fromStdString(p.claim));
    action->setStatusTip(QString::fromStdString(p.claim));
  }
}

bool MainWindow::applyPreset(const QString& name) {
  const Preset* p = findPreset(name.toStdString());
  if (!p) {
    appendLog(
        QString("Unknown preset '%1': use %2").arg(name, QString::fromStdString(presetNameList())));
    return false;
  }
  if (training_) resetRuns();
  active_preset_ = name;
  const QString claim = QString::fromStdString(p->claim);
  preset_status_ = QString("Preset \"%1\": %2").arg(QString::fromStdString(p->title), claim);
  appendLog(QString("Preset %1 — claim: %2").arg(name, claim));
  inspector_->setHeadline(preset_status_);  // the claim in full, above every tab
  if (p->isSweep()) return startPresetSweep(*p);
  if (p->verdict == "linear-attention") {  // nothing to train: generation, measured live
    if (!measureGeneration(p->config)) return false;
    showStatus(preset_status_ + " — measuring; the verdict follows it.");
    return true;
  }
  if (p->models.empty()) {  // nothing to train: the claim is judged by the inspector's panel
    if (p->inspector_tab == "linear_rnn") tabs_->setCurrentIndex(InspectorPanel::kLinearRnnTab);
    showVerdicts({linearRnnDemoVerdict()});
    return true;
  }
  base_config_ = p->config;
  RunSetup s = setup_->setup();
  s.models.clear();
  for (const auto& m : p->models) s.models << QString::fromStdString(m);
  s.seeds = 1;
  setup_->setSetup(s);
  setup_->setConfig(p->config);
  hyper_->setConfig(p->config);
  startTraining();
  preset_status_ = QString("Preset \"%1\": %2").arg(QString::fromStdString(p->title), claim);
  active_preset_ = name;  // startTraining forgot both
  if (p->inspector_tab == "rem") tabs_->setCurrentIndex(InspectorPanel::kRemTab);
  if (p->inspector_tab == "gates") tabs_->setCurrentIndex(InspectorPanel::kGatesTab);
  showStatus(preset_status_);
  return true;
}

bool MainWindow::startPresetSweep(const Preset& p) {
  SweepOptions o = p.sweepOptions();
  o.keep_curves = true;
  o.keep_inspection = true;
  if (!sweep_panel_->startSweep(o)) {
    appendLog(QString("Preset %1: the sweep did not start (one is running?)")
                  .arg(QString::fromStdString(p.name)));
    return false;
  }
  tabs_->setCurrentWidget(p.axis.empty() ? static_cast<QWidget*>(sweep_panel_)
                                         : static_cast<QWidget*>(sweep_panel_->regimeView()));
  focus_action_->setChecked(true);  // the figure fills in: give it the room
  updateStateLabel();
  showStatus(preset_status_ + " — running the sweep; the verdict follows it.");
  return true;
}

// The running preset's verdicts, once what it ran has finished (never a canned answer).
void MainWindow::judgePreset() {
  const Preset* p = findPreset(active_preset_.toStdString());
  if (!p || p->verdict.empty()) return;
  if (p->isSweep()) {
    showVerdicts(sweepPresetVerdicts(p->verdict, sweep_panel_->rows()));
    return;
  }
  // A run preset: every run ended; judge the first run's newest inspection record.
  for (const auto& s : statuses_)
    if (s.state == RunState::Running || s.state == RunState::Idle) return;
  if (runs_.isEmpty()) return;
  const int run = runs_.firstKey();
  const auto steps = inspector_->history().steps(run);
  if (steps.empty()) return;
  const InspectionRecord* record = inspector_->history().at(run, steps.back());
  // The control: the same run's step-0 record (the untrained model, same initialisation).
  const InspectionRecord* untrained =
      steps.front() == 0 && steps.back() > 0 ? inspector_->history().at(run, 0) : nullptr;
  const RunDescriptor& d = runs_[run];
  if (record) showVerdicts(runPresetVerdicts(p->verdict, *record, d.truth, d.length, untrained));
}

void MainWindow::showVerdicts(const std::vector<ClaimVerdict>& verdicts) {
  if (verdicts.empty()) return;
  QStringList lines;
  for (const auto& v : verdicts) lines << QString::fromStdString(verdictLine(v));
  for (const auto& line : lines) appendLog("Verdict — " + line);
  last_verdicts_ = lines;
  const QString text = QString("Preset %1: %2").arg(active_preset_, lines.join("  |  "));
  showStatus(text);
  inspector_->setHeadline((preset_status_.isEmpty() ? QString() : preset_status_ + "\n") +
                          lines.join("\n"));
  active_preset_.clear();  // judged once
}

}  // namespace rsalab
