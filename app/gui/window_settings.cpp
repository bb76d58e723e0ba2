// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/window_settings.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>

#include "app/gui/main_window.h"
#include "engine/core/io/csv_reader.h"
#include "widgets/csv_import_dialog.h"
#include "widgets/loss_curve_view.h"
#include "widgets/plot_export.h"
#include "widgets/run_setup_panel.h"
#include "widgets/shortcuts_dialog.h"

namespace rsalab {

namespace {

// A standard key's bindings on this platform, or `fallback` where the platform has none (e.g.
// Preferences and Full screen on some X11 desktops).
QList<QKeySequence> bindings(QKeySequence::StandardKey key, const QKeySequence& fallback) {
  auto list = QKeySequence::keyBindings(key);
  if (list.isEmpty() && !fallback.isEmpty()) list << fallback;
  return list;
}

}  // namespace

// ---- Actions and menus

WindowSettings::WindowSettings(MainWindow* window) : QObject(window), w_(window) {}

void WindowSettings::buildMenus(QMenu* file, QMenu* view) {
  auto standard = [this](QMenu* menu, const QString& text, QKeySequence::StandardKey key,
                         const QKeySequence& fallback, auto slot) {
    QAction* a = menu->addAction(text, this, slot);
    a->setShortcuts(bindings(key, fallback));
    standard_actions_[key] = a;
    return a;
  };
  SessionController* sessions = w_->sessions_;
  standard(file, "&Open session…", QKeySequence::Open, {}, [this, sessions] {
    const QString dir = QFileDialog::getExistingDirectory(
        w_, "Open session (a .rsalab folder)",
        QSettings().value("paths/session", QDir::homePath()).toString());
    if (!dir.isEmpty()) sessions->open(dir);
  });
  sessions->setRecentMenu(file->addMenu("Recent sessions"));
  file->addAction("Open s&weep folder…", this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(
        w_, "Open a sweep folder (plan.json and cells/, e.g. from rsalab-cli sweep --slurm)",
        QSettings().value("paths/sweep", QDir::homePath()).toString());
    if (dir.isEmpty()) return;
    QSettings().setValue("paths/sweep", dir);
    w_->openSweepFolder(dir);
  });
  file->addSeparator();
  standard(file, "&Save session", QKeySequence::Save, {}, [sessions] { sessions->saveOrAsk(); });
  standard(file, "Save session &as…", QKeySequence::SaveAs, QKeySequence("Ctrl+Shift+S"),
           [this] { saveAs(); });
  file->addSeparator();
  file->addAction("&Import CSV series…", this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        w_, "Import a CSV time series", QSettings().value("paths/csv", QDir::homePath()).toString(),
        "CSV (*.csv *.tsv *.txt);;All files (*)");
    if (!path.isEmpty()) w_->csv_->importCsv(path);  // also: drop the file onto the window
  });
  file->addSeparator();
  standard(file, "&Quit", QKeySequence::Quit, QKeySequence("Ctrl+Q"), [this] { w_->close(); });

  auto* edit = new QMenu("&Edit", w_);
  w_->menuBar()->insertMenu(w_->menuBar()->actions().value(1), edit);  // after File
  standard(edit, "&Copy", QKeySequence::Copy, {}, [this] { copyFocused(); });
  edit->addSeparator();
  standard(edit, "&Preferences…", QKeySequence::Preferences, QKeySequence("Ctrl+,"), [this] {
    PreferencesDialog dialog(preferences(), w_);
    if (dialog.exec() == QDialog::Accepted) setPreferences(dialog.preferences());
  });

  view->addSeparator();
  standard(view, "Zoom &in", QKeySequence::ZoomIn, {}, [this] { zoomFocusedPlot(0.8); });
  standard(view, "Zoom &out", QKeySequence::ZoomOut, {}, [this] { zoomFocusedPlot(1.25); });
  QAction* full =
      standard(view, "&Full screen", QKeySequence::FullScreen, QKeySequence(Qt::Key_F11),
               [this] { w_->setWindowState(w_->windowState() ^ Qt::WindowFullScreen); });
  full->setCheckable(true);
  for (QAction* a : standard_actions_) a->setShortcutContext(Qt::WindowShortcut);

  auto* help = w_->menuBar()->addMenu("&Help");
  help->addAction("&Keyboard shortcuts", this, [this] {
    ShortcutsDialog dialog(shortcutActions(), w_);
    dialog.exec();
  });
}

void WindowSettings::saveAs() {
  const QString start =
      QSettings().value("paths/session", QDir::homePath()).toString() + "/session.rsalab";
  const QString path =
      QFileDialog::getSaveFileName(w_, "Save session as", start, "RSA Lab session (*.rsalab)");
  if (!path.isEmpty()) w_->sessions_->saveTo(path);
}

QList<QAction*> WindowSettings::shortcutActions() const {
  QList<QAction*> out;
  for (QAction* a : w_->findChildren<QAction*>()) {
    if (!a->shortcuts().isEmpty()) out << a;
  }
  return out;
}

// ---- Settings

Preferences WindowSettings::preferences() const {
  QSettings s;
  Preferences p;
  p.theme = s.value("appearance/theme", p.theme).toString();
  p.autosave_minutes = s.value("session/autosave_minutes", p.autosave_minutes).toInt();
  return p;
}

