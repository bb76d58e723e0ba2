// SPDX-License-Identifier: GPL-3.0-or-later
// HyperParameterForm: the trainer's tunable values as a form built from HyperParameterInfo.
//
// Each row: label (with unit), a spin box limited to [minimum, maximum] (so out-of-range values
// cannot be typed), a log10 slider for log-scale fields, and a badge: "applies now" for hot fields,
// "restart" for cold ones. Editing a hot field emits hotChanged at once; editing a cold field marks
// it pending ("restart pending") and enables "Apply & restart", which emits every value.
// setValues() / setConfig() are how the app pushes the running configuration in: they never emit
// hotChanged, emit coldPending only when they clear pending marks, and clamp and report
// (invalidValue) values outside a field's range. config() writes the fields into a RunConfig, so
// the form is the one place its values are read from. A new form starts at defaultLaunchConfig().
#pragma once

#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/config/trainer_options.h"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;

namespace rsalab {

// The trainer's values the app's Hyperparameters form shows: every tunable value except max_steps,
// which the run setup shows (one field per value, so the two cannot disagree).
std::vector<HyperParameterInfo> formHyperParameters();

class HyperParameterForm : public QWidget {
  Q_OBJECT

 public:
  explicit HyperParameterForm(const std::vector<HyperParameterInfo>& parameters,
                              QWidget* parent = nullptr);

  QMap<QString, double> values() const;
  double value(const QString& name) const;  // NaN for an unknown name
  // Sets values and makes them the baseline (their pending marks clear). Out-of-range values are
  // clamped and reported with invalidValue; unknown names are reported and ignored.
  void setValues(const QMap<QString, double>& values);
  // `base` with the trainer values of every field this form shows.
  RunConfig config(const RunConfig& base) const;
  // The form's fields from `config.trainer` (as setValues: baseline, no hotChanged).
  void setConfig(const RunConfig& config);

  QStringList pendingColdFields() const;
  QStringList fieldNames() const;
  bool isHot(const QString& name) const;
  bool isLogScale(const QString& name) const;
  // Whole numbers only. Defaults from the unit (steps, sequences, evaluations, ...).
  void setIntegral(const QString& name, bool integral);
  bool isIntegral(const QString& name) const;

  // The widgets of a field (tests and focus handling); nullptr for unknown names.
  QDoubleSpinBox* spinBox(const QString& name) const;
  QSlider* logSlider(const QString& name) const;
  QLabel* badge(const QString& name) const;
  QPushButton* applyButton() const { return apply_button_; }

 public slots:
  void revertCold();  // cold fields back to their baseline, nothing pending

 signals:
  /// A hot field was edited; the trainer applies it at its next step.
  void hotChanged(const QString& name, double value);
  /// The set of edited, not yet applied cold fields changed (empty when none); the window title
  /// or status bar shows that a restart is needed.
  void coldPending(const QStringList& names);
  /// "Apply & restart" was pressed: every value; the app restarts the run with them.
  void applyAndRestart(const QMap<QString, double>& values);
  /// setValues received a value outside a field's range (clamped) or an unknown name.
  void invalidValue(const QString& name, const QString& message);

 private:
  struct Field {
    HyperParameterInfo info;
    QDoubleSpinBox* spin = nullptr;
    QSlider* slider = nullptr;  // log fields only
    QLabel* badge = nullptr;
    QLabel* label = nullptr;
    double baseline = 0;
    bool pending = false;
  };
  void onEdited(const QString& name, double value);
  void setPending(Field& field, bool pending);
  void syncSlider(Field& field);
  void emitPending();
  double sliderToValue(const Field& field, int position) const;

  std::map<QString, Field> fields_;
  QStringList order_;
  QPushButton* apply_button_ = nullptr;
  QPushButton* revert_button_ = nullptr;
  bool updating_ = false;  // programmatic changes are not edits
};

}  // namespace rsalab
