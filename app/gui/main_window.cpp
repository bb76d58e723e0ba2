// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow, part one: the training wiring. Worker signals go to the run store, the panels (runs
// table, curves, inspector) and the session recorder; the toolbar drives the TrainingController.
// The window's parts are built in main_window_build.cpp.
#include "app/gui/main_window.h"

#include <QCloseEvent>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <algorithm>

#include "app/gui/runs_headline.h"
#include "app/gui/sweep_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_worker.h"
#include "app/gui/window_status.h"
#include "engine/core/registry/task_registry.h"
#include "engine/runtime.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/run_setup_panel.h"

namespace rsalab {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), controller_(new TrainingController(this)), runs_(new RunStore(this)) {
  setObjectName("MainWindow");
  controller_->setObjectName("TrainingController");
  setWindowTitle("RSA Lab — untitled session[*]");
  // 1400 × 900, or most of a larger screen; never more than the screen has.
  const QSize room = screen() ? screen()->availableGeometry().size() : QSize(1400, 900);
  resize(std::min(room.width(), std::max(1400, room.width() * 17 / 20)),
         std::min(room.height(), std::max(900, room.height() * 17 / 20)));
  setDockNestingEnabled(true);

  // Central area: the inspector views as tabs over the step scrubber that drives every view.
  inspector_ = new InspectorPanel(this);
  inspector_->setStore(runs_);
  tabs_ = inspector_->tabs();
  setCentralWidget(inspector_);
  connect(inspector_, &InspectorPanel::inspectionRequested, this,
          [this](const RunId& run, int sample) {
            if (run.isLive()) controller_->requestInspection(int(run.number), sample);
          });
  focus_ = new FigureFocus(this, tabs_, kLayoutVersion);
  status_ = new WindowStatus(statusBar());

  buildActions();
  auto* file = menuBar()->addMenu("&File");
  auto* run = menuBar()->addMenu("&Run");
  run->addActions({start_action_, step_action_, stop_action_, reset_action_, restore_action_});
  buildDocks();
  buildSweepTab();
  buildJobs();
  auto* view = menuBar()->findChild<QMenu*>("ViewMenu");
  setAcceptDrops(true);
  settings_->buildMenus(file, view);
  wireJobs();

  auto* worker = controller_->worker();
  connect(worker, &TrainingWorker::runsCreated, this, &MainWindow::onRunsCreated);
  connect(worker, &TrainingWorker::runsUpdated, this, &MainWindow::onRunsUpdated);
  connect(worker, &TrainingWorker::metrics, this, &MainWindow::onMetrics);
  connect(worker, &TrainingWorker::status, this, &MainWindow::onStatus);
  connect(worker, &TrainingWorker::snapshot, this, [this](const InspectionSnapshot& s) {
    inspector_->addSnapshot(s.run, s.step, s.record, s.input);
  });
  connect(worker, &TrainingWorker::log, this, &MainWindow::appendLog);
  connect(worker, &TrainingWorker::warning, this,
          [this](const QString& message) { showStatus("Warning: " + message, 20000); });
  connect(worker, &TrainingWorker::idle, this, [this] { setTrainingState(false, false); });

  default_layout_ = saveState(kLayoutVersion);
  appendLog(QString::fromStdString(initRuntime().summary()));
  settings_->restore();
}

MainWindow::~MainWindow() = default;

RunConfig MainWindow::currentConfig() const {
  RunConfig base = base_config_;
  if (setup_->setup().config.task.name != base.task.name) base = defaultRunConfig();
  // Real series: per-window normalisation and best weights restored (no form fields for them);
  // the long-horizon protocol (etth1 / etth2 by default): its own defaults (the paper table's)
  const TaskOptions& task = setup_->setup().config.task;
  if (usesLongHorizonProtocol(task))
    base = longHorizonDefaults(base);
  else if (isRealSeriesTask(task.name))
    base = realSeriesDefaults(base);
  RunConfig c = setup_->config(hyper_->config(base));
  if (readsCsvPath(c.task.name)) {  // imported by drag and drop (CsvImporter)
    c.task.csv_path = csv_->path().toStdString();
    c.task.horizon = csv_->horizon();
  }
  return c;
}

