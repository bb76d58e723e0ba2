// MainWindow, sessions: open (File → Open, Recent sessions, a dropped folder, `rsalab --session`),
// save and save as on the worker thread, autosave, and the recent-sessions list. What a save
// writes is assembled by the SessionRecorder (core/session/session_recorder.h), the same assembler
// rsalab-cli's `train --session` and `sweep --session` use.
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <cmath>
#include <map>

#include "core/config/enums.h"
#include "core/registry/model_registry.h"
#include "gui/main_window.h"
#include "gui/sweep_panel.h"
#include "gui/training_controller.h"
#include "gui/training_worker.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/loss_curve_view.h"
#include "widgets/run_palette.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"

namespace rsalab {

namespace {

constexpr int kMaxRecent = 8;

}  // namespace

QStringList MainWindow::recentSessions() const {
  return QSettings().value("session/recent").toStringList();
}

void MainWindow::addRecent(const QString& path) {
  QStringList list = recentSessions();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings s;
  s.setValue("session/recent", list);
  s.setValue("paths/session", QFileInfo(absolute).absolutePath());
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList list = recentSessions();
  for (const QString& path : list) {
    recent_menu_->addAction(QFileInfo(path).fileName() + "  —  " + QFileInfo(path).absolutePath(),
                            this, [this, path] { openSession(path); });
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

SessionBundle MainWindow::sessionBundle() const {
  SessionBundle b = recorder_.bundle();
  const QByteArray layout = layoutState();
  b.layout.assign(layout.constData(), static_cast<size_t>(layout.size()));
  const SnapshotHistory& history = inspector_->history();
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

void MainWindow::saveSessionTo(const QString& path_in) {
  const QString path = QString::fromStdString(
      sessionBundlePath((path_in.isEmpty() ? session_path_ : path_in).toStdString()));
  if (path.isEmpty() || path == ".rsalab") return;
  if (saving_) {
    appendLog("A save is already in progress; try again in a moment.");
    return;
  }
  saving_ = true;
  if (recorder_.created().empty()) recorder_.setCreated(utcTimestamp());
  const SessionBundle bundle = sessionBundle();
  const bool with_checkpoints = !offline_;
  TrainingWorker* worker = controller_->worker();
  showStatus("Saving " + path + " …");
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
                  session_path_ = written;
                  addRecent(written);
                  setWindowTitle(QString("RSA Lab — %1[*]").arg(QFileInfo(written).fileName()));
                  setWindowModified(false);
                }
                showStatus("Saved " + written, 5000);
                appendLog((autosaved ? "Autosaved " : "Saved session ") + written);
              } else {
                showStatus("Save failed: " + error, 10000);
                appendLog("Save failed (the previous session is intact): " + error);
              }
              emit sessionSaved(written, error);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void MainWindow::autosave() {
  if (!training_ || saving_) return;
  QString path = session_path_;
  if (path.isEmpty()) {
    const QString dir =
        QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/autosave";
    QDir().mkpath(dir);
    path = dir + "/untitled.rsalab";
  }
  saveSessionTo(path);
}

bool MainWindow::openSession(const QString& path, QString* error) {
  auto refuse = [&](const QString& title, const QString& message) {
    if (error) {
      *error = message;
      return false;
    }
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // not exec(): nothing waits on it
    return false;
  };
  if (training_) return refuse("Open session", "Stop training before opening another session.");
  SessionBundle b;
  try {
    b = loadSession(path.toStdString());
  } catch (const std::exception& e) {
    appendLog(QString("Cannot open %1: %2").arg(path, e.what()));
    showStatus(QString("Cannot open session: %1").arg(e.what()), 10000);
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
      appendLog(QString("sweep.json: %1").arg(e.what()));
    }
  }
  session_path_ = QString::fromStdString(sessionBundlePath(path.toStdString()));
  const bool recovered = QString::fromStdString(b.loaded_from) != session_path_;
  addRecent(session_path_);
  setWindowTitle(QString("RSA Lab — %1[*]").arg(QFileInfo(session_path_).fileName()));
  setWindowModified(recovered);
  appendLog(QString("Opened session %1: %2 run(s)%3%4")
                .arg(session_path_)
                .arg(b.runs.size())
                .arg(sweep_runs == 0 ? QString() : QString(", sweep of %1 runs").arg(sweep_runs))
                .arg(recovered ? QString(" (recovered from %1 after an interrupted save)")
                                     .arg(QString::fromStdString(b.loaded_from))
                               : QString()));
  if (!b.sweep_json.empty()) {
    // A sweep session (e.g. `rsalab-cli sweep --session DIR`) opens on its figures, focused
    // (resultsOpened: showSweepFigures).
    QString sweep_error;
    if (!sweep_panel_->loadResults(QDir(session_path_).filePath("sweep.json"), &sweep_error) &&
        !sweep_error.isEmpty())
      appendLog(sweep_error);
    emit sessionSweepLoaded(QByteArray::fromStdString(b.sweep_json));
  }
  return true;
}

void MainWindow::showBundle(const SessionBundle& b) {
  // The picture: runs table, curves, inspector history, REM curves, layout.
  curves_->clear();
  runs_.clear();
  statuses_.clear();
  inspector_->clear();
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
    runs_[id] = d;
    inspector_->setRunInfo(id, inspectedRunInfo(d));
    // Sweeps vary N per run: say which N a curve is.
    const QString size =
        r.train_size > 0 && (r.train_size != b.config.train_size || !b.sweep_json.empty())
            ? QString(" N=%1").arg(r.train_size)
            : QString();
    curves_->addRun(id, QString("%1%2 s%3").arg(d.model, size).arg(d.seed), runColor(id));
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
      curves_->appendTrain(id, double(m.step), double(m.samples_seen), m.train_loss);
      st.step = std::max<qint64>(st.step, m.step);
      st.train_loss = m.train_loss;
    }
    for (const auto& e : r.evals) {
      if (e.split != Split::Validation) continue;
      // Bundles written before evaluations carried samples_seen: the train step's count.
      const auto at = seen.find(e.step);
      const int64_t samples = e.samples_seen > 0 || at == seen.end() ? e.samples_seen : at->second;
      curves_->appendValidation(id, double(e.step), double(samples), e.loss);
      st.validation_loss = e.loss;
    }
    statuses_[id] = st;
    for (const auto& [step, record] : r.snapshots) inspector_->addRecord(id, step, record);
    rows.push_back(runRow(d, st));
    const ModelInfo* info = findModel(r.model);
    if (inspect < 0 && info && info->has_rems && !r.snapshots.empty()) inspect = id;
  }
  if (inspect < 0 && !b.runs.empty()) inspect = static_cast<int>(b.runs.front().id);
  runs_table_->setRuns(rows);
  for (const auto& row : rows) runs_table_->updateRun(row);
  curves_->fitAll();
  applyBundleToPanels(b);
  leaveFigureFocus();  // the bundle's layout replaces the one focus mode would restore
  if (!b.layout.empty())
    restoreState(QByteArray(b.layout.data(), static_cast<int>(b.layout.size())), kLayoutVersion);
  inspector_->showRun(inspect);
}

void MainWindow::applyBundleToPanels(const SessionBundle& b) {
  const RunConfig& c = b.config;
  RunSetup s;
  s.config = c;
  for (const auto& m : b.models) s.models << QString::fromStdString(m);
  s.seeds = static_cast<int>(std::max<int64_t>(1, b.seeds));
  if (c.task.name == "csv") {
    csv_path_ = QString::fromStdString(c.task.csv_path);
    csv_horizon_ = static_cast<int>(c.task.horizon);
    setup_->addTask("csv", "CSV series: " + QFileInfo(csv_path_).fileName());
  }
  setup_->setSetup(s);
  hyper_->setConfig(c);
}

}  // namespace rsalab
