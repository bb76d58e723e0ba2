// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/window_settings.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSettings>

#include "app/gui/csv_importer.h"
#include "app/gui/figure_focus.h"
#include "app/gui/session_controller.h"
#include "widgets/loss_curve_view.h"
#include "widgets/plot_export.h"
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

WindowSettings::WindowSettings(QMainWindow* window, SessionController* sessions, CsvImporter* csv,
                               FigureFocus* focus, LossCurveView* curves)
    : QObject(window), w_(window), sessions_(sessions), csv_(csv), focus_(focus), curves_(curves) {}

void WindowSettings::buildMenus(QMenu* file, QMenu* view) {
  auto standard = [this](QMenu* menu, const QString& text, QKeySequence::StandardKey key,
                         const QKeySequence& fallback, auto slot) {
    QAction* a = menu->addAction(text, this, slot);
    a->setShortcuts(bindings(key, fallback));
    standard_actions_[key] = a;
    return a;
  };
  SessionController* sessions = sessions_;
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
    emit openSweepFolderRequested(dir);
  });
  file->addSeparator();
  standard(file, "&Save session", QKeySequence::Save, {}, [sessions] { sessions->saveOrAsk(); });
  standard(file, "Save session &as…", QKeySequence::SaveAs, QKeySequence("Ctrl+Shift+S"),
           [sessions] { sessions->saveAs(); });
  file->addSeparator();
  file->addAction("&Import CSV series…", this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        w_, "Import a CSV time series", QSettings().value("paths/csv", QDir::homePath()).toString(),
        "CSV (*.csv *.tsv *.txt);;All files (*)");
    if (!path.isEmpty()) csv_->importCsv(path);  // also: drop the file onto the window
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
  sessions_->setAutosaveMinutes(p.autosave_minutes);
}

void WindowSettings::restore() {
  QSettings s;
  if (s.contains("window/geometry")) w_->restoreGeometry(s.value("window/geometry").toByteArray());
  if (s.value("window/state_version").toInt() == focus_->layoutVersion())
    focus_->restoreLayout(s.value("window/state").toByteArray());
  const Preferences p = preferences();
  if (p.theme != "system") applyTheme(p.theme);
  sessions_->setAutosaveMinutes(p.autosave_minutes);
}

void WindowSettings::store() {
  QSettings s;
  s.setValue("window/geometry", w_->saveGeometry());
  s.setValue("window/state", focus_->layoutState());  // as before focus mode hid the docks
  s.setValue("window/state_version", focus_->layoutVersion());
}

// ---- Copy and zoom act on the plot with the keyboard focus or under the mouse, else the curves.

QCustomPlot* WindowSettings::focusedPlot() const {
  for (QWidget* w : {QApplication::focusWidget(), QApplication::widgetAt(QCursor::pos())}) {
    for (; w; w = w->parentWidget()) {
      if (auto* plot = qobject_cast<QCustomPlot*>(w)) return plot;
      if (w == w_) break;
    }
  }
  return curves_->plot();
}

void WindowSettings::zoomFocusedPlot(double factor) {
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
  emit status("Plot image copied", 3000);
}

}  // namespace rsalab