void MainWindow::applyTaskKindDefaults(const QString& task) {
  TaskOptions probe = setup_->setup().config.task;
  probe.name = task.toStdString();
  const bool real = isRealSeriesTask(probe.name);
  const bool long_horizon = usesLongHorizonProtocol(probe);
  const int kind = long_horizon ? 2 : real ? 1 : 0;
  if (kind == task_kind_) return;
  task_kind_ = kind;
  RunConfig next = long_horizon ? longHorizonDefaults(defaultRunConfig())
                   : real       ? realSeriesDefaults(defaultRunConfig())
                                : defaultRunConfig();
  next.task.name = probe.name;
  next.task.protocol = probe.protocol;
  setup_->setConfig(next);  // models and seeds stay
  hyper_->setConfig(next);
  if (long_horizon) {
    appendLog(QString("%1: the long-horizon protocol (train / validation / test = 12 / 4 / 4 "
                      "months, direct windows of input length L = Length T (auto: 96) and horizon "
                      "H, every train window), at most %2 epochs of batch %3 with one validation "
                      "evaluation each, patience %4 epochs, the best weights restored; norm %5, "
                      "anchors %6 on OT. Protocol split gives the 70/15/15 split.")
                  .arg(task)
                  .arg(next.task.epochs)
                  .arg(next.trainer.batch_size)
                  .arg(next.trainer.patience)
                  .arg(normModeName(next.task.norm))
                  .arg(anchorModeName(next.task.anchors)));
  } else if (real) {
    appendLog(QString("Real series: T auto, per-window normalisation, %1 steps with early stopping "
                      "(patience %2 × %3 steps) and the best validation weights restored for the "
                      "test; baselines appear as dashed lines in the loss view.")
                  .arg(next.trainer.max_steps)
                  .arg(next.trainer.patience)
                  .arg(next.trainer.eval_every));
  }
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
  controller_->resetHot(c.trainer);
  curves_->clear();
  inspector_->clear();
  last_step_ = 0;
  presets_->forget();  // a preset's train() sets it again after this
  controller_->start(c, s.models, s.seeds);
  std::vector<std::string> models;
  for (const auto& m : s.models) models.push_back(m.toStdString());
  sessions_->recorder().start(c, models, s.seeds);
  sessions_->setOffline(false);
  setTrainingState(true, false);
  appendLog(QString("Started %1 model(s) × %2 seed(s) on %3, N = %4 %5.")
                .arg(s.models.size())
                .arg(s.seeds)
                .arg(QString::fromStdString(s.config.task.name))
                .arg(c.train_size)
                .arg(usesLongHorizonProtocol(c.task)
                         ? "(every train window of the long-horizon protocol)"
                         : "asked for"));
}

void MainWindow::togglePause() {
  if (!training_) return startTraining();
  controller_->setPaused(!paused_);
  setTrainingState(true, !paused_);
}

void MainWindow::resetRuns() {
  controller_->reset();
  curves_->clear();
  runs_->clear();
  restore_action_->setEnabled(false);
  inspector_->clear();
  setTrainingState(false, false);
}

