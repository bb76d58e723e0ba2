// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/session_controller.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <cmath>
#include <map>

#include "app/gui/main_window.h"
#include "app/gui/sweep_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_worker.h"
#include "app/gui/window_settings.h"
#include "engine/core/io/enums.h"
#include "engine/core/registry/model_registry.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/loss_curve_view.h"
#include "widgets/run_palette.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {

constexpr int kMaxRecent = 8;

}  // namespace

SessionController::SessionController(MainWindow* window)
    : QObject(window), w_(window), autosave_timer_(new QTimer(this)) {
  connect(autosave_timer_, &QTimer::timeout, this, &SessionController::autosave);
}

void SessionController::setRecentMenu(QMenu* menu) {
  recent_menu_ = menu;
  rebuildRecentMenu();
}

void SessionController::setAutosaveMinutes(int minutes) {
  if (minutes > 0)
    autosave_timer_->start(minutes * 60 * 1000);
  else
    autosave_timer_->stop();
}

void SessionController::saveOrAsk() {
  if (path_.isEmpty())
    w_->settings_->saveAs();
  else
    saveTo(path_);
}

QStringList SessionController::recent() const {
  return QSettings().value("session/recent").toStringList();
}

void SessionController::addRecent(const QString& path) {
  QStringList list = recent();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings s;
  s.setValue("session/recent", list);
  s.setValue("paths/session", QFileInfo(absolute).absolutePath());
  rebuildRecentMenu();
}

void SessionController::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList list = recent();
  for (const QString& path : list) {
    recent_menu_->addAction(QFileInfo(path).fileName() + "  —  " + QFileInfo(path).absolutePath(),
                            this, [this, path] { open(path); });
  }
  recent_menu_->setEnabled(!list.isEmpty());
  if (!list.isEmpty()) {
    recent_menu_->addSeparator();
    recent_menu_->addAction("Clear list", this, [this] {
      QSettings().remove("session/recent");
      rebuildRecentMenu();
    });
  }
}

// ---- Session contents

SessionBundle SessionController::bundle() const {
  SessionBundle b = recorder_.bundle();
  const QByteArray layout = w_->focus_->layoutState();
  b.layout.assign(layout.constData(), static_cast<size_t>(layout.size()));
  const SnapshotHistory& history = w_->inspector_->history();
  for (SessionRun& run : b.runs) {
    const int id = static_cast<int>(run.id);
    const auto steps = history.steps(id);
    run.snapshots.clear();
    for (int64_t step : thinnedSteps({steps.begin(), steps.end()}, kSnapshotsPerRunSaved)) {
      if (const InspectionRecord* rec = history.at(id, step))
        run.snapshots.emplace_back(step, *rec);
    }
  }
  return b;
}

