// Run setup: the task and its size, which models, how many seeds, and the architecture shared
// by all models. Plain values in and out; the app turns them into a RunConfig.
#pragma once

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMap>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>

namespace rsalab {

struct RunSetup {
  QString task;
  QStringList models;
  int seeds = 1;
  qint64 train_size = 1024;
  qint64 max_steps = 2000;
  int length = 64;
  int d_model = 32;
  int heads = 4;
  int layers = 2;
};

class RunSetupPanel : public QWidget {
  Q_OBJECT
 public:
  // tasks: name -> one-line description; models: name -> human title.
  RunSetupPanel(const QList<QPair<QString, QString>>& tasks,
                const QList<QPair<QString, QString>>& models, QWidget* parent = nullptr);

  RunSetup setup() const;
  void setSetup(const RunSetup& setup);
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
  QLabel* task_description_;
  QMap<QString, QCheckBox*> models_;
  QSpinBox *seeds_, *train_size_, *steps_, *length_, *d_model_, *heads_, *layers_;
  QPushButton* start_;
  QList<QPair<QString, QString>> tasks_;
};

}  // namespace rsalab
