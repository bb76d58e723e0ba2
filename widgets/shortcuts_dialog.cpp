// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace rsalab {

QList<QPair<QString, QString>> shortcutEntries(const QList<QAction*>& actions) {
  QList<QPair<QString, QString>> out;
  for (const QAction* a : actions) {
    if (a->shortcuts().isEmpty() || a->text().isEmpty()) continue;
    QStringList keys;
    for (const auto& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    QString text = a->text();
    text.remove(QRegularExpression("&(?!&)"));
    const QPair<QString, QString> entry{text, keys.join(", ")};
    if (!out.contains(entry)) out << entry;
  }
  std::sort(out.begin(), out.end());
  return out;
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle("Keyboard shortcuts");
  auto* layout = new QVBoxLayout(this);
  const auto entries = shortcutEntries(actions);
  table_ = new QTableWidget(static_cast<int>(entries.size()), 2, this);
  table_->setHorizontalHeaderLabels({"Action", "Shortcut"});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int r = 0; r < entries.size(); ++r) {
    table_->setItem(r, 0, new QTableWidgetItem(entries[r].first));
    table_->setItem(r, 1, new QTableWidgetItem(entries[r].second));
  }
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  layout->addWidget(table_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(480, 520);
}

}  // namespace rsalab
