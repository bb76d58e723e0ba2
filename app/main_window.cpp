#include "app/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/sweep_panel.h"
#include "app/training_controller.h"
#include "app/training_worker.h"
#include "engine/runtime.h"
#include "engine/tasks/task_options.h"
#include "widgets/attention_view.h"
#include "widgets/gate_view.h"
#include "widgets/heat_map_grid.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/linear_rnn_rem_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/rem_parameter_view.h"
#include "widgets/run_palette.h"
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

QString fmt(double v) { return QString::number(v, 'g', 3); }

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), controller_(new TrainingController(this)) {
  setObjectName("MainWindow");
  setWindowTitle("RSA Lab — untitled session[*]");
  resize(1400, 900);
  setDockNestingEnabled(true);

  // Central area: the inspector views as tabs, the step scrubber below them (it drives every view).
  auto* central = new QWidget(this);
  auto* central_layout = new QVBoxLayout(central);
  central_layout->setContentsMargins(4, 4, 4, 0);
  tabs_ = new QTabWidget(central);
  attention_view_ = new AttentionView(tabs_);
  tabs_->addTab(attention_view_, "Attention && REMs");
  rem_view_ = new RemParameterView(tabs_);
  tabs_->addTab(rem_view_, "REM parameters");
  gate_view_ = new GateView(tabs_);
  tabs_->addTab(gate_view_, "Gates && fixed points");
  tabs_->addTab(new LinearRnnRemPanel(tabs_), "Why REMs (linear RNN)");
  central_layout->addWidget(tabs_, 1);
  buildScrubber(central, central_layout);
  setCentralWidget(central);
  // Hidden views keep their data and draw when their tab comes back.
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { refreshScrubber(); });
  connect(attention_view_, &AttentionView::sampleChanged, this, [this](int sample) {
    if (inspected_run_ < 0) return;
    follow_latest_ = true;
    controller_->requestInspection(inspected_run_, sample);
  });

  buildActions();
  buildDocks();
  buildStatusBar();
  buildSessionActions();
  buildSweepTab();

  auto* worker = controller_->worker();
  connect(worker, &TrainingWorker::runsCreated, this, &MainWindow::onRunsCreated);
  connect(worker, &TrainingWorker::metrics, this, &MainWindow::onMetrics);
  connect(worker, &TrainingWorker::status, this, &MainWindow::onStatus);
  connect(worker, &TrainingWorker::snapshot, this, &MainWindow::onSnapshot);
  connect(worker, &TrainingWorker::log, this, &MainWindow::appendLog);
  connect(worker, &TrainingWorker::idle, this, [this] { setTrainingState(false, false); });

  default_layout_ = saveState(kLayoutVersion);
  appendLog(QString::fromStdString(initRuntime().summary()));
  restoreSettings();
}

MainWindow::~MainWindow() = default;

TrainingWorker* MainWindow::controllerWorker() const { return controller_->worker(); }

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
  reset_action_ =
      toolbar->addAction(style()->standardIcon(QStyle::SP_BrowserReload), "Reset", this, [this] {
        controller_->reset();
        curves_->clear();
        runs_.clear();
        statuses_.clear();
        if (restore_action_) restore_action_->setEnabled(false);
        snapshots_.clear();
        inputs_.clear();
        history_.clear();
        setInspectedRun(-1);
        rebuildRemView();
        refreshScrubber();
        setTrainingState(false, false);
      });
  reset_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  reset_action_->setToolTip("Drop all runs (Ctrl+Shift+R)");
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
  connect(setup_, &RunSetupPanel::startRequested, this, [this] {
    if (!training_) startTraining();
  });
  connect(setup_, &RunSetupPanel::setupChanged, this, [this] {
    if (training_)
      appendLog(
          "Run setup changed: it applies at the next Start (the running session is unchanged).");
    setWindowModified(true);
  });
  auto* setup_dock = dock("Run setup", "RunSetupDock", setup_, Qt::LeftDockWidgetArea);

  hyper_ = new HyperParameterForm(formHyperParameters(), this);
  const TrainerOptions t = defaultRunConfig().trainer;
  hot_ = {t.learning_rate, t.weight_decay, t.grad_clip, t.snapshot_every};
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
  connect(runs_table_, &RunsTable::visibilityToggled, this,
          [this](int id, bool visible) { curves_->setRunVisible(id, visible); });
  connect(runs_table_, &RunsTable::runSelected, this, &MainWindow::inspectRun);
  auto* runs_dock = dock("Runs", "RunsDock", runs_table_, Qt::BottomDockWidgetArea);

  curves_ = new LossCurveView(this);  // has its own x-axis, smoothing, log-y and fit controls
  curves_->setSmoothing(0.9);
  auto* curves_dock = dock("Loss curves", "LossCurvesDock", curves_, Qt::BottomDockWidgetArea);

  log_ = new QPlainTextEdit(this);
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
  view->addAction("Reset layout", this, [this] { restoreState(default_layout_, kLayoutVersion); });
}

