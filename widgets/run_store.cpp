// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/run_store.h"

#include <cmath>

#include "engine/core/forecast/skill_interval.h"
#include "engine/core/registry/model_registry.h"
#include "widgets/number_text.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {

QString lossText(double v) { return cellText(v, 4); }

QString signedText(double v) {
  return std::isfinite(v) ? QString::asprintf("%+.3f", v) : QString("–");
}

}  // namespace

RunStore::RunStore(QObject* parent) : QAbstractTableModel(parent) {}

void RunStore::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

void RunStore::add(const Run& run, const QColor& color) {
  if (const int row = rowOf(run.id); row >= 0) {
    Row& r = rows_[static_cast<size_t>(row)];
    r.run = run;
    r.skill = skillOf(run);
    if (color.isValid()) r.color = color;
    changed(row);
    return;
  }
  Row r;
  r.run = run;
  r.skill = skillOf(run);
  r.color = color.isValid()                     ? color
            : run.id.source == RunSource::Sweep ? modelColor(QString::fromStdString(run.what.model))
                                                : runColor(static_cast<int>(run.id.number));
  const int row = static_cast<int>(rows_.size());
  beginInsertRows({}, row, row);
  rows_.push_back(std::move(r));
  endInsertRows();
}

void RunStore::remove(const RunId& id) {
  const int row = rowOf(id);
  if (row < 0) return;
  beginRemoveRows({}, row, row);
  rows_.erase(rows_.begin() + row);
  endRemoveRows();
}

void RunStore::setWhat(const RunId& id, const RunDescriptor& what) {
  const int row = rowOf(id);
  if (row < 0) return;
  Row& r = rows_[static_cast<size_t>(row)];
  r.run.what = what;
  r.skill = skillOf(r.run);
  changed(row);
}

void RunStore::setStatus(const RunId& id, const RunStatus& now) {
  const int row = rowOf(id);
  if (row < 0) return;
  Row& r = rows_[static_cast<size_t>(row)];
  r.run.now = now;
  r.skill = skillOf(r.run);
  changed(row);
}

void RunStore::changed(int row) { emit dataChanged(index(row, 0), index(row, kColumns - 1)); }

const Run* RunStore::find(const RunId& id) const {
  const int row = rowOf(id);
  return row < 0 ? nullptr : &rows_[static_cast<size_t>(row)].run;
}

int RunStore::rowOf(const RunId& id) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].run.id == id) return static_cast<int>(i);
  return -1;
}

RunId RunStore::idAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[static_cast<size_t>(row)].run.id
                                                          : RunId();
}

QColor RunStore::colorOf(const RunId& id) const {
  const int row = rowOf(id);
  return row < 0 ? QColor() : rows_[static_cast<size_t>(row)].color;
}

bool RunStore::isVisible(const RunId& id) const {
  const int row = rowOf(id);
  return row >= 0 && rows_[static_cast<size_t>(row)].visible;
}

bool RunStore::anyActive() const {
  for (const auto& r : rows_)
    if (r.run.now.state == RunState::Running || r.run.now.state == RunState::Idle) return true;
  return false;
}

bool RunStore::anyDiverged() const {
  for (const auto& r : rows_)
    if (r.run.now.state == RunState::Diverged) return true;
  return false;
}

RunId RunStore::firstToInspect() const {
  for (const auto& r : rows_) {
    const ModelCard* info = findModel(r.run.what.model);
    if (info && info->has(HasRems)) return r.run.id;
  }
  return rows_.empty() ? RunId() : rows_.front().run.id;
}

RunStore::Progress RunStore::progress() const {
  Progress p;
  for (const auto& row : rows_) {
    const Run& r = row.run;
    p.done += r.now.step;
    p.total += r.now.ended() ? r.now.step : r.now.max_steps;
    if (r.now.state == RunState::Running) {
      p.steps_per_second += r.now.steps_per_second;
      p.running = true;
    }
  }
  return p;
}

