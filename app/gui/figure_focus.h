// SPDX-License-Identifier: GPL-3.0-or-later
// Room for the figures: focus mode (View → Focus on figure, Ctrl+Shift+F, and on by itself when
// sweep results are opened or a preset draws a figure) hides the docks while a figure tab (Sample
// efficiency, Regime map, Linear attention = RNN) is shown, and brings them back, as they were, on
// any other tab or when it is turned off.
#pragma once

#include <QAction>
#include <QByteArray>
#include <QList>
#include <QMainWindow>
#include <QObject>
#include <QTabWidget>

namespace rsalab {

class FigureFocus : public QObject {
  Q_OBJECT
 public:
  FigureFocus(QMainWindow* window, QTabWidget* tabs, int layout_version);
  QAction* action() const { return action_; }  // FocusAction
  void addFigureTab(QWidget* tab) { figures_ << tab; }
  // True while it hides the docks, i.e. while it is on and a figure tab is shown.
  bool isFocused() const { return focused_; }
  void show(QWidget* figure);      // switches to that tab and turns focus mode on
  void leave();                    // turns it off (the docks come back)
  QByteArray layoutState() const;  // what settings and sessions save: the layout before focus
  int layoutVersion() const { return version_; }
  // Leaves focus mode and restores a saved layout (a session's, the settings'); false when
  // `state` is not a layout of this version.
  bool restoreLayout(const QByteArray& state);

 private:
  void apply();  // hides or restores the docks for the action's state and the tab
  QMainWindow* window_;
  QTabWidget* tabs_;
  int version_;
  QAction* action_;
  QList<QWidget*> figures_;
  QByteArray pre_focus_layout_;  // restored when focus mode ends
  bool focused_ = false;
};

}  // namespace rsalab
