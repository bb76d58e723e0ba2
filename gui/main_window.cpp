// MainWindow, part one: the training wiring. Worker signals go to the panels (runs table, curves,
// inspector) and to the session recorder; the toolbar drives the TrainingController. The window's
// parts are built in main_window_build.cpp, sessions live in main_window_session.cpp, menus and
// settings in main_window_settings.cpp.
#include "gui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QStatusBar>
#include <QStyle>
#include <algorithm>
#include <cmath>

#include "core/config/task_options.h"
#include "core/registry/model_registry.h"
#include "core/registry/task_registry.h"
#include "core/verdicts/first_minute_table.h"
#include "engine/runtime.h"
#include "gui/sweep_panel.h"
#include "gui/sweep_runner.h"
#include "gui/training_controller.h"
#include "gui/training_worker.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/loss_curve_view.h"
#include "widgets/run_palette.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"

namespace rsalab {

namespace {

QString fmt(double v) { return QString::number(v, 'g', 3); }

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), controller_(new TrainingController(this)) {
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
  tabs_ = inspector_->tabs();
  setCentralWidget(inspector_);
  connect(inspector_, &InspectorPanel::inspectionRequested, controller_,
          &TrainingController::requestInspection);

  buildActions();
  buildDocks();
  buildStatusBar();
  buildSessionActions();
  buildSweepTab();
  buildGenerationTab();
  buildPresetMenu();

  auto* worker = controller_->worker();
  connect(worker, &TrainingWorker::runsCreated, this, &MainWindow::onRunsCreated);
  connect(worker, &TrainingWorker::metrics, this, &MainWindow::onMetrics);
  connect(worker, &TrainingWorker::status, this, &MainWindow::onStatus);
  connect(worker, &TrainingWorker::snapshot, this, &MainWindow::onSnapshot);
  connect(worker, &TrainingWorker::log, this, &MainWindow::appendLog);
  connect(worker, &TrainingWorker::warning, this,
          [this](const QString& message) { showStatus("Warning: " + message, 20000); });
  connect(worker, &TrainingWorker::idle, this, [this] { setTrainingState(false, false); });

  default_layout_ = saveState(kLayoutVersion);
  appendLog(QString::fromStdString(initRuntime().summary()));
  restoreSettings();
}

MainWindow::~MainWindow() = default;

RunConfig MainWindow::currentConfig() const {
  RunConfig base = base_config_;
  if (setup_->setup().config.task.name != base.task.name) base = defaultRunConfig();
  // Real series: per-window normalisation and best weights restored (no form fields for them)
  if (isRealSeriesTask(setup_->setup().config.task.name)) base = realSeriesDefaults(base);
  RunConfig c = setup_->config(hyper_->config(base));
  if (c.task.name == "csv") {  // imported by drag and drop (importCsv)
    c.task.csv_path = csv_path_.toStdString();
    c.task.horizon = csv_horizon_;
  }
  return c;
}

void MainWindow::applyTaskKindDefaults(const QString& task) {
  const bool real = isRealSeriesTask(task.toStdString());
  if (real == real_series_defaults_) return;
  real_series_defaults_ = real;
  RunConfig next = real ? realSeriesDefaults(defaultRunConfig()) : defaultRunConfig();
  next.task.name = task.toStdString();
  setup_->setConfig(next);  // models and seeds stay
  hyper_->setConfig(next);
  if (real) {
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
  hot_ = c.trainer;
  curves_->clear();
  inspector_->clear();
  last_step_ = 0;
  preset_status_.clear();  // applyPreset sets both after this
  active_preset_.clear();
  controller_->start(c, s.models, s.seeds);
  std::vector<std::string> models;
  for (const auto& m : s.models) models.push_back(m.toStdString());
  recorder_.start(c, models, s.seeds);
  offline_ = false;
  setTrainingState(true, false);
  appendLog(QString("Started %1 model(s) × %2 seed(s) on %3, N = %4 asked for.")
                .arg(s.models.size())
                .arg(s.seeds)
                .arg(QString::fromStdString(s.config.task.name))
                .arg(s.config.train_size));
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

void MainWindow::resetRuns() {
  controller_->reset();
  curves_->clear();
  runs_.clear();
  statuses_.clear();
  if (restore_action_) restore_action_->setEnabled(false);
  inspector_->clear();
  setTrainingState(false, false);
}

void MainWindow::setTrainingState(bool training, bool paused) {
  training_ = training;
  paused_ = paused;
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
  if (!training_ && isMeasuringGeneration()) state = "measuring";
  state_label_->setText(state);
}

namespace {

// The window's first launch: defaultLaunchConfig() (whatever model and seed) and its models.
bool isDefaultLaunch(RunConfig c, const QStringList& models) {
  RunConfig launch = defaultLaunchConfig();
  c.model.model = launch.model.model;
  c.trainer.seed = launch.trainer.seed;
  std::vector<std::string> names;
  for (const auto& m : models) names.push_back(m.toStdString());
  return toJson(c) == toJson(launch) && names == defaultModelNames();
}

}  // namespace

InspectedRunInfo MainWindow::inspectedRunInfo(const RunDescriptor& d) {
  return {d.model, d.seed, d.truth, d.length};
}

void MainWindow::onRunsCreated(const QVector<RunDescriptor>& runs) {
  if (!runs.isEmpty()) {  // what the user is looking at
    const RunConfig c = currentConfig();
    QStringList models;
    for (const auto& r : runs)
      if (!models.contains(r.model)) models << r.model;
    const GroundTruth& truth = runs.front().truth;
    // The N the runs have, not the N asked for (a short series caps it; the CLI says the same).
    const RunDescriptor& first = runs.front();
    const QString n = first.train_size > 0 && first.train_size != c.train_size
                          ? QString("%1 (asked for %2: all the series has)")
                                .arg(first.train_size)
                                .arg(c.train_size)
                          : QString::number(first.train_size > 0 ? first.train_size : c.train_size);
    QString text = QString("Training %1 on %2, N = %3: validation loss (lower is better)")
                       .arg(models.join(", "),
                            QString::fromStdString(truth.description.empty() ? c.task.name
                                                                             : truth.description),
                            n);
    if (truth.hasFloor())
      text += QString("; dashed: the Bayes floor %1 (%2)")
                  .arg(truth.bayes_floor, 0, 'g', 3)
                  .arg(QString::fromStdString(truth.floor_note));
    if (c.trainer.patience > 0)
      text += QString(
                  "; each run stops after %1 evaluations without improvement (not before "
                  "step %2)")
                  .arg(c.trainer.patience)
                  .arg(earliestEarlyStop(c.trainer));
    if (!preset_status_.isEmpty()) text = preset_status_ + " — " + text;
    text += ".";
    // The default launch: what it shows over five seeds, measured (never a canned story).
    FirstMinuteTable measured;
    if (preset_status_.isEmpty() && isDefaultLaunch(c, models) &&
        readLaunchFirstMinuteTable(&measured))
      text += " " + QString::fromStdString(firstMinuteSummary(measured));
    showStatus(text);
    inspector_->setHeadline(text);
  }
  runs_.clear();
  recorder_.clearRuns();
  QVector<RunRow> rows;
  for (const auto& r : runs) {
    runs_[r.id] = r;
    recorder_.addRun(r.id, r.model.toStdString(), r.seed, r.parameters);
    inspector_->setRunInfo(r.id, inspectedRunInfo(r));
    RunRow row;
    row.id = r.id;
    row.model = r.model;
    row.seed = r.seed;
    row.parameters = r.parameters;
    row.train_size = r.train_size;
    row.requested_train_size = r.requested_train_size;
    row.state = RunState::Idle;
    rows.push_back(row);
    curves_->addRun(r.id, QString("%1 s%2").arg(r.model).arg(r.seed), runColor(r.id));
    // The baselines' validation losses: the lines the validation curves are read against (the
    // train mean's is left out: far above every curve, it would squash them).
    std::vector<ReferenceLine> lines;
    const ReferenceScore* best = bestAnchor(r.references);
    for (const auto& ref : r.references) {
      if (ref.name != baselineName(Baseline::Mean) || &ref == best)
        lines.push_back({QString::fromStdString(ref.label), ref.validation_loss, &ref == best});
    }
    // The task's Bayes floor: no model can go below it (in expectation).
    if (r.truth.hasFloor() && r.truth.bayes_floor > 0)
      lines.push_back({QString("Bayes floor"), r.truth.bayes_floor});
    curves_->setReferenceLines(r.id, lines);
  }
  runs_table_->setRuns(rows);
  int inspect = -1;  // the first run with REMs, else the first run
  for (const auto& r : runs) {
    const ModelInfo* info = findModel(r.model.toStdString());
    if (inspect < 0 && info && info->has_rems) inspect = r.id;
  }
  if (inspect < 0 && !runs.isEmpty()) inspect = runs.first().id;
  inspector_->setInspectedRun(inspect);
}

void MainWindow::inspectRun(int run) {
  inspector_->showRun(run);
  controller_->requestInspection(run, inspector_->sample());
}

void MainWindow::onMetrics(const MetricsBatch& batch) {
  recorder_.recordSteps(batch.run, batch.steps.constData(), size_t(batch.steps.size()));
  recorder_.recordEvals(batch.run, batch.evals.constData(), size_t(batch.evals.size()));
  setWindowModified(true);
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
  row.bayes_floor = d.truth.bayes_floor;
  row.steps_per_second = s.steps_per_second;
  row.message = s.message;
  row.train_size = d.train_size;
  row.requested_train_size = d.requested_train_size;
  // The headline: skill vs the best anchor (the reference best on validation); persistence's
  // skill beside it. On validation while the run trains, on test once it has finished.
  const bool test = std::isfinite(s.test_loss);
  const double model = test ? s.test_loss : s.validation_loss;
  row.skill = skillVersusBest(model, d.references, test);
  if (const auto* best = bestAnchor(d.references); best && std::isfinite(row.skill)) {
    row.skill_tip = QString("%1: 1 − %2 / %3 (model / best anchor, %4: lowest validation loss)")
                        .arg(test ? "test, best weights" : "validation, latest evaluation")
                        .arg(model, 0, 'g', 4)
                        .arg(test ? best->test_loss : best->validation_loss, 0, 'g', 4)
                        .arg(QString::fromStdString(best->label));
  }
  if (const auto* p = findReference(d.references, baselineName(Baseline::Persistence))) {
    const double base = test ? p->test_loss : p->validation_loss;
    if (std::isfinite(model) && base > 0) row.skill_persistence = 1.0 - model / base;
  }
  return row;
}

void MainWindow::onStatus(const RunStatus& s) {
  statuses_[s.run] = s;
  recorder_.setStatus(s.run, s.state, s.message.toStdString());
  const auto d = runs_.value(s.run);
  runs_table_->updateRun(runRow(d, s));
  if ((s.state == RunState::Failed || s.state == RunState::Diverged) && !s.message.isEmpty()) {
    showStatus(d.model + ": " + s.message, 8000);
  }
  bool diverged = false;
  for (const auto& st : statuses_) diverged = diverged || st.state == RunState::Diverged;
  restore_action_->setEnabled(diverged);
  updateStatusBar();
  if (!active_preset_.isEmpty() && s.state != RunState::Running && s.state != RunState::Idle)
    judgePreset();
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
  inspector_->addSnapshot(snapshot.run, snapshot.step, snapshot.record, snapshot.input);
}

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
