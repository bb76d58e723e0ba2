// MainWindow, part two: sessions (open/save/save as/recent/autosave, `rsalab --session`), the
// settings kept in QSettings, standard shortcuts with Help → Keyboard shortcuts, Preferences, and
// CSV drag and drop. Kept apart from main_window.cpp, which wires training and the views.
//
// QSettings keys: window/geometry, window/state + window/state_version (saveState with
// MainWindow::kLayoutVersion; another version is ignored), appearance/theme (system|light|dark),
// session/autosave_minutes, session/recent (newest first, at most 8), paths/session, paths/csv
// (last folders; paths/export is PlotExport's).
#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <cmath>

#include "app/main_window.h"
#include "app/sweep_panel.h"
#include "app/training_controller.h"
#include "app/training_worker.h"
#include "engine/tasks/csv_reader.h"
#include "widgets/csv_import_dialog.h"
#include "widgets/hyper_parameter_form.h"
#include "widgets/loss_curve_view.h"
#include "widgets/plot_export.h"
#include "widgets/run_palette.h"
#include "widgets/run_setup_panel.h"
#include "widgets/runs_table.h"
#include "widgets/shortcuts_dialog.h"

namespace rsalab {

namespace {

constexpr int kMaxRecent = 8;

// The records to keep: the newest and an even thinning of the rest, at most `cap`.
std::vector<qint64> thinnedSteps(const std::vector<qint64>& steps, int cap) {
  if (static_cast<int>(steps.size()) <= cap) return steps;
  std::vector<qint64> out;
  for (int k = 0; k < cap; ++k) {
    const size_t i =
        static_cast<size_t>(std::llround(double(k) * double(steps.size() - 1) / double(cap - 1)));
    if (out.empty() || out.back() != steps[i]) out.push_back(steps[i]);
  }
  return out;
}

// A standard key's bindings on this platform, or `fallback` where the platform has none (e.g.
// Preferences and Full screen on some X11 desktops).
QList<QKeySequence> bindings(QKeySequence::StandardKey key, const QKeySequence& fallback) {
  auto list = QKeySequence::keyBindings(key);
  if (list.isEmpty() && !fallback.isEmpty()) list << fallback;
  return list;
}

}  // namespace

// ---- Actions and menus

void MainWindow::buildSessionActions() {
  setAcceptDrops(true);
  auto standard = [this](QMenu* menu, const QString& text, QKeySequence::StandardKey key,
                         const QKeySequence& fallback, auto slot) {
    QAction* a = menu->addAction(text, this, slot);
    a->setShortcuts(bindings(key, fallback));
    standard_actions_[key] = a;
    return a;
  };
  standard(file_menu_, "&Open session…", QKeySequence::Open, {}, [this] {
    const QString dir = QFileDialog::getExistingDirectory(
        this, "Open session (a .rsalab folder)",
        QSettings().value("paths/session", QDir::homePath()).toString());
    if (!dir.isEmpty()) openSession(dir);
  });
  recent_menu_ = file_menu_->addMenu("Recent sessions");
  rebuildRecentMenu();
  file_menu_->addSeparator();
  standard(file_menu_, "&Save session", QKeySequence::Save, {}, [this] {
    if (session_path_.isEmpty())
      standard_actions_[QKeySequence::SaveAs]->trigger();
    else
      saveSessionTo(session_path_);
  });
  standard(
      file_menu_, "Save session &as…", QKeySequence::SaveAs, QKeySequence("Ctrl+Shift+S"), [this] {
        const QString start =
            QSettings().value("paths/session", QDir::homePath()).toString() + "/session.rsalab";
        const QString path = QFileDialog::getSaveFileName(this, "Save session as", start,
                                                          "RSA Lab session (*.rsalab)");
        if (!path.isEmpty()) saveSessionTo(path);
      });
  file_menu_->addSeparator();
  file_menu_->addAction("&Import CSV series…", this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, "Import a CSV time series",
                                     QSettings().value("paths/csv", QDir::homePath()).toString(),
                                     "CSV (*.csv *.tsv *.txt);;All files (*)");
    if (!path.isEmpty()) importCsv(path);  // also: drop the file onto the window
  });
  file_menu_->addSeparator();
  standard(file_menu_, "&Quit", QKeySequence::Quit, QKeySequence("Ctrl+Q"), [this] { close(); });

  auto* edit = new QMenu("&Edit", this);
  menuBar()->insertMenu(menuBar()->actions().value(1), edit);  // after File
  standard(edit, "&Copy", QKeySequence::Copy, {}, [this] { copyFocused(); });
  edit->addSeparator();
  standard(edit, "&Preferences…", QKeySequence::Preferences, QKeySequence("Ctrl+,"), [this] {
    PreferencesDialog dialog(preferences(), this);
    if (dialog.exec() == QDialog::Accepted) setPreferences(dialog.preferences());
  });

  QMenu* view = nullptr;
  for (auto* a : menuBar()->actions()) {
    if (a->menu() && a->text() == "&View") view = a->menu();
  }
  if (!view) view = menuBar()->addMenu("&View");
  view->addSeparator();
  standard(view, "Zoom &in", QKeySequence::ZoomIn, {}, [this] { zoomFocusedPlot(0.8); });
  standard(view, "Zoom &out", QKeySequence::ZoomOut, {}, [this] { zoomFocusedPlot(1.25); });
  QAction* full =
      standard(view, "&Full screen", QKeySequence::FullScreen, QKeySequence(Qt::Key_F11),
               [this] { setWindowState(windowState() ^ Qt::WindowFullScreen); });
  full->setCheckable(true);
  for (QAction* a : standard_actions_) a->setShortcutContext(Qt::WindowShortcut);

  auto* help = menuBar()->addMenu("&Help");
  help->addAction("&Keyboard shortcuts", this, [this] {
    ShortcutsDialog dialog(shortcutActions(), this);
    dialog.exec();
  });

  autosave_timer_ = new QTimer(this);
  connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosave);
}