void MainWindow::buildStatusBar() {
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setFormat("%p%");
  eta_label_ = new QLabel("ETA –", this);
  speed_label_ = new QLabel("– steps/s", this);
  device_label_ = new QLabel("device: CPU", this);
  state_label_ = new QLabel("idle", this);
  statusBar()->addWidget(state_label_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(eta_label_);
  statusBar()->addPermanentWidget(speed_label_);
  statusBar()->addPermanentWidget(device_label_);
}

RunConfig MainWindow::currentConfig() const {
  RunConfig base = defaultRunConfig();
  base.task = task_defaults_;
  RunConfig c = setup_->config(hyper_->config(base));
  if (c.task.name == "csv") {  // imported by drag and drop (importCsv)
    c.task.csv_path = csv_path_.toStdString();
    c.task.horizon = csv_horizon_;
  }
  return c;
}

void MainWindow::startTraining() {
  const auto s = setup_->setup();
  RunConfig c = currentConfig();
  try {
    validate(c);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, "Cannot start", QString::fromUtf8(e.what()));
    appendLog(QString("Not started: %1").arg(e.what()));
    return;
  }
  if (s.models.isEmpty()) {
    appendLog("Not started: select at least one model.");
    return;
  }
  hot_ = {c.trainer.learning_rate, c.trainer.weight_decay, c.trainer.grad_clip,
          c.trainer.snapshot_every};
  curves_->clear();
  snapshots_.clear();
  inputs_.clear();
  history_.clear();
  follow_latest_ = true;
  rebuildRemView();
  refreshScrubber();
  inspected_run_ = -1;
  last_step_ = 0;
  controller_->start(c, s.models, s.seeds);
  noteSessionStart(c, s.models, s.seeds);
  setTrainingState(true, false);
  appendLog(QString("Started %1 model(s) × %2 seed(s) on %3, N = %4.")
                .arg(s.models.size())
                .arg(s.seeds)
                .arg(s.task)
                .arg(s.train_size));
}

void MainWindow::togglePause() {
  if (!training_) {
    startTraining();
    return;
  }
  paused_ = !paused_;
  controller_->setPaused(paused_);
  setTrainingState(true, paused_);
}

