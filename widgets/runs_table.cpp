// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/runs_table.h"

#include <QHeaderView>
#include <cmath>

#include "widgets/number_text.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {
QString lossText(double v) { return cellText(v, 4); }

QTableWidgetItem* readOnly(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  return item;
}
}  // namespace

RunsTable::RunsTable(QWidget* parent) : QTableWidget(0, kColumns, parent) {
  setHorizontalHeaderLabels({"", "Show", "Model", "Seed", "N", "State", "Step", "Train loss",
                             "Val loss", "Excess (val)", "Skill vs best reference",
                             "vs persistence", "Params", "Steps/s"});
  horizontalHeaderItem(kN)->setToolTip(
      "Training windows or sequences the run has: fewer than asked for when the series is short");
  horizontalHeaderItem(kExcess)->setToolTip(
      "Validation loss minus the task's Bayes floor (the optimal predictor's expected loss): what "
      "is left to learn. \"–\" where the task does not know its floor.");
  horizontalHeaderItem(kSkill)->setToolTip(
      "1 − MSE(model) / MSE(best reference) on the same targets: > 0 beats the field. The best "
      "reference "
      "is the reference (ETS, auto ARIMA, Theta, AR(p), seasonal naive, persistence) with the "
      "lowest validation loss. Validation while training, test once finished (cell tooltip)");
  horizontalHeaderItem(kSkillPersistence)
      ->setToolTip("1 − MSE(model) / MSE(persistence, \"tomorrow = today\") on the same targets");
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(true);
  verticalHeader()->setVisible(false);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setSortingEnabled(false);
  connect(this, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (filling_ || item->column() != kVisible) return;
    const int row = item->row();
    if (row >= 0 && row < ids_.size())
      emit visibilityToggled(ids_[row], item->checkState() == Qt::Checked);
  });
  connect(this, &QTableWidget::itemSelectionChanged, this, [this] {
    const int id = selectedRun();
    if (id >= 0) emit runSelected(id);
  });
}

void RunsTable::setRuns(const QVector<RunRow>& rows) {
  filling_ = true;
  setRowCount(0);
  ids_.clear();
  setRowCount(rows.size());
  for (int i = 0; i < rows.size(); ++i) {
    ids_.push_back(rows[i].id);
    auto* swatch = readOnly("");
    swatch->setBackground(runColor(rows[i].id));
    setItem(i, kSwatch, swatch);
    auto* visible = readOnly("");
    visible->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    visible->setCheckState(Qt::Checked);
    setItem(i, kVisible, visible);
    fill(i, rows[i]);
  }
  filling_ = false;
}

void RunsTable::updateRun(const RunRow& r) {
  const int row = rowOf(r.id);
  if (row < 0) return;
  filling_ = true;
  fill(row, r);
  filling_ = false;
}

void RunsTable::fill(int row, const RunRow& r) {
  setItem(row, kModel, readOnly(r.model));
  setItem(row, kSeed, readOnly(QString::number(r.seed)));
  auto* n = readOnly(r.train_size > 0 ? QString::number(r.train_size) : QString("–"));
  if (r.requested_train_size > 0 && r.requested_train_size != r.train_size)
    n->setToolTip(
        QString("asked for %1: the series has %2").arg(r.requested_train_size).arg(r.train_size));
  setItem(row, kN, n);
  auto* state = readOnly(QString::fromUtf8(runStateName(r.state)));
  state->setToolTip(r.message);
  if (r.state == RunState::Failed || r.state == RunState::Diverged)
    state->setForeground(QColor(200, 30, 30));
  setItem(row, kState, state);
  setItem(row, kStep,
          readOnly(r.max_steps > 0 ? QString("%1 / %2").arg(r.step).arg(r.max_steps)
                                   : QString::number(r.step)));
  setItem(row, kTrain, readOnly(lossText(r.train_loss)));
  setItem(row, kValidation, readOnly(lossText(r.validation_loss)));
  auto* excess = readOnly(lossText(r.validation_loss - r.bayes_floor));
  if (std::isfinite(r.bayes_floor))
    excess->setToolTip(QString("Bayes floor %1").arg(r.bayes_floor, 0, 'g', 4));
  setItem(row, kExcess, excess);
  QString skill_text = std::isfinite(r.skill) ? QString::asprintf("%+.3f", r.skill) : "–";
  if (std::isfinite(r.skill_low) && std::isfinite(r.skill_high))
    skill_text += QString::asprintf(" [%+.2f, %+.2f]", r.skill_low, r.skill_high);
  auto* skill = readOnly(skill_text);
  skill->setToolTip(r.skill_tip);
  // Green only when the interval lies above 0 (beats), red below (loses), grey when it covers
  // 0 (ties); without an interval yet (training, on validation), by the sign.
  if (!r.skill_verdict.isEmpty())
    skill->setForeground(r.skill_verdict == "beats"   ? QColor(20, 120, 40)
                         : r.skill_verdict == "loses" ? QColor(190, 40, 30)
                                                      : QColor(110, 110, 110));
  else if (std::isfinite(r.skill))
    skill->setForeground(r.skill > 0 ? QColor(20, 120, 40) : QColor(190, 40, 30));
  setItem(row, kSkill, skill);
  setItem(
      row, kSkillPersistence,
      readOnly(std::isfinite(r.skill_persistence) ? QString::asprintf("%+.3f", r.skill_persistence)
                                                  : QString("–")));
  setItem(row, kParams, readOnly(QString::number(r.parameters)));
  setItem(row, kSpeed,
          readOnly(r.steps_per_second > 0 ? QString::number(r.steps_per_second, 'f', 1) : "–"));
}

int RunsTable::rowOf(int id) const { return static_cast<int>(ids_.indexOf(id)); }

bool RunsTable::isRunVisible(int id) const {
  const int row = rowOf(id);
  return row >= 0 && item(row, kVisible) && item(row, kVisible)->checkState() == Qt::Checked;
}

int RunsTable::selectedRun() const {
  const auto rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
  if (rows.isEmpty()) return -1;
  const int row = rows.first().row();
  return row < ids_.size() ? ids_[row] : -1;
}

}  // namespace rsalab
