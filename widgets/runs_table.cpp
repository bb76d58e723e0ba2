// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/runs_table.h"

#include <QHeaderView>

namespace rsalab {

RunsTable::RunsTable(QWidget* parent) : QTableView(parent) {
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(true);
  verticalHeader()->setVisible(false);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setSortingEnabled(false);
}

void RunsTable::setStore(RunStore* store) {
  store_ = store;
  setModel(store);
  connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    if (const RunId id = selectedRun(); id.valid()) emit runSelected(id);
  });
}

QString RunsTable::text(int row, int column) const {
  return store_ ? store_->data(store_->index(row, column), Qt::DisplayRole).toString() : QString();
}

QString RunsTable::toolTip(int row, int column) const {
  return store_ ? store_->data(store_->index(row, column), Qt::ToolTipRole).toString() : QString();
}

RunId RunsTable::selectedRun() const {
  const auto rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
  if (rows.isEmpty() || !store_) return {};
  return store_->idAt(rows.first().row());
}

}  // namespace rsalab