void SessionController::saveTo(const QString& path_in) {
  const QString path = QString::fromStdString(
      sessionBundlePath((path_in.isEmpty() ? path_ : path_in).toStdString()));
  if (path.isEmpty() || path == ".rsalab") return;
  if (saving_) {
    w_->appendLog("A save is already in progress; try again in a moment.");
    return;
  }
  saving_ = true;
  if (recorder_.created().empty()) recorder_.setCreated(utcTimestamp());
  const SessionBundle bundle = this->bundle();
  const bool with_checkpoints = !offline_;
  TrainingWorker* worker = w_->controller_->worker();
  w_->showStatus("Saving " + path + " …");
  // Runs on the worker thread between steps: the checkpoints need the live Trainers.
  QMetaObject::invokeMethod(
      worker,
      [this, worker, bundle, path, with_checkpoints] {
        QString error, written = path;
        try {
          written = QString::fromStdString(
              worker->saveSession(bundle, path.toStdString(), with_checkpoints));
        } catch (const std::exception& e) {
          error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, written, error] {
              saving_ = false;
              if (error.isEmpty()) {
                const bool autosaved = written.contains("/autosave/");
                if (!autosaved) {
                  path_ = written;
                  addRecent(written);
                  w_->setWindowTitle(QString("RSA Lab — %1[*]").arg(QFileInfo(written).fileName()));
                  w_->setWindowModified(false);
                }
                w_->showStatus("Saved " + written, 5000);
                w_->appendLog((autosaved ? "Autosaved " : "Saved session ") + written);
              } else {
                w_->showStatus("Save failed: " + error, 10000);
                w_->appendLog("Save failed (the previous session is intact): " + error);
              }
              emit w_->sessionSaved(written, error);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void SessionController::autosave() {
  if (!w_->training_ || saving_) return;
  QString path = path_;
  if (path.isEmpty()) {
    const QString dir =
        QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/autosave";
    QDir().mkpath(dir);
    path = dir + "/untitled.rsalab";
  }
  saveTo(path);
}

bool SessionController::open(const QString& path, QString* error) {
  auto refuse = [&](const QString& title, const QString& message) {
    if (error) {
      *error = message;
      return false;
    }
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, w_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // not exec(): nothing waits on it
    return false;
  };
  if (w_->training_) return refuse("Open session", "Stop training before opening another session.");
  SessionBundle b;
  try {
    b = loadSession(path.toStdString());
  } catch (const std::exception& e) {
    w_->appendLog(QString("Cannot open %1: %2").arg(path, e.what()));
    w_->showStatus(QString("Cannot open session: %1").arg(e.what()), 10000);
    return refuse("Open session", QString::fromUtf8(e.what()));
  }
  recorder_.load(b);
  offline_ = true;
  showBundle(b);
  int sweep_runs = 0;
  if (!b.sweep_json.empty()) {
    try {
      sweep_runs = static_cast<int>(parseSessionSweepRows(b.sweep_json).size());
    } catch (const std::exception& e) {
      w_->appendLog(QString("sweep.json: %1").arg(e.what()));
    }
  }
  path_ = QString::fromStdString(sessionBundlePath(path.toStdString()));
  const bool recovered = QString::fromStdString(b.loaded_from) != path_;
  addRecent(path_);
  w_->setWindowTitle(QString("RSA Lab — %1[*]").arg(QFileInfo(path_).fileName()));
  w_->setWindowModified(recovered);
  w_->appendLog(
      QString("Opened session %1: %2 run(s)%3%4")
          .arg(path_)
          .arg(b.runs.size())
          .arg(sweep_runs == 0 ? QString() : QString(", sweep of %1 runs").arg(sweep_runs))
          .arg(recovered ? QString(" (recovered from %1 after an interrupted save)")
                               .arg(QString::fromStdString(b.loaded_from))
                         : QString()));
  if (!b.sweep_json.empty()) {
    // A sweep session (e.g. `rsalab-cli sweep --session DIR`) opens on its figures, focused
    // (resultsOpened: showSweepFigures).
    QString sweep_error;
    if (!w_->sweep_panel_->loadResults(QDir(path_).filePath("sweep.json"), &sweep_error) &&
        !sweep_error.isEmpty())
      w_->appendLog(sweep_error);
    emit w_->sessionSweepLoaded(QByteArray::fromStdString(b.sweep_json));
  }
  return true;
}

void SessionController::showBundle(const SessionBundle& b) {
  // The picture: runs table, curves, inspector history, REM curves, layout.
  w_->curves_->clear();
  w_->runs_.clear();
  w_->inspector_->clear();
  int inspect = -1;  // the first run with REMs and snapshots, else the first run
  QVector<RunRow> rows;
  for (const auto& r : b.runs) {
    const int id = static_cast<int>(r.id);
    RunDescriptor d;
    d.id = id;
    d.model = QString::fromStdString(r.model);
    d.seed = r.seed;
    d.parameters = r.parameters;
    d.train_size = r.train_size;
    d.references = b.references;  // the skill, its interval and the reference lines
    d.horizon = b.horizon;
    d.season = b.season;
    w_->runs_.add(d);
    w_->inspector_->setRunInfo(id, RunStore::inspectedRunInfo(d));
    // Sweeps vary N per run: say which N a curve is.
    const QString size =
        r.train_size > 0 && (r.train_size != b.config.train_size || !b.sweep_json.empty())
            ? QString(" N=%1").arg(r.train_size)
            : QString();
    w_->curves_->addRun(id, QString("%1%2 s%3").arg(d.model, size).arg(d.seed), runColor(id));
    RunStatus st;
    st.run = id;
    st.state = r.status;
    st.message = QString::fromStdString(r.message);
    st.max_steps = b.config.trainer.max_steps;
    st.validation_loss = NAN;
    st.train_loss = NAN;
    std::map<int64_t, int64_t> seen;  // step → samples seen (bundles keep it for train steps)
    for (const auto& m : r.steps) {
      seen[m.step] = m.samples_seen;
      w_->curves_->appendTrain(id, double(m.step), double(m.samples_seen), m.train_loss);
      st.step = std::max<qint64>(st.step, m.step);
      st.train_loss = m.train_loss;
    }
    for (const auto& e : r.evals) {
      if (e.split != Split::Validation) continue;
      // Bundles written before evaluations carried samples_seen: the train step's count.
      const auto at = seen.find(e.step);
      const int64_t samples = e.samples_seen > 0 || at == seen.end() ? e.samples_seen : at->second;
      w_->curves_->appendValidation(id, double(e.step), double(samples), e.loss);
      st.validation_loss = e.loss;
    }
    if (!r.test_errors.empty()) {  // tested: its skill on test, with the interval
      double sum = 0;
      for (double e : r.test_errors) sum += e;
      st.test_loss = sum / static_cast<double>(r.test_errors.size());
      st.test_errors = r.test_errors;
    }
    w_->runs_.setStatus(st);
    for (const auto& [step, record] : r.snapshots) w_->inspector_->addRecord(id, step, record);
    rows.push_back(RunStore::row(d, st));
    const ModelInfo* info = findModel(r.model);
    if (inspect < 0 && info && info->has_rems && !r.snapshots.empty()) inspect = id;
  }
  if (inspect < 0 && !b.runs.empty()) inspect = static_cast<int>(b.runs.front().id);
  w_->runs_table_->setRuns(rows);
  for (const auto& row : rows) w_->runs_table_->updateRun(row);
  w_->curves_->fitAll();
  applyBundleToPanels(b);
  w_->focus_->leave();  // the bundle's layout replaces the one focus mode would restore
  if (!b.layout.empty())
    w_->restoreState(QByteArray(b.layout.data(), static_cast<int>(b.layout.size())),
                     MainWindow::kLayoutVersion);
  w_->inspector_->showRun(inspect);
}

void SessionController::applyBundleToPanels(const SessionBundle& b) {
  const RunConfig& c = b.config;
  RunSetup s;
  s.config = c;
  for (const auto& m : b.models) s.models << QString::fromStdString(m);
  s.seeds = static_cast<int>(std::max<int64_t>(1, b.seeds));
  if (readsCsvPath(c.task.name)) {
    w_->csv_->setTask(QString::fromStdString(c.task.csv_path), static_cast<int>(c.task.horizon),
                      false);
  }
  w_->setup_->setSetup(s);
  w_->hyper_->setConfig(c);
}

void SessionController::showSweepRun(const SweepRow& row) {
  w_->focus_->leave();                   // its curves go to the loss dock
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
  w_->runs_.add(d);
  w_->inspector_->setRunInfo(id, RunStore::inspectedRunInfo(d));
  LossCurveView* curves = w_->curves_;
  curves->removeRun(id);
  curves->addRun(id, QString("%1 N=%2 s%3 (sweep)").arg(model).arg(row.size).arg(row.seed),
                 SampleEfficiencyView::modelColor(model));
  for (const auto& m : row.train_curve) curves->appendStep(id, m);
  for (const auto& e : row.validation_curve) curves->appendEvaluation(id, e);
  curves->fitAll();
  QString what = row.train_curve.empty()
                     ? "no curves stored"
                     : QString("%1 steps of curves").arg(row.train_curve.size());
  if (row.has_inspection) {
    w_->inspector_->addRecord(id, row.steps, row.inspection);
    w_->tabs_->setCurrentIndex(InspectorPanel::kInspectorTab);
    w_->inspector_->showRun(id);
    what += ", inspector at the last step";
  }
  w_->appendLog(QString("Opened sweep run %1 N=%2 seed %3: test loss %4 (%5).")
                    .arg(model)
                    .arg(row.size)
                    .arg(row.seed)
                    .arg(QString::number(row.test_loss, 'g', 3))
                    .arg(what));
}

}  // namespace rsalab
