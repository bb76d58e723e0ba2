// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/runs_headline.h"

#include <QStringList>

#include "engine/core/verdicts/first_minute_table.h"

namespace rsalab {

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

QString runsHeadline(const std::vector<RunDescriptor>& runs, const RunConfig& c,
                     const QString& preset) {
  QStringList models;
  for (const auto& r : runs)
    if (const QString m = QString::fromStdString(r.model); !models.contains(m)) models << m;
  const GroundTruth& truth = runs.front().truth;
  // The N the runs have, not the N asked for (a short series caps it; the CLI says the same). What
  // was asked is the task's word (RunDescriptor::requested_train_size): the long-horizon protocol
  // asks for every train window, whatever the config's N.
  const RunDescriptor& first = runs.front();
  const int64_t asked = first.requested_train_size > 0 ? first.requested_train_size : c.train_size;
  const QString n =
      first.train_size > 0 && first.train_size != asked
          ? QString("%1 (asked for %2: all the series has)").arg(first.train_size).arg(asked)
          : QString::number(first.train_size > 0 ? first.train_size : c.train_size);
  QString text =
      QString("Training %1 on %2, N = %3: validation loss (lower is better)")
          .arg(models.join(", "),
               QString::fromStdString(truth.description.empty() ? c.task.name : truth.description),
               n);
  if (truth.hasFloor())
    text += QString(truth.floor_is_bound ? "; dashed: %1, %2" : "; dashed: the Bayes floor %1 (%2)")
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
