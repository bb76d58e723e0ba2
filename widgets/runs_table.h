// SPDX-License-Identifier: GPL-3.0-or-later
// The runs table: a QTableView over the window's RunStore (widgets/run_store.h), one row per run
// with its colour swatch (the same colour in every view), a visibility check box, state, step,
// losses, the validation loss above the task's Bayes floor (where the task knows it), the skill,
// parameter count and speed. The rows and their text are the store's; the view only selects.
#pragma once

#include <QTableView>

#include "engine/core/session/run_id.h"
#include "widgets/run_store.h"

namespace rsalab {

class RunsTable : public QTableView {
  Q_OBJECT
 public:
  explicit RunsTable(QWidget* parent = nullptr);

  void setStore(RunStore* store);  // the rows; the view follows the store's changes
  RunStore* store() const { return store_; }
  int rowCount() const { return store_ ? store_->rowCount() : 0; }
  // The text and tooltip a cell shows (scripts and tests); empty outside the rows.
  QString text(int row, int column) const;
  QString toolTip(int row, int column) const;
  RunId selectedRun() const;  // invalid when none

 signals:
  /// The user selected a run; consumed by the inspector.
  void runSelected(const rsalab::RunId& id);

 private:
  RunStore* store_ = nullptr;
};

}  // namespace rsalab