QList<QAction*> MainWindow::shortcutActions() const {
  QList<QAction*> out;
  for (QAction* a : findChildren<QAction*>()) {
    if (!a->shortcuts().isEmpty()) out << a;
  }
  return out;
}

// ---- Settings

Preferences MainWindow::preferences() const {
  QSettings s;
  Preferences p;
  p.theme = s.value("appearance/theme", p.theme).toString();
  p.autosave_minutes = s.value("session/autosave_minutes", p.autosave_minutes).toInt();
  return p;
}

void MainWindow::setPreferences(const Preferences& p) {
  QSettings s;
  s.setValue("appearance/theme", p.theme);
  s.setValue("session/autosave_minutes", p.autosave_minutes);
  applyTheme(p.theme);
  if (p.autosave_minutes > 0)
    autosave_timer_->start(p.autosave_minutes * 60 * 1000);
  else
    autosave_timer_->stop();
}

void MainWindow::restoreSettings() {
  QSettings s;
  if (s.contains("window/geometry")) restoreGeometry(s.value("window/geometry").toByteArray());
  if (s.value("window/state_version").toInt() == kLayoutVersion) {
    restoreState(s.value("window/state").toByteArray(), kLayoutVersion);
  }
  const Preferences p = preferences();
  if (p.theme != "system") applyTheme(p.theme);
  if (p.autosave_minutes > 0) autosave_timer_->start(p.autosave_minutes * 60 * 1000);
}

void MainWindow::storeSettings() {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState(kLayoutVersion));
  s.setValue("window/state_version", kLayoutVersion);
}

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

void MainWindow::noteSessionStart(const RunConfig& config, const QStringList& models, int seeds) {
  session_config_ = config;
  session_models_ = models;
  session_seeds_ = seeds;
  offline_ = false;
  checkpoint_files_.clear();
  sweep_json_.clear();
  sweep_rows_.clear();
}

