// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/session_controller.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <cmath>
#include <map>

#include "app/gui/csv_importer.h"
#include "app/gui/figure_focus.h"
#include "app/gui/sweep_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_worker.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/session/run_record.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/inspector_panel.h"
#include "widgets/loss_curve_view.h"
#include "widgets/run_setup_panel.h"
#include "widgets/run_store.h"

namespace rsalab {

namespace {

constexpr int kMaxRecent = 8;

}  // namespace

SessionController::SessionController(const SessionViews& views, QObject* parent)
    : QObject(parent), v_(views), autosave_timer_(new QTimer(this)) {
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
    saveAs();
  else
    saveTo(path_);
}

void SessionController::saveAs() {
  const QString start =
      QSettings().value("paths/session", QDir::homePath()).toString() + "/session.rsalab";
  const QString path = QFileDialog::getSaveFileName(v_.window, "Save session as", start,
                                                    "RSA Lab session (*.rsalab)");
  if (!path.isEmpty()) saveTo(path);
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
  const QByteArray layout = v_.focus->layoutState();
  b.layout.assign(layout.constData(), static_cast<size_t>(layout.size()));
  const SnapshotHistory& history = v_.inspector->history();
  for (SessionRun& run : b.runs) {
    // The recorder holds the live runs, or an opened bundle's.
    const RunId id = offline_ ? RunId(RunSource::Session, run.id) : RunId(run.id);
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
    emit log("A save is already in progress; try again in a moment.");
    return;
  }
  saving_ = true;
  if (recorder_.created().empty()) recorder_.setCreated(utcTimestamp());
  const SessionBundle bundle = this->bundle();
  const bool with_checkpoints = !offline_;
  TrainingWorker* worker = v_.training->worker();
  emit status("Saving " + path + " …", 0);
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
                  v_.window->setWindowTitle(
                      QString("RSA Lab — %1[*]").arg(QFileInfo(written).fileName()));
                  v_.window->setWindowModified(false);
                }
                emit status("Saved " + written, 5000);
                emit log((autosaved ? "Autosaved " : "Saved session ") + written);
              } else {
                emit status("Save failed: " + error, 10000);
                emit log("Save failed (the previous session is intact): " + error);
              }
              emit saved(written, error);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void SessionController::autosave() {
  if (!training_ || saving_) return;
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
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, v_.window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // not exec(): nothing waits on it
    return false;
  };
  if (training_) return refuse("Open session", "Stop training before opening another session.");
  SessionBundle b;
  try {
    b = loadSession(path.toStdString());
  } catch (const std::exception& e) {
    emit log(QString("Cannot open %1: %2").arg(path, e.what()));
    emit status(QString("Cannot open session: %1").arg(e.what()), 10000);
    return refuse("Open session", QString::fromUtf8(e.what()));
  }
  recorder_.load(b);
  offline_ = true;
  showBundle(b);
  const int sweep_runs = static_cast<int>(b.sweep.rows.size());  // parsed once, by loadSession
  path_ = QString::fromStdString(sessionBundlePath(path.toStdString()));
  const bool recovered = QString::fromStdString(b.loaded_from) != path_;
  addRecent(path_);
  v_.window->setWindowTitle(QString("RSA Lab — %1[*]").arg(QFileInfo(path_).fileName()));
  v_.window->setWindowModified(recovered);
  emit log(QString("Opened session %1: %2 run(s)%3%4")
               .arg(path_)
               .arg(b.runs.size())
               .arg(sweep_runs == 0 ? QString() : QString(", sweep of %1 runs").arg(sweep_runs))
               .arg(recovered ? QString(" (recovered from %1 after an interrupted save)")
                                    .arg(QString::fromStdString(b.loaded_from))
                              : QString()));
  // The tuned configurations the runs trained at travel with them (SessionBundle::tuned).
  if (!b.tuned.empty()) {
    emit log(
        QString("Configurations: %1").arg(QString::fromStdString(tunedLabel(b.tuned, &b.config))));
    for (const auto& line : tunedLines(b.tuned)) emit log("  " + QString::fromStdString(line));
  }
  if (!b.sweep_json.empty()) {
    // A sweep session (e.g. `rsalab-cli sweep --session DIR`) opens on its figures, focused
    // (SweepPanel::resultsOpened), from the rows loadSession has read.
    v_.sweeps->openResult(b.sweep, "sweep.json", QDir(path_).filePath("sweep.json"));
  }
  return true;
}

