// SPDX-License-Identifier: GPL-3.0-or-later
// Help → Keyboard shortcuts: a table generated from the window's actions (every action with a
// shortcut, its menu path-free text and all its key sequences), never a hand-written list.
#pragma once

#include <QDialog>
#include <QList>
#include <QPair>

class QAction;
class QTableWidget;

namespace rsalab {

// (action text without '&', shortcuts in native text joined by ", "), sorted by text.
QList<QPair<QString, QString>> shortcutEntries(const QList<QAction*>& actions);

class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent = nullptr);
  QTableWidget* table() const { return table_; }

 private:
  QTableWidget* table_;
};

}  // namespace rsalab
