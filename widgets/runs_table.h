// SPDX-License-Identifier: GPL-3.0-or-later
// The runs table: one row per model × seed with its colour swatch (the same colour in every
// view), a visibility checkbox, state, step, losses, the validation loss above the task's Bayes
// floor (where the task knows it), parameter count and speed. Plain data in.
#pragma once

#include <QTableWidget>
#include <QVector>

#include "engine/core/io/enums.h"

namespace rsalab {

struct RunRow {
  int id = 0;
  QString model;
  quint64 seed = 0;
  qint64 parameters = 0;
  qint64 train_size = 0;            // the N the run has; 0: not known yet
  qint64 requested_train_size = 0;  // the N asked for (the cell's tooltip when it differs)
  RunState state = RunState::Idle;
  qint64 step = 0;
  qint64 max_steps = 0;
  double train_loss = qQNaN();
  double validation_loss = qQNaN();
  double bayes_floor = qQNaN();  // the task's floor; NaN: unknown (the column shows "–")
  double steps_per_second = 0;
  QString message;  // error or stop reason, shown as the state's tooltip
  // 1 − MSE_model / MSE_best reference (series tasks; NaN: none), the best reference being the
  // reference with the lowest validation loss: on validation while the run trains, on test once
  // it has finished. skill_tip says which, with both losses. skill_persistence: the same vs
  // persistence ("tomorrow = today").
  double skill = qQNaN();
  // On test: the 95 % paired block-bootstrap interval of the skill (engine/core/forecast/
  // skill_interval.h) and its word, beats | ties | loses (empty: no interval).
  double skill_low = qQNaN(), skill_high = qQNaN();
  QString skill_verdict;
  QString skill_tip;
  double skill_persistence = qQNaN();
};

class RunsTable : public QTableWidget {
  Q_OBJECT
 public:
  enum Column {
    kSwatch,
    kVisible,
    kModel,
    kSeed,
    kN,
    kState,
    kStep,
    kTrain,
    kValidation,
    kExcess,
    kSkill,
    kSkillPersistence,
    kParams,
    kSpeed,
    kColumns
  };
  explicit RunsTable(QWidget* parent = nullptr);

  void setRuns(const QVector<RunRow>& rows);  // replaces all rows
  void updateRun(const RunRow& row);          // by id; ignores unknown ids
  int rowOf(int id) const;
  bool isRunVisible(int id) const;
  int selectedRun() const;  // -1 when none

 signals:
  /// The user ticked or cleared a run's checkbox; consumed by the curve view.
  void visibilityToggled(int id, bool visible);
  /// The user selected a run; consumed by the inspector.
  void runSelected(int id);

 private:
  void fill(int row, const RunRow& r);
  QVector<int> ids_;
  bool filling_ = false;
};

}  // namespace rsalab