void SessionController::showBundle(const SessionBundle& b) {
  // The picture: runs table, curves, inspector history, REM curves, layout.
  v_.curves->clear();
  v_.runs->clear();
  v_.inspector->clear();
  RunId inspect;  // the first run with REMs and snapshots, else the first run
  const std::vector<Run> runs = runsOfSession(b);
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const SessionRun& r = b.runs[i];
    v_.runs->add(run);
    // Sweeps vary N per run: say which N a curve is.
    const QString size =
        r.train_size > 0 && (r.train_size != b.config.train_size || !b.sweep_json.empty())
            ? QString(" N=%1").arg(r.train_size)
            : QString();
    v_.curves->addRun(run.id,
                      QString("%1%2 s%3").arg(QString::fromStdString(r.model), size).arg(r.seed),
                      v_.runs->colorOf(run.id));
    v_.curves->setReferenceLines(run.id, referenceLines(run.what));
    std::map<int64_t, int64_t> seen;  // step → samples seen (bundles keep it for train steps)
    for (const auto& m : r.steps) {
      seen[m.step] = m.samples_seen;
      v_.curves->appendTrain(run.id, double(m.step), double(m.samples_seen), m.train_loss);
    }
    for (const auto& e : r.evals) {
      if (e.split != Split::Validation) continue;
      // Bundles written before evaluations carried samples_seen: the train step's count.
      const auto at = seen.find(e.step);
      const int64_t samples = e.samples_seen > 0 || at == seen.end() ? e.samples_seen : at->second;
      v_.curves->appendValidation(run.id, double(e.step), double(samples), e.loss);
    }
    for (const auto& [step, record] : r.snapshots) v_.inspector->addRecord(run.id, step, record);
    const ModelCard* info = findModel(r.model);
    if (!inspect.valid() && info && info->has(HasRems) && !r.snapshots.empty()) inspect = run.id;
  }
  if (!inspect.valid() && !runs.empty()) inspect = runs.front().id;
  v_.curves->fitAll();
  applyBundleToPanels(b);
  v_.focus->leave();  // the bundle's layout replaces the one focus mode would restore
  if (!b.layout.empty())
    v_.focus->restoreLayout(QByteArray(b.layout.data(), static_cast<int>(b.layout.size())));
  v_.inspector->showRun(inspect);
}

void SessionController::applyBundleToPanels(const SessionBundle& b) {
  const RunConfig& c = b.config;
  RunSetup s;
  s.config = c;
  for (const auto& m : b.models) s.models << QString::fromStdString(m);
  s.seeds = static_cast<int>(std::max<int64_t>(1, b.seeds));
  if (readsCsvPath(c.task.name)) {
    v_.csv->setTask(QString::fromStdString(c.task.csv_path), static_cast<int>(c.task.horizon),
                    false);
  }
  v_.setup->setSetup(s);
  v_.hyper->setConfig(c);
}

void SessionController::showSweepRun(const SweepRow& row) {
  v_.focus->leave();  // its curves go to the loss dock
  const Run run = runOfSweepRow(row, v_.sweeps->referenceRows());
  const RunId id = run.id;
  const QString model = QString::fromStdString(row.model);
  v_.runs->add(run);
  LossCurveView* curves = v_.curves;
  curves->removeRun(id);
  curves->addRun(id, QString("%1 N=%2 s%3 (sweep)").arg(model).arg(row.size).arg(row.seed),
                 v_.runs->colorOf(id));
  curves->setReferenceLines(id, referenceLines(run.what));
  // Every point from the run's folder where the sweep kept one; else the thinned curves in memory.
  SessionRun full;
  full.steps = row.train_curve;
  full.evals = row.validation_curve;
  InspectionRecord inspection = row.inspection;
  QString problem;
  if (!row.files.empty()) {
    const std::string metrics = row.files + "/metrics.csv";
    try {
      full = {};
      parseSessionMetricsCsv(readTextFile(metrics, 1ull << 30), metrics, full);
      if (row.has_inspection) {
        const std::string file = row.files + "/inspection.json";
        inspection = inspectionFromJson(readTextFile(file, 1ull << 30), file);
      }
    } catch (const std::exception& e) {
      problem = QString::fromUtf8(e.what());
      full.steps = row.train_curve;
      full.evals = row.validation_curve;
    }
  }
  for (const auto& m : full.steps) curves->appendStep(id, m);
  for (const auto& e : full.evals) curves->appendEvaluation(id, e);
  curves->fitAll();
  QString what = full.steps.empty() ? "no curves stored"
                                    : QString("%1 steps of curves").arg(full.steps.size());
  if (row.has_inspection && problem.isEmpty()) {
    v_.inspector->addRecord(id, row.steps, inspection);
    v_.inspector->tabs()->setCurrentIndex(InspectorPanel::kInspectorTab);
    v_.inspector->showRun(id);
    what += ", inspector at the last step";
  }
  if (!problem.isEmpty()) what += "; its folder could not be read: " + problem;
  emit log(QString("Opened sweep run %1 N=%2 seed %3: test loss %4 (%5).")
               .arg(model)
               .arg(row.size)
               .arg(row.seed)
               .arg(QString::number(row.test_loss, 'g', 3))
               .arg(what));
}

}  // namespace rsalab
