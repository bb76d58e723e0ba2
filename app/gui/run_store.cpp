// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/run_store.h"

#include <cmath>

#include "engine/core/forecast/skill_interval.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/verdicts/first_minute_table.h"

namespace rsalab {

void RunStore::clear() {
  runs_.clear();
  statuses_.clear();
}

void RunStore::add(const RunDescriptor& run) { runs_[run.id] = run; }

void RunStore::setStatus(const RunStatus& status) { statuses_[status.run] = status; }

bool RunStore::anyActive() const {
  for (const auto& s : statuses_)
    if (s.state == RunState::Running || s.state == RunState::Idle) return true;
  return false;
}

bool RunStore::anyDiverged() const {
  for (const auto& s : statuses_)
    if (s.state == RunState::Diverged) return true;
  return false;
}

int RunStore::firstToInspect() const {
  for (const auto& r : runs_) {
    const ModelInfo* info = findModel(r.model.toStdString());
    if (info && info->has_rems) return r.id;
  }
  return runs_.isEmpty() ? -1 : runs_.firstKey();
}

InspectedRunInfo RunStore::inspectedRunInfo(const RunDescriptor& d) {
  return {d.model, d.seed, d.truth, d.length};
}

RunRow RunStore::newRow(const RunDescriptor& r) {
  RunRow row;
  row.id = r.id;
  row.model = r.model;
  row.seed = r.seed;
  row.parameters = r.parameters;
  row.train_size = r.train_size;
  row.requested_train_size = r.requested_train_size;
  row.state = RunState::Idle;
  return row;
}

RunRow RunStore::row(const RunDescriptor& d, const RunStatus& s) {
  RunRow row = newRow(d);
  row.id = s.run;
  row.state = s.state;
  row.step = s.step;
  row.max_steps = s.max_steps;
  row.train_loss = s.train_loss;
  row.validation_loss = s.validation_loss;
  row.bayes_floor = d.truth.bayes_floor;
  row.steps_per_second = s.steps_per_second;
  row.message = s.message;
  // The headline: skill vs the best reference (the reference best on validation); persistence's
  // skill beside it. On validation while the run trains, on test once it has finished.
  const bool test = std::isfinite(s.test_loss);
  const double model = test ? s.test_loss : s.validation_loss;
  row.skill = skillVersusBest(model, d.references, test);
  if (const auto* best = bestAnchor(d.references); best && std::isfinite(row.skill)) {
    row.skill_tip = QString("%1: 1 − %2 / %3 (model / best reference, %4: lowest validation loss)")
                        .arg(test ? "test, best weights" : "validation, latest evaluation")
                        .arg(model, 0, 'g', 4)
                        .arg(test ? best->test_loss : best->validation_loss, 0, 'g', 4)
                        .arg(QString::fromStdString(best->label));
  }
  if (test) {
    const auto ci = skillIntervalVersusBest(s.test_errors, d.references, d.horizon, d.season);
    if (ci.valid()) {
      row.skill_low = ci.low;
      row.skill_high = ci.high;
      row.skill_verdict = skillVerdictName(ci.verdict());
      row.skill_tip += QString(
                           "\n95 % paired block bootstrap over %1 test targets (block %2, %3 "
                           "resamples): [%4, %5]; Diebold–Mariano (HLN) p = %6: %7")
                           .arg(ci.targets)
                           .arg(ci.block)
                           .arg(ci.resamples)
                           .arg(ci.low, 0, 'f', 3)
                           .arg(ci.high, 0, 'f', 3)
                           .arg(ci.dm_p, 0, 'g', 2)
                           .arg(row.skill_verdict);
    }
  }
  // Persistence's skill by the same rule: persistence as the only reference.
  if (const auto* p = findReference(d.references, baselineName(Baseline::Persistence)))
    row.skill_persistence = skillVersusBest(model, {*p}, test);
  return row;
}

RunStore::Progress RunStore::progress() const {
  Progress p;
  for (const auto& s : statuses_) {
    const bool ended = s.state == RunState::Finished || s.state == RunState::Stopped ||
                       s.state == RunState::Failed || s.state == RunState::Interrupted;
    p.done += s.step;
    p.total += ended ? s.step : s.max_steps;
    if (s.state == RunState::Running) {
      p.steps_per_second += s.steps_per_second;
      p.running = true;
    }
  }
  return p;
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

namespace {

// The window's first launch: defaultLaunchConfig() (whatever model and seed) and its models.
bool isDefaultLaunch(RunConfig c, const QStringList& models) {
  RunConfig launch = defaultLaunchConfig();
  c.model.model = launch.model.model;
  c.trainer.seed = launch.trainer.seed;
  std::vector<std::string> names;
  for (const auto& m : models) names.push_back(m.toStdString());
  return toJson(c) == toJson(launch) && names == defaultModelNames();
}

}  // namespace

QString runsHeadline(const QVector<RunDescriptor>& runs, const RunConfig& c,
                     const QString& preset) {
  QStringList models;
  for (const auto& r : runs)
    if (!models.contains(r.model)) models << r.model;
  const GroundTruth& truth = runs.front().truth;
  // The N the runs have, not the N asked for (a short series caps it; the CLI says the same).
  const RunDescriptor& first = runs.front();
  const QString n =
      first.train_size > 0 && first.train_size != c.train_size
          ? QString("%1 (asked for %2: all the series has)").arg(first.train_size).arg(c.train_size)
          : QString::number(first.train_size > 0 ? first.train_size : c.train_size);
  QString text =
      QString("Training %1 on %2, N = %3: validation loss (lower is better)")
          .arg(models.join(", "),
               QString::fromStdString(truth.description.empty() ? c.task.name : truth.description),
               n);
  if (truth.hasFloor())
    text += QString("; dashed: the Bayes floor %1 (%2)")
                .arg(truth.bayes_floor, 0, 'g', 3)
                .arg(QString::fromStdString(truth.floor_note));
  if (c.trainer.patience > 0)
    text += QString("; each run stops after %1 evaluations without improvement")
                .arg(c.trainer.patience);
  if (!preset.isEmpty()) text = preset + " — " + text;
  text += ".";
  // The default launch: what it shows over five seeds, measured (never a canned story).
  FirstMinuteTable measured;
  if (preset.isEmpty() && isDefaultLaunch(c, models) && readLaunchFirstMinuteTable(&measured))
    text += " " + QString::fromStdString(firstMinuteSummary(measured));
  return text;
}

}  // namespace rsalab