RunStore::Skill RunStore::skillOf(const Run& run) {
  Skill skill;
  const auto& refs = run.what.references;
  // The headline: skill vs the best reference (the reference best on validation); persistence's
  // skill beside it. On validation while the run trains, on test once it has finished.
  const bool test = std::isfinite(run.now.test_loss);
  const double model = test ? run.now.test_loss : run.now.validation_loss;
  skill.value = skillVersusBest(model, refs, test);
  if (const auto* best = bestAnchor(refs); best && std::isfinite(skill.value)) {
    skill.tip = QString("%1: 1 − %2 / %3 (model / best reference, %4: lowest validation loss)")
                    .arg(test ? "test, best weights" : "validation, latest evaluation")
                    .arg(model, 0, 'g', 4)
                    .arg(test ? best->test_loss : best->validation_loss, 0, 'g', 4)
                    .arg(QString::fromStdString(best->label));
  }
  if (test) {
    const auto ci = skillIntervalVersusBest(run.now.test_errors, refs, run.what.horizon);
    const auto n = static_cast<int64_t>(run.now.test_errors.size());
    if (!ci.valid() && bestAnchor(refs) && n > 0 && n < skillMinTargets(run.what.horizon)) {
      skill.verdict = skillVerdictName(SkillVerdict::TooFew);
      skill.tip += QString("\n%1 test targets: %2 (the rule needs %3)")
                       .arg(n)
                       .arg(skill.verdict)
                       .arg(skillMinTargets(run.what.horizon));
    }
    if (ci.valid()) {
      skill.low = ci.low;
      skill.high = ci.high;
      skill.verdict = skillVerdictName(ci.verdict());
      skill.tip += QString(
                       "\n95 % paired block bootstrap over %1 test targets (block %2, %3 "
                       "resamples): [%4, %5]; Diebold–Mariano (HLN) p = %6; the word (DM at "
                       "5 %, from %8 targets): %7")
                       .arg(ci.targets)
                       .arg(ci.block)
                       .arg(ci.resamples)
                       .arg(ci.low, 0, 'f', 3)
                       .arg(ci.high, 0, 'f', 3)
                       .arg(ci.dm_p, 0, 'g', 2)
                       .arg(skill.verdict)
                       .arg(skillMinTargets(run.what.horizon));
    }
  }
  // Persistence's skill by the same rule: persistence as the only reference.
  if (const auto* p = findReference(refs, baselineName(Baseline::Persistence)))
    skill.persistence = skillVersusBest(model, {*p}, test);
  return skill;
}

int RunStore::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunStore::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant RunStore::text(const Run& r, const Skill& skill, int column) const {
  const RunDescriptor& d = r.what;
  const RunStatus& s = r.now;
  switch (column) {
    case kModel:
      return QString::fromStdString(d.model);
    case kSeed:
      return QString::number(d.seed);
    case kN:
      return d.train_size > 0 ? QString::number(d.train_size) : QString("–");
    case kState:
      return QString::fromUtf8(runStateName(s.state));
    case kStep:
      return s.max_steps > 0 ? QString("%1 / %2").arg(s.step).arg(s.max_steps)
                             : QString::number(s.step);
    case kTrain:
      return lossText(s.train_loss);
    case kValidation:
      return lossText(s.validation_loss);
    case kExcess:
      return lossText(s.validation_loss - d.truth.bayes_floor);
    case kSkill: {
      QString text = signedText(skill.value);
      if (std::isfinite(skill.low) && std::isfinite(skill.high))
        text += QString::asprintf(" [%+.2f, %+.2f]", skill.low, skill.high);
      if (skill.verdict == skillVerdictName(SkillVerdict::TooFew)) text += " (too few targets)";
      return text;
    }
    case kSkillPersistence:
      return signedText(skill.persistence);
    case kParams:
      return QString::number(d.parameters);
    case kSpeed:
      return s.steps_per_second > 0 ? QString::number(s.steps_per_second, 'f', 1) : QString("–");
    default:
      return {};
  }
}

QVariant RunStore::toolTip(const Run& r, const Skill& skill, int column) const {
  switch (column) {
    case kN:
      if (r.what.requested_train_size > 0 && r.what.requested_train_size != r.what.train_size)
        return QString("asked for %1: the series has %2")
            .arg(r.what.requested_train_size)
            .arg(r.what.train_size);
      return {};
    case kState:
      return r.now.message.empty() ? QVariant() : QString::fromStdString(r.now.message);
    case kExcess:
      return std::isfinite(r.what.truth.bayes_floor)
                 ? QString("Bayes floor %1").arg(r.what.truth.bayes_floor, 0, 'g', 4)
                 : QVariant();
    case kSkill:
      return skill.tip.isEmpty() ? QVariant() : skill.tip;
    case kModel:
      return QString("%1 run %2").arg(runSourceName(r.id.source)).arg(r.id.number);
    default:
      return {};
  }
}