void MainWindow::setTrainingState(bool training, bool paused) {
  training_ = training;
  paused_ = paused;
  sessions_->setTraining(training);
  start_action_->setText(!training ? "Start" : paused ? "Resume" : "Pause");
  start_action_->setIcon(
      style()->standardIcon(training && !paused ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  setup_->startButton()->setEnabled(!training);
  updateStateLabel();
}

void MainWindow::updateStateLabel() {
  QString state = training_ ? (paused_ ? "paused" : "training") : "idle";
  if (!training_ && sweep_panel_ && sweep_panel_->isRunning()) {
    const auto* runner = sweep_panel_->runner();
    state = QString("sweep %1/%2").arg(runner->done()).arg(runner->total());
  }
  if (!training_ && presets_->isMeasuringGeneration()) state = "measuring";
  if (!training_ && presets_->isRunningPaperTable()) state = "paper table";
  status_->setState(state);
}

void MainWindow::onRunsCreated(const QVector<Run>& runs) {
  if (!runs.isEmpty()) {  // what the user is looking at
    std::vector<RunDescriptor> what;
    for (const auto& r : runs) what.push_back(r.what);
    const QString text = runsHeadline(what, currentConfig(), presets_->claimLine());
    showStatus(text);
    inspector_->setHeadline(text);
  }
  runs_->clear();
  sessions_->recorder().clearRuns();
  for (const Run& r : runs) {
    runs_->add(r);
    sessions_->recorder().addRun(r);
    curves_->addRun(r.id,
                    QString("%1 s%2").arg(QString::fromStdString(r.what.model)).arg(r.what.seed),
                    runs_->colorOf(r.id));
    curves_->setReferenceLines(r.id, referenceLines(r.what));
  }
  inspector_->setInspectedRun(runs_->firstToInspect());
}

void MainWindow::onRunsUpdated(const QVector<Run>& runs) {
  for (const Run& r : runs) {
    if (!runs_->find(r.id)) continue;  // from runs a new start has replaced
    runs_->setWhat(r.id, r.what);
    curves_->setReferenceLines(r.id, referenceLines(r.what));
  }
  if (!runs.isEmpty())  // with the anchors fitted since (the runs share one task)
    sessions_->recorder().setReferences(runs.front().what.references, runs.front().what.horizon,
                                        runs.front().what.season);
}

void MainWindow::inspectRun(const RunId& run) {
  inspector_->showRun(run);
  if (run.isLive()) controller_->requestInspection(int(run.number), inspector_->sample());
}

void MainWindow::onMetrics(const MetricsBatch& batch) {
  SessionRecorder& recorder = sessions_->recorder();
  recorder.recordSteps(batch.run, batch.steps.constData(), size_t(batch.steps.size()));
  recorder.recordEvals(batch.run, batch.evals.constData(), size_t(batch.evals.size()));
  setWindowModified(true);
  for (const auto& m : batch.steps) {
    curves_->appendStep(batch.run, m);
    last_step_ = std::max<qint64>(last_step_, m.step);
  }
  for (const auto& e : batch.evals) curves_->appendEvaluation(batch.run, e);
}

void MainWindow::onStatus(int number, const RunStatus& now) {
  const RunId id(number);
  runs_->setStatus(id, now);
  const Run* run = runs_->find(id);
  if (!run) return;
  sessions_->recorder().setStatus(*run);
  if ((now.state == RunState::Failed || now.state == RunState::Diverged) && !now.message.empty())
    showStatus(QString::fromStdString(run->what.model + ": " + now.message), 8000);
  restore_action_->setEnabled(runs_->anyDiverged());
  status_->setProgress(runs_->progress());
  if (now.state != RunState::Running && now.state != RunState::Idle) presets_->runsChanged();
}

void MainWindow::trainPreset(const RunConfig& config, const QStringList& models) {
  base_config_ = config;
  RunSetup s = setup_->setup();
  s.models = models;
  s.seeds = 1;
  setup_->setSetup(s);
  setup_->setConfig(config);
  hyper_->setConfig(config);
  startTraining();
}

void MainWindow::onHotChanged(const QString& name, double value) {
  const QString label = controller_->editHot(name, value);
  if (label.isEmpty() || !training_) return;
  controller_->applyHot();
  curves_->addMarker(static_cast<double>(last_step_), label);
  appendLog(QString("At step %1: %2 (applies at the next step)").arg(last_step_).arg(label));
}

void MainWindow::appendLog(const QString& line) { log_->appendPlainText(line); }

void MainWindow::showStatus(const QString& text, int timeout_ms) {
  status_->showMessage(text, timeout_ms);
}

QString MainWindow::statusText() const { return status_->message(); }

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
    if (answer == 0) return event->ignore();
    controller_->stop();
  }
  settings_->store();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (CsvImporter::accepts(event->mimeData())) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  if (csv_->drop(event->mimeData())) event->acceptProposedAction();
}

}  // namespace rsalab
