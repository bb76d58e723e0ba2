// MainWindow, menus and settings: the File/Edit/View/Help menus with the standard shortcuts and
// Help → Keyboard shortcuts, Preferences, the settings kept in QSettings, copy and zoom of the
// focused plot, and CSV import by menu or drag and drop.
//
// QSettings keys: window/geometry, window/state + window/state_version (saveState with
// MainWindow::kLayoutVersion; another version is ignored), appearance/theme (system|light|dark),
// session/autosave_minutes, session/recent (newest first, at most 8; main_window_session.cpp),
// paths/session, paths/csv (last folders; paths/export is PlotExport's).
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
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include "core/io/csv_reader.h"
#include "gui/main_window.h"
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
  file_menu_->addAction("Open s&weep folder…", this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(
        this, "Open a sweep folder (plan.json and cells/, e.g. from rsalab-cli sweep --slurm)",
        QSettings().value("paths/sweep", QDir::homePath()).toString());
    if (dir.isEmpty()) return;
    QSettings().setValue("paths/sweep", dir);
    openSweepFolder(dir);
  });
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
  s.setValue("window/state", layoutState());  // as before focus mode hid the docks
  s.setValue("window/state_version", kLayoutVersion);
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
  showStatus("Plot image copied", 3000);
}

// ---- CSV drag and drop

CsvImportDialog* MainWindow::importCsv(const QString& path) {
  CsvTable table;
  try {
    table = readCsvFile(path.toStdString());
  } catch (const std::exception& e) {
    appendLog(QString("Cannot import %1: %2").arg(path, e.what()));
    showStatus(QString("CSV import: %1").arg(e.what()), 10000);
    return nullptr;
  }
  QSettings().setValue("paths/csv", QFileInfo(path).absolutePath());
  auto* dialog = new CsvImportDialog(
      path, table, static_cast<int>(setup_->setup().config.task.length), csv_horizon_, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    csv_path_ = dialog->path();
    csv_horizon_ = dialog->horizon();
    setup_->addTask(
        "csv",
        QString("CSV series: %1 (H = %2)").arg(QFileInfo(csv_path_).fileName()).arg(csv_horizon_));
    applyTaskKindDefaults("csv");
    RunSetup s = setup_->setup();
    s.config.task.name = "csv";
    s.config.task.length = dialog->length();
    setup_->setSetup(s);
    appendLog(QString("Task: CSV series %1, T = %2, H = %3 (applies at the next Start)")
                  .arg(csv_path_)
                  .arg(s.config.task.length)
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