void MainWindow::setTrainingState(bool training, bool paused) {
  training_ = training;
  paused_ = paused;
  start_action_->setText(!training ? "Start" : paused ? "Resume" : "Pause");
  start_action_->setIcon(
      style()->standardIcon(training && !paused ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  setup_->startButton()->setEnabled(!training);
  state_label_->setText(!training ? "idle" : paused ? "paused" : "training");
}

void MainWindow::onRunsCreated(const QVector<RunDescriptor>& runs) {
  runs_.clear();
  recorded_steps_.clear();
  recorded_evals_.clear();
  QVector<RunRow> rows;
  for (const auto& r : runs) {
    runs_[r.id] = r;
    RunRow row;
    row.id = r.id;
    row.model = r.model;
    row.seed = r.seed;
    row.parameters = r.parameters;
    row.state = RunState::Idle;
    rows.push_back(row);
    curves_->addRun(r.id, QString("%1 s%2").arg(r.model).arg(r.seed), runColor(r.id));
  }
  runs_table_->setRuns(rows);
  int inspect = -1;
  for (const auto& r : runs) {
    if (inspect < 0 && r.model == "rsa") inspect = r.id;
  }
  if (inspect < 0 && !runs.isEmpty()) inspect = runs.first().id;
  setInspectedRun(inspect);
}

void MainWindow::inspectRun(int run) {
  setInspectedRun(run);
  controller_->requestInspection(run, attention_view_->sample());
  showSnapshot(run);
  follow_latest_ = true;
  refreshScrubber();
  rebuildRemView();
}

void MainWindow::setInspectedRun(int run) {
  inspected_run_ = run;
  applyGroundTruth();
}

void MainWindow::applyGroundTruth() {
  const auto d = runs_.value(inspected_run_);
  rem_view_->setGroundTruth(d.true_lambdas, d.true_gammas, d.true_thetas, d.length);
}

void MainWindow::onMetrics(const MetricsBatch& batch) {
  recordMetrics(batch);
  for (const auto& m : batch.steps) {
    curves_->appendStep(batch.run, m);
    last_step_ = std::max<qint64>(last_step_, m.step);
  }
  for (const auto& e : batch.evals) curves_->appendEvaluation(batch.run, e);
}

RunRow MainWindow::runRow(const RunDescriptor& d, const RunStatus& s) {
  RunRow row;
  row.id = s.run;
  row.model = d.model;
  row.seed = d.seed;
  row.parameters = d.parameters;
  row.state = s.state;
  row.step = s.step;
  row.max_steps = s.max_steps;
  row.train_loss = s.train_loss;
  row.validation_loss = s.validation_loss;
  row.steps_per_second = s.steps_per_second;
  row.message = s.message;
  return row;
}

void MainWindow::onStatus(const RunStatus& s) {
  statuses_[s.run] = s;
  const auto d = runs_.value(s.run);
  runs_table_->updateRun(runRow(d, s));
  if ((s.state == RunState::Failed || s.state == RunState::Diverged) && !s.message.isEmpty()) {
    statusBar()->showMessage(d.model + ": " + s.message, 8000);
  }
  bool diverged = false;
  for (const auto& st : statuses_) diverged = diverged || st.state == RunState::Diverged;
  restore_action_->setEnabled(diverged);
  updateStatusBar();
}

void MainWindow::updateStatusBar() {
  qint64 done = 0, total = 0;
  double speed = 0;
  for (const auto& s : statuses_) {
    done += s.step;
    total += s.max_steps;
    if (s.state == RunState::Running) speed += s.steps_per_second;
  }
  progress_->setMaximum(static_cast<int>(std::min<qint64>(total, 1 << 30)));
  progress_->setValue(static_cast<int>(std::min<qint64>(done, 1 << 30)));
  speed_label_->setText(QString("%1 steps/s").arg(speed, 0, 'f', 1));
  eta_label_->setText(speed > 0 ? QString("ETA %1 s").arg(std::ceil((total - done) / speed))
                                : "ETA –");
}

void MainWindow::onSnapshot(const InspectionSnapshot& snapshot) {
  if (!snapshot.record) return;
  snapshots_[snapshot.run] = snapshot;
  inputs_[{snapshot.run, static_cast<int>(snapshot.record->sample)}] = snapshot.input;
  history_.insert(snapshot.run, snapshot.step, *snapshot.record);
  if (snapshot.run != inspected_run_) return;
  if (snapshot.step > rem_view_step_) {
    rem_view_->append(snapshot.step, *snapshot.record);
    gate_view_->appendHistory(snapshot.step, *snapshot.record);
    rem_view_step_ = snapshot.step;
  } else {
    rebuildRemView();  // a step recorded again (e.g. after resuming): redraw from the history
  }
  refreshScrubber();  // shows the newest snapshot unless the user scrubbed back
}

// ---- Step scrubber: a slider over the inspected run's recorded steps, with Play/Pause.

void MainWindow::buildScrubber(QWidget* parent, QVBoxLayout* layout) {
  auto* row = new QHBoxLayout();
  play_button_ = new QPushButton("Play", parent);
  play_button_->setToolTip("Step through the recorded snapshots");
  step_slider_ = new QSlider(Qt::Horizontal, parent);
  step_slider_->setRange(0, 0);
  step_slider_->setEnabled(false);
  step_slider_->setToolTip("Training step shown by every inspector view");
  step_label_ = new QLabel("step –", parent);
  step_label_->setMinimumWidth(step_label_->fontMetrics().horizontalAdvance("step 00000000"));
  row->addWidget(play_button_);
  row->addWidget(step_slider_, 1);
  row->addWidget(step_label_);
  layout->addLayout(row);
  play_timer_ = new QTimer(this);
  play_timer_->setInterval(150);
  connect(step_slider_, &QSlider::valueChanged, this, &MainWindow::onScrubbed);
  connect(play_button_, &QPushButton::clicked, this, [this] {
    if (play_timer_->isActive()) {
      play_timer_->stop();
    } else {
      if (step_slider_->value() >= step_slider_->maximum()) step_slider_->setValue(0);
      play_timer_->start();
    }
    play_button_->setText(play_timer_->isActive() ? "Pause" : "Play");
  });
  connect(play_timer_, &QTimer::timeout, this, [this] {
    if (step_slider_->value() < step_slider_->maximum()) {
      step_slider_->setValue(step_slider_->value() + 1);
    } else {
      play_timer_->stop();
      play_button_->setText("Play");
    }
  });
}

void MainWindow::refreshScrubber() {
  scrub_steps_ = history_.steps(inspected_run_);
  const int last = static_cast<int>(scrub_steps_.size()) - 1;
  int index = last;
  if (!follow_latest_ && shown_step_ >= 0) {  // stay on the step the user chose
    const auto it = std::upper_bound(scrub_steps_.begin(), scrub_steps_.end(), shown_step_);
    index = std::max(0, static_cast<int>(it - scrub_steps_.begin()) - 1);
  }
  {
    const QSignalBlocker block(step_slider_);
    step_slider_->setRange(0, std::max(0, last));
    step_slider_->setValue(std::max(0, index));
  }
  step_slider_->setEnabled(last > 0);
  if (last < 0) {
    shown_step_ = -1;
    step_label_->setText("step –");
    return;
  }
  if (scrub_steps_[static_cast<size_t>(index)] != shown_step_ || follow_latest_) {
    const qint64 step = scrub_steps_[static_cast<size_t>(index)];
    if (const InspectionRecord* rec = history_.at(inspected_run_, step))
      showRecord(inspected_run_, step, *rec);
  }
}

void MainWindow::onScrubbed(int index) {
  if (index < 0 || index >= static_cast<int>(scrub_steps_.size())) return;
  follow_latest_ = index == static_cast<int>(scrub_steps_.size()) - 1;
  const qint64 step = scrub_steps_[static_cast<size_t>(index)];
  if (const InspectionRecord* rec = history_.at(inspected_run_, step))
    showRecord(inspected_run_, step, *rec);
}

void MainWindow::rebuildRemView() {
  rem_view_->setRecords(history_.records(inspected_run_));
  gate_view_->setHistory(history_.records(inspected_run_));
  const auto steps = history_.steps(inspected_run_);
  rem_view_step_ = steps.empty() ? -1 : steps.back();
}

void MainWindow::showSnapshot(int run) {
  if (!snapshots_.contains(run)) return;
  const auto& snap = snapshots_[run];
  if (snap.record) showRecord(run, snap.step, *snap.record);
}

void MainWindow::showRecord(int run, qint64 step, const InspectionRecord& rec) {
  shown_step_ = step;
  if (step_label_) step_label_->setText(QString("step %1").arg(step));
  const auto d = runs_.value(run);
  const QString label = QString("%1 seed %2").arg(d.model).arg(d.seed);
  const SampleInput input = inputs_.value({run, static_cast<int>(rec.sample)});
  attention_view_->setRecord(step, rec, input, label);
  gate_view_->setRecord(step, rec, input, label);
  rem_view_->setCurrentRecord(step, rec);
}

HeatMapGrid* MainWindow::inspectorGrid() const { return attention_view_->grid(); }

void MainWindow::onHotChanged(const QString& name, double value) {
  double* field = name == "learning_rate"  ? &hot_.learning_rate
                  : name == "weight_decay" ? &hot_.weight_decay
                  : name == "grad_clip"    ? &hot_.grad_clip
                                           : nullptr;
  QString label;
  if (field) {
    label = QString("%1 %2 → %3")
                .arg(name == "learning_rate" ? "lr" : name)
                .arg(fmt(*field))
                .arg(fmt(value));
    *field = value;
  } else if (name == "snapshot_every") {
    label = QString("snapshots every %1").arg(value);
    hot_.snapshot_every = static_cast<int64_t>(value);
  } else {
    return;
  }
  if (training_) {
    controller_->setHot(hot_);
    curves_->addMarker(static_cast<double>(last_step_), label);
    appendLog(QString("At step %1: %2 (applies at the next step)").arg(last_step_).arg(label));
  }
}

void MainWindow::appendLog(const QString& line) { log_->appendPlainText(line); }

// ---- Sample-efficiency sweeps: the tab, its menu entry, and opening a clicked run.

void MainWindow::buildSweepTab() {
  sweep_panel_ = new SweepPanel(tabs_);
  tabs_->addTab(sweep_panel_, "Sample efficiency");
  sweep_panel_->setBaseConfigProvider([this] { return currentConfig(); });
  connect(sweep_panel_, &SweepPanel::log, this, &MainWindow::appendLog);
  connect(sweep_panel_, &SweepPanel::runActivated, this, &MainWindow::openSweepRun);
  auto* menu = menuBar()->addMenu("&Sweep");
  menu->addAction("&New sample-efficiency sweep…", this, [this] {
    tabs_->setCurrentWidget(sweep_panel_);
    sweep_panel_->openDialog();
  });
  menu->addAction("&Cancel sweep", sweep_panel_, &SweepPanel::cancelSweep);
}

void MainWindow::openSweepRun(const SweepRow& row) {
  constexpr int kSweepRunIds = 1 << 20;  // apart from the session's run ids
  const int id = kSweepRunIds + static_cast<int>(row.run);
  const QString model = QString::fromStdString(row.model);
  RunDescriptor d;
  d.id = id;
  d.model = model;
  d.seed = row.seed;
  d.parameters = row.parameters;
  runs_[id] = d;
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
    InspectionSnapshot snap{
        id, row.steps, std::make_shared<const InspectionRecord>(row.inspection), {}};
    snapshots_[id] = snap;
    history_.insert(id, row.steps, row.inspection);
    inspected_run_ = id;
    follow_latest_ = true;
    rebuildRemView();
    tabs_->setCurrentIndex(0);  // the inspector
    refreshScrubber();
    showSnapshot(id);
    what += ", inspector at the last step";
  }
  appendLog(QString("Opened sweep run %1 N=%2 seed %3: test loss %4 (%5).")
                .arg(model)
                .arg(row.size)
                .arg(row.seed)
                .arg(fmt(row.test_loss))
                .arg(what));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (training_) {
    int answer = close_answer_;
    if (answer < 0) {
      QMessageBox box(QMessageBox::Question, "Training is running",
                      "Runs are still training. Stop them and quit?", QMessageBox::NoButton, this);
      auto* quit = box.addButton("Stop && quit", QMessageBox::AcceptRole);
      box.addButton(QMessageBox::Cancel);
      box.exec();
      answer = box.clickedButton() == quit ? 1 : 0;
    }
    if (answer == 0) {
      event->ignore();
      return;
    }
    controller_->stop();
  }
  storeSettings();
  event->accept();
}

}  // namespace rsalab