void MainWindow::recordMetrics(const MetricsBatch& batch) {
  recorded_steps_[batch.run] += batch.steps;
  recorded_evals_[batch.run] += batch.evals;
  setWindowModified(true);
}

SessionBundle MainWindow::sessionBundle() const {
  SessionBundle b;
  b.config = session_config_;
  for (const auto& m : session_models_) b.models.push_back(m.toStdString());
  b.seeds = session_seeds_;
  b.created = session_created_.toStdString();
  b.sweep_json = sweep_json_.toStdString();
  const QByteArray layout = saveState(kLayoutVersion);
  b.layout.assign(layout.constData(), static_cast<size_t>(layout.size()));
  for (const auto& d : runs_) {
    SessionRun run;
    run.id = d.id;
    run.model = d.model.toStdString();
    run.seed = d.seed;
    run.parameters = d.parameters;
    const RunStatus status = statuses_.value(d.id);
    run.status = runStateName(status.state);
    run.message = status.message.toStdString();
    const auto steps = recorded_steps_.value(d.id);
    const auto evals = recorded_evals_.value(d.id);
    run.steps.assign(steps.begin(), steps.end());
    run.evals.assign(evals.begin(), evals.end());
    for (qint64 step : thinnedSteps(history_.steps(d.id), kSnapshotsPerRunSaved)) {
      if (const InspectionRecord* rec = history_.at(d.id, step))
        run.snapshots.emplace_back(step, *rec);
    }
    run.checkpoint_file = checkpoint_files_.value(d.id).toStdString();
    b.runs.push_back(std::move(run));
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
  if (session_created_.isEmpty()) session_created_ = QString::fromStdString(utcTimestamp());
  const SessionBundle bundle = sessionBundle();
  const bool with_checkpoints = !offline_;
  TrainingWorker* worker = controller_->worker();
  statusBar()->showMessage("Saving " + path + " …");
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
                statusBar()->showMessage("Saved " + written, 5000);
                appendLog((autosaved ? "Autosaved " : "Saved session ") + written);
              } else {
                statusBar()->showMessage("Save failed: " + error, 10000);
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

bool MainWindow::openSession(const QString& path) {
  if (training_) {
    QMessageBox::information(this, "Open session", "Stop training before opening another session.");
    return false;
  }
  SessionBundle b;
  try {
    b = loadSession(path.toStdString());
  } catch (const std::exception& e) {
    appendLog(QString("Cannot open %1: %2").arg(path, e.what()));
    statusBar()->showMessage(QString("Cannot open session: %1").arg(e.what()), 10000);
    auto* box = new QMessageBox(QMessageBox::Warning, "Open session", QString::fromUtf8(e.what()),
                                QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // not exec(): nothing waits on it
    return false;
  }
  // The picture: runs table, curves, inspector history, REM curves, layout.
  curves_->clear();
  runs_.clear();
  statuses_.clear();
  snapshots_.clear();
  history_.clear();
  recorded_steps_.clear();
  recorded_evals_.clear();
  checkpoint_files_.clear();
  inspected_run_ = -1;
  QVector<RunRow> rows;
  for (const auto& r : b.runs) {
    const int id = static_cast<int>(r.id);
    RunDescriptor d{id, QString::fromStdString(r.model), r.seed, r.parameters};
    runs_[id] = d;
    // Sweeps vary N per run: say which N a curve is.
    const QString size =
        r.train_size > 0 && (r.train_size != b.config.train_size || !b.sweep_json.empty())
            ? QString(" N=%1").arg(r.train_size)
            : QString();
    curves_->addRun(id, QString("%1%2 s%3").arg(d.model, size).arg(d.seed), runColor(id));
    RunStatus st;
    st.run = id;
    st.state = parseRunState(r.status).value_or(RunState::Idle);
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
      if (e.split != "validation") continue;
      const auto at = seen.find(e.step);
      const int64_t samples = e.samples_seen > 0 || at == seen.end() ? e.samples_seen : at->second;
      curves_->appendValidation(id, double(e.step), double(samples), e.loss);
      st.validation_loss = e.loss;
    }
    statuses_[id] = st;
    recorded_steps_[id] = QVector<StepMetrics>(r.steps.begin(), r.steps.end());
    recorded_evals_[id] = QVector<EvalMetrics>(r.evals.begin(), r.evals.end());
    for (const auto& [step, record] : r.snapshots) history_.insert(id, step, record);
    if (!r.snapshots.empty())
      snapshots_[id] = {id,
                        r.snapshots.back().first,
                        std::make_shared<const InspectionRecord>(r.snapshots.back().second),
                        {}};
    if (!r.checkpoint_file.empty())
      checkpoint_files_[id] = QString::fromStdString(r.checkpoint_file);
    rows.push_back(runRow(d, st));
    if (inspected_run_ < 0 && r.model == "rsa" && !r.snapshots.empty()) inspected_run_ = id;
  }
  if (inspected_run_ < 0 && !b.runs.empty()) inspected_run_ = static_cast<int>(b.runs.front().id);
  runs_table_->setRuns(rows);
  for (const auto& row : rows) runs_table_->updateRun(row);
  curves_->fitAll();
  applyBundleToPanels(b);
  if (!b.layout.empty())
    restoreState(QByteArray(b.layout.data(), static_cast<int>(b.layout.size())), kLayoutVersion);
  session_config_ = b.config;
  session_models_.clear();
  for (const auto& m : b.models) session_models_ << QString::fromStdString(m);
  session_seeds_ = static_cast<int>(b.seeds);
  session_created_ = QString::fromStdString(b.created);
  offline_ = true;
  sweep_json_ = QByteArray::fromStdString(b.sweep_json);
  sweep_rows_.clear();
  if (!b.sweep_json.empty()) {
    try {
      sweep_rows_ = parseSessionSweepRows(b.sweep_json);
    } catch (const std::exception& e) {
      appendLog(QString("sweep.json: %1").arg(e.what()));
    }
  }
  follow_latest_ = true;
  shown_step_ = -1;
  rebuildRemView();
  refreshScrubber();
  showSnapshot(inspected_run_);
  session_path_ = QString::fromStdString(sessionBundlePath(path.toStdString()));
  const bool recovered = QString::fromStdString(b.loaded_from) != session_path_;
  addRecent(session_path_);
  setWindowTitle(QString("RSA Lab — %1[*]").arg(QFileInfo(session_path_).fileName()));
  setWindowModified(recovered);
  appendLog(QString("Opened session %1: %2 run(s)%3%4")
                .arg(session_path_)
                .arg(b.runs.size())
                .arg(sweep_rows_.empty() ? QString()
                                         : QString(", sweep of %1 runs").arg(sweep_rows_.size()))
                .arg(recovered ? QString(" (recovered from %1 after an interrupted save)")
                                     .arg(QString::fromStdString(b.loaded_from))
                               : QString()));
  if (!sweep_json_.isEmpty()) {
    // A sweep session (e.g. `rsalab-cli sweep --session DIR`) opens on its sample-efficiency
    // figure.
    QString error;
    if (sweep_panel_ &&
        sweep_panel_->loadResults(QDir(session_path_).filePath("sweep.json"), &error)) {
      tabs_->setCurrentWidget(sweep_panel_);
    } else if (!error.isEmpty()) {
      appendLog(error);
    }
    emit sessionSweepLoaded(sweep_json_);
  }
  return true;
}

void MainWindow::applyBundleToPanels(const SessionBundle& b) {
  const RunConfig& c = b.config;
  RunSetup s;
  s.task = QString::fromStdString(c.task.name);
  for (const auto& m : b.models) s.models << QString::fromStdString(m);
  s.seeds = static_cast<int>(std::max<int64_t>(1, b.seeds));
  s.train_size = c.train_size;
  s.max_steps = c.trainer.max_steps;
  s.length = static_cast<int>(c.task.length);
  s.d_model = static_cast<int>(c.model.d_model);
  s.heads = static_cast<int>(c.model.heads);
  s.layers = static_cast<int>(c.model.layers);
  if (c.task.name == "csv") {
    csv_path_ = QString::fromStdString(c.task.csv_path);
    csv_horizon_ = static_cast<int>(c.task.horizon);
    setup_->addTask("csv", "CSV series: " + QFileInfo(csv_path_).fileName());
  }
  setup_->setSetup(s);
  hyper_->setConfig(c);
}

// ---- Copy and zoom act on the plot with the keyboard focus or under the mouse, else the curves.

QCustomPlot* MainWindow::focusedPlot() const {
  for (QWidget* w : {QApplication::focusWidget(), QApplication::widgetAt(QCursor::pos())}) {
    for (; w; w = w->parentWidget()) {
      if (auto* plot = qobject_cast<QCustomPlot*>(w)) return plot;
      if (w == this) break;
    }
  }
  return curves_->plot();
}

void MainWindow::zoomFocusedPlot(double factor) {
  QCustomPlot* plot = focusedPlot();
  if (plot == curves_->plot()) {
    const QCPRange r = plot->xAxis->range();
    curves_->setXRange(r.center() - r.size() * factor / 2, r.center() + r.size() * factor / 2);
    return;
  }
  for (QCPAxisRect* rect : plot->axisRects()) {
    for (QCPAxis* axis : rect->axes()) axis->scaleRange(factor);
  }
  plot->replot();
}

void MainWindow::copyFocused() {
  if (auto* edit = qobject_cast<QPlainTextEdit*>(QApplication::focusWidget())) {
    edit->copy();
    return;
  }
  QCustomPlot* plot = focusedPlot();
  if (PlotExport* exporter = PlotExport::of(plot))
    exporter->copyImage();
  else
    QApplication::clipboard()->setPixmap(plot->toPixmap());
  statusBar()->showMessage("Plot image copied", 3000);
}

// ---- CSV drag and drop

CsvImportDialog* MainWindow::importCsv(const QString& path) {
  CsvTable table;
  try {
    table = readCsvFile(path.toStdString());
  } catch (const std::exception& e) {
    appendLog(QString("Cannot import %1: %2").arg(path, e.what()));
    statusBar()->showMessage(QString("CSV import: %1").arg(e.what()), 10000);
    return nullptr;
  }
  QSettings().setValue("paths/csv", QFileInfo(path).absolutePath());
  auto* dialog = new CsvImportDialog(path, table, setup_->setup().length, csv_horizon_, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    csv_path_ = dialog->path();
    csv_horizon_ = dialog->horizon();
    setup_->addTask(
        "csv",
        QString("CSV series: %1 (H = %2)").arg(QFileInfo(csv_path_).fileName()).arg(csv_horizon_));
    RunSetup s = setup_->setup();
    s.task = "csv";
    s.length = dialog->length();
    setup_->setSetup(s);
    appendLog(QString("Task: CSV series %1, T = %2, H = %3 (applies at the next Start)")
                  .arg(csv_path_)
                  .arg(s.length)
                  .arg(csv_horizon_));
  });
  dialog->open();
  return dialog;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    const QString file = url.toLocalFile();
    if (file.endsWith(".csv", Qt::CaseInsensitive) || file.endsWith(".tsv", Qt::CaseInsensitive) ||
        file.endsWith(".txt", Qt::CaseInsensitive) || QFileInfo(file).isDir()) {
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty()) return;
  const QString file = urls.first().toLocalFile();
  event->acceptProposedAction();
  if (QFileInfo(file).isDir())
    openSession(file);  // a dropped .rsalab folder
  else
    importCsv(file);
}

}  // namespace rsalab
