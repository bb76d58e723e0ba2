// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore: the runs the window shows, one Run each (engine/core/session/run_record.h), live,
// from a session bundle or a sweep's run, and the table model the runs table (a QTableView) draws:
// one row per run with its colour swatch, a visibility checkbox, state, step, losses, the
// validation loss above the task's Bayes floor, the skill against the best reference with its
// interval, parameters and speed. The inspector, the loss view's reference lines, the session
// recorder and a train preset's verdict read the same records.
//
// A run's colour and visibility live here only, as its roles (Qt::DecorationRole of kSwatch,
// Qt::CheckStateRole of kVisible): every view that draws runs (the runs table, the loss curves and
// their legend) reads them, follows dataChanged, and changes visibility through setData.
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <vector>

#include "engine/core/session/run_record.h"
#include "widgets/reference_line.h"

namespace rsalab {

class RunStore : public QAbstractTableModel {
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
  explicit RunStore(QObject* parent = nullptr);

  void clear();
  // Adds a run, or replaces the one with its id (keeping its row, colour and visibility). An
  // invalid colour: runColor of its number (live and session runs), its model's colour (sweeps).
  void add(const Run& run, const QColor& color = QColor());
  void remove(const RunId& id);
  // A newer descriptor (anchors fitted since) or status for a run held; unknown ids are ignored.
  void setWhat(const RunId& id, const RunDescriptor& what);
  void setStatus(const RunId& id, const RunStatus& now);

  const Run& runAt(int row) const { return rows_.at(static_cast<size_t>(row)).run; }
  const Run* find(const RunId& id) const;  // nullptr: not held
  int rowOf(const RunId& id) const;        // -1: not held
  RunId idAt(int row) const;               // invalid outside the rows
  QColor colorOf(const RunId& id) const;
  bool isVisible(const RunId& id) const;
  bool isEmpty() const { return rows_.empty(); }
  bool anyActive() const;  // a run idle or running: its verdict is still to come
  bool anyDiverged() const;
  RunId firstToInspect() const;  // the first run whose model has REMs, else the first run

  // A run that has ended counts as complete: its steps done are its total, so the bar reaches
  // 100 % when every run has ended, however early.
  struct Progress {
    qint64 done = 0, total = 0;   // steps over every run
    double steps_per_second = 0;  // of the running runs together
    bool running = false;         // a run is still stepping
  };
  Progress progress() const;

  // QAbstractTableModel: display text, tooltips, the run's colour (Qt::DecorationRole and
  // Qt::BackgroundRole of kSwatch) and visibility (Qt::CheckStateRole of kVisible, also setData's).
  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;

 private:
  // The skill against the best reference (series tasks): on validation while the run trains, on
  // test with its paired bootstrap interval once finished. Computed when the run changes, not
  // on every paint (the bootstrap resamples).
  struct Skill {
    double value = qQNaN(), low = qQNaN(), high = qQNaN(), persistence = qQNaN();
    QString verdict;  // beats | ties | loses | too few test targets to decide; empty: none
    QString tip;
  };
  static Skill skillOf(const Run& run);
  QVariant text(const Run& run, const Skill& skill, int column) const;
  QVariant toolTip(const Run& run, const Skill& skill, int column) const;
  void changed(int row);

  // One row of the table: the run, what is computed from it, and how the views show it.
  struct Row {
    Run run;
    Skill skill;
    QColor color;
    bool visible = true;
  };
  std::vector<Row> rows_;  // in the order added
};

// The lines a run's validation curve is read against: the baselines' validation losses (the
// train mean's left out unless it is the best reference: far above every curve, it would squash
// them) and the task's Bayes floor, below which no model can go (in expectation).
std::vector<ReferenceLine> referenceLines(const RunDescriptor& run);

}  // namespace rsalab
