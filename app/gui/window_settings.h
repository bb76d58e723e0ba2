// SPDX-License-Identifier: GPL-3.0-or-later
// The window's menus and settings: the File/Edit/View/Help menus with the standard shortcuts and
// Help → Keyboard shortcuts, Preferences, the settings kept in QSettings, and copy and zoom of the
// focused plot.
//
// QSettings keys: window/geometry, window/state + window/state_version (saveState with the
// layout version FigureFocus holds; another version is ignored), appearance/theme
// (system|light|dark), session/autosave_minutes, session/recent (newest first, at most 8;
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
class QMainWindow;
class QMenu;

namespace rsalab {

class CsvImporter;
class FigureFocus;
class LossCurveView;
class SessionController;

class WindowSettings : public QObject {
  Q_OBJECT
 public:
  // The window's menus and layout; sessions (open, save, autosave), CSV import, focus mode (the
  // layout before it) and the loss curves (zoom and copy's fallback plot) act through their
  // public interfaces.
  WindowSettings(QMainWindow* window, SessionController* sessions, CsvImporter* csv,
                 FigureFocus* focus, LossCurveView* curves);
  void buildMenus(QMenu* file, QMenu* view);  // File, Edit (after File), View additions, Help
  void restore();                             // geometry, layout, theme, autosave
  void store();
  // Every action bound to a QKeySequence::StandardKey (Open, Save, Save As, Quit, Copy, Zoom in,
  // Zoom out, Full screen, Preferences), and every action with a shortcut (Help → Keyboard
  // shortcuts).
  QAction* standardAction(QKeySequence::StandardKey key) const {
    return standard_actions_.value(key);
  }
  QList<QAction*> shortcutActions() const;
  Preferences preferences() const;
  void setPreferences(const Preferences& preferences);  // stores and applies

 signals:
  /// File → Open sweep folder…: the folder chosen.
  void openSweepFolderRequested(const QString& dir);
  /// A line for the status bar (copy done).
  void status(const QString& text, int timeout_ms);

 private:
  void zoomFocusedPlot(double factor);
  void copyFocused();
  QCustomPlot* focusedPlot() const;
  QMainWindow* w_;
  SessionController* sessions_;
  CsvImporter* csv_;
  FigureFocus* focus_;
  LossCurveView* curves_;
  QMap<QKeySequence::StandardKey, QAction*> standard_actions_;
};

}  // namespace rsalab
