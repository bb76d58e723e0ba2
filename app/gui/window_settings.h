// SPDX-License-Identifier: GPL-3.0-or-later
// The window's menus and settings: the File/Edit/View/Help menus with the standard shortcuts and
// Help → Keyboard shortcuts, Preferences, the settings kept in QSettings, and copy and zoom of the
// focused plot.
//
// QSettings keys: window/geometry, window/state + window/state_version (saveState with
// MainWindow::kLayoutVersion; another version is ignored), appearance/theme (system|light|dark),
// session/autosave_minutes, session/recent (newest first, at most 8;
// app/gui/session_controller.cpp), paths/session, paths/sweep, paths/csv (last folders;
// paths/export is PlotExport's).
#pragma once

#include <QAction>
#include <QKeySequence>
#include <QList>
#include <QMap>
#include <QObject>

#include "widgets/preferences_dialog.h"

class QCustomPlot;
class QMimeData;
class QMenu;

namespace rsalab {

class MainWindow;
class CsvImportDialog;

class WindowSettings : public QObject {
  Q_OBJECT
 public:
  explicit WindowSettings(MainWindow* window);
  void buildMenus(QMenu* file, QMenu* view);  // File, Edit (after File), View additions, Help
  void restore();                             // geometry, layout, theme, autosave
  void store();
  void saveAs();  // File → Save session as… (asks for the path)
  // Every action bound to a QKeySequence::StandardKey (Open, Save, Save As, Quit, Copy, Zoom in,
  // Zoom out, Full screen, Preferences), and every action with a shortcut (Help → Keyboard
  // shortcuts).
  QAction* standardAction(QKeySequence::StandardKey key) const {
    return standard_actions_.value(key);
  }
  QList<QAction*> shortcutActions() const;
  Preferences preferences() const;
  void setPreferences(const Preferences& preferences);  // stores and applies

 private:
  void zoomFocusedPlot(double factor);
  void copyFocused();
  QCustomPlot* focusedPlot() const;
  MainWindow* w_;
  QMap<QKeySequence::StandardKey, QAction*> standard_actions_;
};

// CSV series: File → Import CSV series… and a dropped file open the import preview; accepting it
// makes the file the run setup's "csv" task.
class CsvImporter : public QObject {
  Q_OBJECT
 public:
  explicit CsvImporter(MainWindow* window);
  // Parses a CSV (torch-free reader) and opens the import preview (non-modal). nullptr, with the
  // reader's message logged, on error.
  CsvImportDialog* importCsv(const QString& path);
  QString path() const { return path_; }
  int horizon() const { return horizon_; }
  // Drag and drop onto the window: a CSV file is imported, a folder opened as a session.
  static bool accepts(const QMimeData* data);
  bool drop(const QMimeData* data);  // false: nothing to open
  // Makes `path` the run setup's "csv" task (`select`: labelled with H, the forms moved to the
  // real-series defaults; the caller selects it).
  void setTask(const QString& path, int horizon, bool select);

 private:
  MainWindow* w_;
  QString path_;
  int horizon_ = 1;
};

}  // namespace rsalab