QVariant RunStore::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const Run& r = row.run;
  const Skill& skill = row.skill;
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return text(r, skill, column);
    case Qt::ToolTipRole:
      return toolTip(r, skill, column);
    case Qt::DecorationRole:  // the run's colour, read by every view that draws the run
    case Qt::BackgroundRole:  // (the table paints the whole swatch cell with it)
      return column == kSwatch ? QVariant(row.color) : QVariant();
    case Qt::CheckStateRole:  // the run's visibility, read by every view that draws the run
      return column == kVisible ? QVariant(row.visible ? Qt::Checked : Qt::Unchecked) : QVariant();
    case Qt::ForegroundRole:
      if (column == kState &&
          (r.now.state == RunState::Failed || r.now.state == RunState::Diverged))
        return QColor(200, 30, 30);
      if (column == kSkill) {
        // Green only for "beats" (DM at 5 %), red for "loses", grey for "ties" and for "too few
        // test targets to decide"; without a word yet (training, on validation), by the sign.
        if (!skill.verdict.isEmpty())
          return skill.verdict == "beats"   ? QColor(20, 120, 40)
                 : skill.verdict == "loses" ? QColor(190, 40, 30)
                                            : QColor(110, 110, 110);
        if (std::isfinite(skill.value))
          return skill.value > 0 ? QColor(20, 120, 40) : QColor(190, 40, 30);
      }
      return {};
    default:
      return {};
  }
}

QVariant RunStore::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  static const char* const kLabels[kColumns] = {"",
                                                "Show",
                                                "Model",
                                                "Seed",
                                                "N",
                                                "State",
                                                "Step",
                                                "Train loss",
                                                "Val loss",
                                                "Excess (val)",
                                                "Skill vs best reference",
                                                "vs persistence",
                                                "Params",
                                                "Steps/s"};
  if (section < 0 || section >= kColumns) return {};
  if (role == Qt::DisplayRole) return QString(kLabels[section]);
  if (role != Qt::ToolTipRole) return {};
  switch (section) {
    case kN:
      return QString(
          "Training windows or sequences the run has: fewer than asked for when the series is "
          "short");
    case kExcess:
      return QString(
          "Validation loss minus the task's Bayes floor (the optimal predictor's expected loss): "
          "what is left to learn. \"–\" where the task does not know its floor.");
    case kSkill:
      return QString(
          "1 − MSE(model) / MSE(best reference) on the same targets: > 0 beats the field. The "
          "best reference is the one (ETS, auto ARIMA, Theta, AR(p), seasonal naive, persistence) "
          "with the lowest validation loss. Validation while training, test once finished (cell "
          "tooltip)");
    case kSkillPersistence:
      return QString("1 − MSE(model) / MSE(persistence, \"tomorrow = today\") on the same targets");
    default:
      return {};
  }
}

Qt::ItemFlags RunStore::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == kVisible) f |= Qt::ItemIsUserCheckable;
  return f;
}

bool RunStore::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != kVisible || role != Qt::CheckStateRole) return false;
  const auto row = static_cast<size_t>(index.row());
  if (row >= rows_.size()) return false;
  const bool visible = value.toInt() == Qt::Checked;
  if (rows_[row].visible == visible) return true;
  rows_[row].visible = visible;
  emit dataChanged(index, index, {Qt::CheckStateRole});
  return true;
}

std::vector<ReferenceLine> referenceLines(const RunDescriptor& r) {
  std::vector<ReferenceLine> lines;
  const ReferenceScore* best = bestAnchor(r.references);
  for (const auto& ref : r.references) {
    if (ref.name != baselineName(Baseline::Mean) || &ref == best)
      lines.push_back({QString::fromStdString(ref.label), ref.validation_loss, &ref == best});
  }
  if (r.truth.hasFloor() && r.truth.bayes_floor > 0)
    lines.push_back({QString("Bayes floor"), r.truth.bayes_floor});
  return lines;
}

}  // namespace rsalab
