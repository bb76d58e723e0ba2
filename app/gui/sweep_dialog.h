// SPDX-License-Identifier: GPL-3.0-or-later
// The Sweep dialog: which models, training-set sizes N, seeds and step budget, and optionally a
// task axis (a task parameter and its values: the regime map's x) (the task and the
// architecture come from the run setup), a Start button, and while the sweep runs its overall
// progress, ETA and Cancel. Non-modal: the window stays usable and points appear in the
// "Sample efficiency" tab as runs finish. It only collects and shows values; SweepPanel owns the
// SweepRunner (the thread) and wires the two.
#pragma once

#include <QDialog>
#include <QMap>

#include "engine/core/sweep/sweep_types.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace rsalab {

class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SweepDialog(QWidget* parent = nullptr);

  // The config every run shares (task, architecture, trainer); the dialog sets model, N, seeds,
  // steps on top.
  void setBase(const RunConfig& base);
  // The sweep the fields describe; false with `error` naming the field when a value is bad.
  bool readOptions(SweepOptions* options, QString* error) const;
  void setModels(const QStringList& models);
  void setSizesText(const QString& text);
  // The optional task axis, "mix.share=0, 0.5, 1" (a regime map); empty: none.
  void setAxisText(const QString& text);
  void setSeeds(int seeds);
  void setSteps(int steps);

  void setRunning(bool running);
  void setProgress(qint64 done, qint64 total, double eta_seconds);
  void setMessage(const QString& text);
  QPushButton* startButton() const { return start_; }
  QPushButton* cancelButton() const { return cancel_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* etaLabel() const { return eta_; }

  static QString formatEta(double seconds);  // "ETA 1 m 05 s"; "ETA –" when unknown

 signals:
  /// Start pressed with valid fields; consumed by SweepPanel, which starts the runner.
  void startRequested(const rsalab::SweepOptions& options);
  /// Cancel pressed while running; consumed by SweepPanel.
  void cancelRequested();

 private:
  RunConfig base_;
  QList<QPair<QString, QCheckBox*>> models_;  // registry order
  QLineEdit* sizes_ = nullptr;
  QLineEdit* axis_ = nullptr;
  QSpinBox *seeds_ = nullptr, *steps_ = nullptr, *parallel_ = nullptr;
  QLabel* base_label_ = nullptr;
  QLabel* message_ = nullptr;
  QLabel* eta_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton *start_ = nullptr, *cancel_ = nullptr;
};

}  // namespace rsalab
