// SPDX-License-Identifier: GPL-3.0-or-later
// Run setup: the task and its size, which models, how many seeds, the step budget and the
// architecture shared by all models, the teacher process of the teacher and mix tasks. The model
// check boxes come from the model registry (every sequence model; the default launch ticked).
// config() writes the panel's fields into a RunConfig (REM heads by defaultRemHeads); the panel
// starts at defaultLaunchConfig() (the GUI's first launch). Each spin box has its option table
// row's range (the one validate checks) and the row's key as its object name ("d_model", "heads",
// "layers", "length", "max_steps"; "train_size"). Under the long-horizon protocol Training set N
// shows, disabled, the train windows the run will use for the form's L and H (config() writes
// that count); the user's own N returns with the split protocol or another task.
#pragma once

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QMap>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>

#include "engine/core/config/run_config.h"

namespace rsalab {

// What the panel shows: a run's config (the panel edits its task name and length, N, max steps and
// D, H, L) and the runs to start from it: which models, how many seeds.
struct RunSetup {
  RunConfig config;
  QStringList models;
  int seeds = 1;
};
// What a new panel shows: defaultLaunchConfig()'s values, the registry's default models, one seed.
RunSetup defaultRunSetup();

class RunSetupPanel : public QWidget {
  Q_OBJECT
 public:
  // tasks: name -> one-line description.
  explicit RunSetupPanel(const QList<QPair<QString, QString>>& tasks, QWidget* parent = nullptr);

  RunSetup setup() const;
  // Shows `setup`; its config is also the base setup() fills with the panel's fields.
  void setSetup(const RunSetup& setup);
  // `base` with the task name and length, N, architecture (REM heads by defaultRemHeads) and max
  // steps of the panel; models and seeds are not part of a RunConfig (setup() has them).
  RunConfig config(const RunConfig& base) const;
  // The panel's fields from `config` (models and seeds stay); emits no setupChanged.
  void setConfig(const RunConfig& config);
  // The check boxes' models, in registry order, then any named variant a setup brought.
  QStringList modelChoices() const;
  // Adds a task to the list, or updates its description (e.g. "csv" once a file is imported).
  void addTask(const QString& name, const QString& description);
  QPushButton* startButton() const { return start_; }

 signals:
  /// Any field changed; consumed by the main window (cold edits while running).
  void setupChanged();
  /// The big Start button; consumed by the main window.
  void startRequested();

 private:
  QComboBox* task_;
  QComboBox* anchors_;          // TaskOptions::anchors
  QComboBox* teacher_process_;  // TaskOptions::teacher_process (teacher, mix, seasonal, ar; item
                                // data: name)
  // TaskOptions::protocol, norm, features, horizon, epochs (enabled where they apply)
  QComboBox *protocol_, *norm_, *features_;
  QSpinBox *horizon_, *epochs_;
  void enableSeriesFields();
  // Training set N under the long-horizon protocol (see run_setup_panel.cpp).
  void showTrainSize(bool long_horizon);
  int own_train_size_ = 0;        // the N the user set, shown again when the protocol goes
  bool showing_windows_ = false;  // the field shows the protocol's train windows
  QString train_size_tip_;
  QLabel* task_description_;
  // A check box for `name` after the others (a named variant a setup names, model_variant.h).
  QCheckBox* addModelBox(const QString& name, const QString& tooltip);
  QList<QPair<QString, QCheckBox*>> models_;  // registry order, then the variants set up
  QGridLayout* model_grid_;
  QSpinBox *seeds_, *train_size_, *steps_, *length_, *d_model_, *heads_, *layers_;
  QPushButton* start_;
  QList<QPair<QString, QString>> tasks_;
  RunConfig base_;  // the last setSetup's config: what setup() fills with the panel's fields
};

}  // namespace rsalab