void WindowSettings::setPreferences(const Preferences& p) {
  QSettings s;
  s.setValue("appearance/theme", p.theme);
  s.setValue("session/autosave_minutes", p.autosave_minutes);
  applyTheme(p.theme);
  w_->sessions_->setAutosaveMinutes(p.autosave_minutes);
}

void WindowSettings::restore() {
  QSettings s;
  if (s.contains("window/geometry")) w_->restoreGeometry(s.value("window/geometry").toByteArray());
  if (s.value("window/state_version").toInt() == MainWindow::kLayoutVersion) {
    w_->restoreState(s.value("window/state").toByteArray(), MainWindow::kLayoutVersion);
  }
  const Preferences p = preferences();
  if (p.theme != "system") applyTheme(p.theme);
  w_->sessions_->setAutosaveMinutes(p.autosave_minutes);
}

void WindowSettings::store() {
  QSettings s;
  s.setValue("window/geometry", w_->saveGeometry());
  s.setValue("window/state", w_->focus_->layoutState());  // as before focus mode hid the docks
  s.setValue("window/state_version", MainWindow::kLayoutVersion);
}

// ---- Copy and zoom act on the plot with the keyboard focus or under the mouse, else the curves.

QCustomPlot* WindowSettings::focusedPlot() const {
  for (QWidget* w : {QApplication::focusWidget(), QApplication::widgetAt(QCursor::pos())}) {
    for (; w; w = w->parentWidget()) {
      if (auto* plot = qobject_cast<QCustomPlot*>(w)) return plot;
      if (w == w_) break;
    }
  }
  return w_->curves_->plot();
}

void WindowSettings::zoomFocusedPlot(double factor) {
  QCustomPlot* plot = focusedPlot();
  if (plot == w_->curves_->plot()) {
    const QCPRange r = plot->xAxis->range();
    w_->curves_->setXRange(r.center() - r.size() * factor / 2, r.center() + r.size() * factor / 2);
    return;
  }
  for (QCPAxisRect* rect : plot->axisRects()) {
    for (QCPAxis* axis : rect->axes()) axis->scaleRange(factor);
  }
  plot->replot();
}

void WindowSettings::copyFocused() {
  if (auto* edit = qobject_cast<QPlainTextEdit*>(QApplication::focusWidget())) {
    edit->copy();
    return;
  }
  QCustomPlot* plot = focusedPlot();
  if (PlotExport* exporter = PlotExport::of(plot))
    exporter->copyImage();
  else
    QApplication::clipboard()->setPixmap(plot->toPixmap());
  w_->showStatus("Plot image copied", 3000);
}

// ---- CSV import

CsvImporter::CsvImporter(MainWindow* window) : QObject(window), w_(window) {}

CsvImportDialog* CsvImporter::importCsv(const QString& path) {
  CsvTable table;
  try {
    table = readCsvFile(path.toStdString());
  } catch (const std::exception& e) {
    w_->appendLog(QString("Cannot import %1: %2").arg(path, e.what()));
    w_->showStatus(QString("CSV import: %1").arg(e.what()), 10000);
    return nullptr;
  }
  QSettings().setValue("paths/csv", QFileInfo(path).absolutePath());
  auto* dialog = new CsvImportDialog(
      path, table, static_cast<int>(w_->setup_->setup().config.task.length), horizon_, w_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    setTask(dialog->path(), dialog->horizon(), true);
    RunSetup s = w_->setup_->setup();
    s.config.task.name = csvPathTaskName();
    s.config.task.length = dialog->length();
    w_->setup_->setSetup(s);
    w_->appendLog(QString("Task: CSV series %1, T = %2, H = %3 (applies at the next Start)")
                      .arg(path_)
                      .arg(s.config.task.length)
                      .arg(horizon_));
  });
  dialog->open();
  return dialog;
}

bool CsvImporter::accepts(const QMimeData* data) {
  for (const QUrl& url : data->urls()) {
    const QString file = url.toLocalFile();
    if (file.endsWith(".csv", Qt::CaseInsensitive) || file.endsWith(".tsv", Qt::CaseInsensitive) ||
        file.endsWith(".txt", Qt::CaseInsensitive) || QFileInfo(file).isDir())
      return true;
  }
  return false;
}

bool CsvImporter::drop(const QMimeData* data) {
  const auto urls = data->urls();
  if (urls.isEmpty()) return false;
  const QString file = urls.first().toLocalFile();
  if (QFileInfo(file).isDir())
    w_->sessions_->open(file);  // a dropped .rsalab folder
  else
    importCsv(file);
  return true;
}

void CsvImporter::setTask(const QString& path, int horizon, bool select) {
  path_ = path;
  horizon_ = horizon;
  const QString task = QString::fromStdString(csvPathTaskName());
  if (!select) {
    w_->setup_->addTask(task, "CSV series: " + QFileInfo(path_).fileName());
    return;
  }
  w_->setup_->addTask(
      task, QString("CSV series: %1 (H = %2)").arg(QFileInfo(path_).fileName()).arg(horizon_));
  w_->applyTaskKindDefaults(task);
}

}  // namespace rsalab
