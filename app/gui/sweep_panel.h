// SPDX-License-Identifier: GPL-3.0-or-later
// The "Sample efficiency" tab: the sample-efficiency view above the comparison table, a bar with
// New sweep… / Open results… / Save figure…, and the running sweep's progress, ETA and Cancel.
// Owns the SweepRunner (its thread contract is in app/gui/sweep_runner.h) and the Sweep dialog;
// keeps the finished runs' rows (thinned curves; every point and the inspection record in the
// sweep's folder) so a clicked point can be opened. It also shows a sweep folder filling in
// (watchFolder: a planned or Slurm sweep's cells as they appear, app/gui/sweep_folder_watcher.h).
// Rows with a task-axis value (SweepRow::axis_value) also feed the regime map (regimeView(), a tab
// of its own that MainWindow places beside this one).
#pragma once

#include <QWidget>
#include <functional>
#include <map>
#include <vector>

#include "app/gui/sweep_runner.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace rsalab {

class ComparisonTable;
class ElidedLabel;
class RegimeMapView;
class SampleEfficiencyView;
class SweepDialog;
class SweepFolderWatcher;

class SweepPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPanel(QWidget* parent = nullptr);
  ~SweepPanel() override;

  // Where a new sweep's shared config comes from (the main window's run setup); asked when the
  // dialog opens.
  void setBaseConfigProvider(std::function<RunConfig()> provider) {
    base_provider_ = std::move(provider);
  }

  bool startSweep(const SweepOptions& options);  // false while one runs (or on a bad config)
  void cancelSweep();
  // Shows a sweep written by `rsalab-cli sweep` (sweep.json); false with `error` on bad input.
  bool loadResults(const QString& path, QString* error);
  // Shows a sweep's result read from `path` (a session's sweep.json, already parsed) as
  // loadResults does once the file is read: runs/<run>/ beside it hold each run's every point.
  void openResult(SweepResult result, const QString& name, const QString& path);
  // Shows a sweep's result; `name` titles it.
  void showResult(SweepResult result, const QString& name);
  // Shows the sweep in folder `dir` (plan.json, cells/) and keeps adding its cells as they are
  // written, here or on a cluster; false with the reader's message on a bad folder.
  bool watchFolder(const QString& dir, QString* error);
  SweepFolderWatcher* folderWatcher() const { return watcher_; }
  void openDialog();

  SampleEfficiencyView* view() const { return view_; }
  RegimeMapView* regimeView() const { return regime_; }
  ComparisonTable* table() const { return table_; }
  SweepDialog* dialog() const { return dialog_; }
  SweepRunner* runner() const { return runner_; }
  const std::vector<SweepRow>& rows() const { return rows_; }
  // The sweep's reference rows (baselines and anchors per N and seed): a run's references.
  const std::vector<SweepRow>& referenceRows() const { return reference_rows_; }
  const SweepRow* row(int run_id) const;  // nullptr if unknown
  // Points of each curve a sweep's row keeps in memory for drawing (every point is in its folder).
  static constexpr int kCurvePointsInMemory = 256;
  QString folder() const { return folder_; }
  bool isRunning() const { return runner_->isRunning(); }

 signals:
  /// A point was clicked: that run's row (curves, inspection if kept); MainWindow opens it.
  void runActivated(const rsalab::SweepRow& row);
  /// A line for the log dock.
  void log(const QString& line);
  /// The running sweep ended (finished or cancelled); tests and scripts wait for it.
  void sweepFinished(bool cancelled);
  /// Results were opened (a sweep.json or a sweep folder); MainWindow gives the figures room.
  void resultsOpened();

 private:
  void onRow(const std::shared_ptr<const SweepRow>& row, qint64 done, qint64 total);
  void onFinished(const SweepResult& result, bool cancelled);
  void setRunning(bool running);
  void refreshTable();
  void updateProgress(qint64 done, qint64 total);
  void saveFigure();

  void addRow(const SweepRow& row);  // a usable run: a point, a table entry
  // Clears both figures for a new sweep: its title and task axis (empty: none).
  void resetFigures(const QString& title, const std::string& axis);

  SweepRunner* runner_;
  SweepFolderWatcher* watcher_;
  SweepDialog* dialog_;
  SampleEfficiencyView* view_;
  RegimeMapView* regime_;
  ComparisonTable* table_;
  QPushButton *new_button_, *open_button_, *save_button_, *cancel_button_;
  QProgressBar* progress_;
  ElidedLabel* status_;  // long summaries (every model's b) elided, whole in the tooltip
  QLabel* eta_;
  std::function<RunConfig()> base_provider_;
  RunConfig base_;
  std::vector<SweepRow> rows_;
  std::vector<SweepRow> reference_rows_;
  // The running (or last) sweep's folder: runs/<run>/ with every point and map, and sweep.json
  // once it ends. Empty: the sweep keeps neither curves nor maps.
  QString folder_;
  std::map<int, size_t> by_run_;  // run id → index in rows_
};

}  // namespace rsalab
