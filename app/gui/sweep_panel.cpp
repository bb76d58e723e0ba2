// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/sweep_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/sweep_comparison.h"
#include "app/gui/sweep_dialog.h"
#include "app/gui/sweep_folder_watcher.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/sweep/sweep_plan.h"
#include "engine/sweep/sweep.h"
#include "engine/sweep/sweep_references.h"
#include "widgets/comparison_table.h"
#include "widgets/elided_label.h"
#include "widgets/regime_map_view.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {

// ", tuned (budget: …)" for a sweep whose models ran at tuned configurations; "" otherwise.
QString tunedTitle(const TunedSet& tuned, const RunConfig& base) {
  return tuned.empty() ? QString() : ", " + QString::fromStdString(tunedLabel(tuned, &base));
}

}  // namespace

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent),
      runner_(new SweepRunner(this)),
      watcher_(new SweepFolderWatcher(this)),
      dialog_(new SweepDialog(this)) {
  setObjectName("SweepPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QHBoxLayout;
  new_button_ = new QPushButton(tr("New sweep…"), this);
  new_button_->setToolTip(tr("Models × sizes N × seeds, trained in the background"));
  open_button_ = new QPushButton(tr("Open results…"), this);
  open_button_->setToolTip(tr("Show a sweep.json written by rsalab-cli sweep"));
  save_button_ = new QPushButton(tr("Save figure…"), this);
  save_button_->setToolTip(tr("The sample-efficiency figure as PNG, SVG or PDF"));
  status_ = new ElidedLabel(
      tr("No sweep yet: New sweep… trains models at several training-set sizes."), this);
  progress_ = new QProgressBar(this);
  progress_->setMinimumWidth(130);  // "12 / 105 runs" fits
  progress_->setMaximumWidth(220);
  progress_->setFormat(tr("%v / %m runs"));
  progress_->setVisible(false);
  eta_ = new QLabel(this);
  cancel_button_ = new QPushButton(tr("Cancel"), this);
  cancel_button_->setVisible(false);
  for (QWidget* w : {static_cast<QWidget*>(new_button_), static_cast<QWidget*>(open_button_),
                     static_cast<QWidget*>(save_button_)}) {
    bar->addWidget(w);
  }
  bar->addSpacing(12);
  bar->addWidget(status_, 1);
  bar->addWidget(progress_);
  bar->addWidget(eta_);
  bar->addWidget(cancel_button_);
  layout->addLayout(bar);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  view_ = new SampleEfficiencyView(splitter);
  table_ = new ComparisonTable(splitter);
  splitter->addWidget(view_);
  splitter->addWidget(table_);
  regime_ = new RegimeMapView(this);  // MainWindow shows it in a tab of its own
  regime_->setObjectName("RegimeMapView");
  regime_->setEmptyMessage(tr(
      "No regime map yet: it needs a sweep along a task axis (the recurrent share of the "
      "signal × N). Run the RSA paper's Figure 1 preset with the button below, or from a shell:\n"
      "rsalab-cli sweep --preset figure1 --out DIR\nthen open DIR/sweep.json here (Open "
      "results…)."));
  regime_->setEmptyAction(tr("Run the Figure 1 preset"));
  // The figure first: QCustomPlot's size hint is tiny, the tables' large, so fix the share.
  view_->setMinimumHeight(260);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({750, 250});  // the table scrolls; a few rows of it are enough at first
  layout->addWidget(splitter, 1);

  connect(new_button_, &QPushButton::clicked, this, &SweepPanel::openDialog);
  connect(open_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open sweep results"), QString(),
                                                      tr("Sweep results (sweep.json *.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!loadResults(path, &error))
      QMessageBox::warning(this, tr("Cannot open sweep results"), error);
  });
  connect(save_button_, &QPushButton::clicked, this, &SweepPanel::saveFigure);
  connect(cancel_button_, &QPushButton::clicked, this, &SweepPanel::cancelSweep);
  connect(dialog_, &SweepDialog::startRequested, this,
          [this](const SweepOptions& o) { startSweep(o); });
  connect(dialog_, &SweepDialog::cancelRequested, this, &SweepPanel::cancelSweep);
  connect(runner_, &SweepRunner::rowFinished, this, &SweepPanel::onRow);
  connect(runner_, &SweepRunner::finished, this, &SweepPanel::onFinished);
  connect(runner_, &SweepRunner::failed, this, [this](const QString& message) {
    setRunning(false);
    dialog_->setMessage("<b>Sweep failed:</b> " + message.toHtmlEscaped());
    status_->setText(tr("Sweep failed: %1").arg(message));
    emit log("Sweep failed: " + message);
    emit sweepFinished(true);
  });
  connect(watcher_, &SweepFolderWatcher::rowArrived, this, [this](const SweepRow& row) {
    if (!row.error.empty())
      emit log(QString("Sweep cell %1 (%2 N=%3) failed: %4")
                   .arg(row.run)
                   .arg(QString::fromStdString(row.model))
                   .arg(row.size)
                   .arg(QString::fromStdString(row.error)));
    if (row.ok()) addRow(row);
  });
  connect(watcher_, &SweepFolderWatcher::statusChanged, this,
          [this](const QString& line, qint64 done, qint64 total) {
            status_->setText(line);
            progress_->setRange(0, static_cast<int>(std::max<qint64>(1, total)));
            progress_->setValue(static_cast<int>(done));
            progress_->setVisible(done < total);
          });
  connect(watcher_, &SweepFolderWatcher::problem, this,
          [this](const QString& message) { emit log("Sweep folder: " + message); });
  const auto open_run = [this](int run_id) {
    if (const SweepRow* r = row(run_id)) emit runActivated(*r);
  };
  connect(view_, &SampleEfficiencyView::pointClicked, this, open_run);
  connect(regime_, &RegimeMapView::runClicked, this, open_run);
}

SweepPanel::~SweepPanel() = default;  // the runner (a child) cancels and waits

void SweepPanel::openDialog() {
  if (!runner_->isRunning() && base_provider_) dialog_->setBase(base_provider_());
  dialog_->show();
  dialog_->raise();
  dialog_->activateWindow();
}

bool SweepPanel::startSweep(const SweepOptions& requested) {
  if (runner_->isRunning()) return false;
  SweepOptions options = requested;
  try {
    // Honest N: sizes a real series cannot give are run once at the N they give, and said so.
    std::vector<std::string> notes;
    options.sizes = honestSweepSizes(options, &notes);
    for (const auto& note : notes) emit log("Warning: " + QString::fromStdString(note));
    for (const auto& m : options.models) {
      RunConfig c = options.base;
      c.model.model = m;
      validate(c);
    }
  } catch (const std::exception& e) {
    dialog_->setMessage("<b>Cannot start:</b> " + QString::fromUtf8(e.what()).toHtmlEscaped());
    return false;
  }
  watcher_->stop();
  rows_.clear();
  by_run_.clear();
  reference_rows_.clear();
  base_ = options.base;
  resetFigures(QString("%1, T = %2, %3 steps per run, %4 seed(s)")
                   .arg(QString::fromStdString(options.base.task.name))
                   .arg(options.base.task.length)
                   .arg(QString::fromStdString(
                       sweepStepRange(options.base, options.budget_epochs, options.sizes)))
                   .arg(options.seeds),
               options.axis.name);
  refreshTable();
  // Bounded memory however long the sweep: each run's every point and inspection record go to
  // the sweep's own folder, the rows here keep thinned curves for drawing.
  if (options.keep_curves || options.keep_inspection) {
    folder_ = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/sweeps/" +
              QString::fromStdString(utcTimestamp()).replace(':', '-');
    options.run_folder = folder_.toStdString();
    options.curve_points = kCurvePointsInMemory;
  } else {
    folder_.clear();
  }
  if (!runner_->start(options)) return false;
  setRunning(true);
  updateProgress(0, runner_->total());
  dialog_->setMessage(tr("Running: points appear in the Sample efficiency tab as runs finish."));
  emit log(
      QString("Sweep started: %1 models × %2 sizes × %3 seeds = %4 runs of %5 steps on %6%7.")
          .arg(options.models.size())
          .arg(options.sizes.size())
          .arg(options.seeds)
          .arg(runner_->total())
          .arg(options.base.trainer.max_steps)
          .arg(QString::fromStdString(options.base.task.name))
          .arg(folder_.isEmpty() ? QString() : "; every run's curves and maps go to " + folder_));
  return true;
}

void SweepPanel::cancelSweep() {
  if (!runner_->isRunning()) return;
  runner_->cancel();
  status_->setText(tr("Cancelling: the runs in progress stop at their next step…"));
}

void SweepPanel::onRow(const std::shared_ptr<const SweepRow>& shared, qint64 done, qint64 total) {
  const SweepRow& row = *shared;
  updateProgress(done, total);
  if (!row.error.empty())
    emit log(QString("Sweep run %1 N=%2 seed %3 failed: %4")
                 .arg(QString::fromStdString(row.model))
                 .arg(row.size)
                 .arg(row.seed)
                 .arg(QString::fromStdString(row.error)));
  if (!row.ok()) return;  // failed or cut short by Cancel: not a point
  addRow(row);
}

void SweepPanel::addRow(const SweepRow& row) {
  by_run_[static_cast<int>(row.run)] = rows_.size();
  rows_.push_back(row);
  view_->addPoint(sampleEfficiencyPoint(row));
  if (const auto p = regimePoint(row)) regime_->addPoint(*p);
  refreshTable();
}

void SweepPanel::resetFigures(const QString& title, const std::string& axis) {
  view_->clear();
  view_->setTitle(title);
  regime_->clear();
  regime_->setTitle(title);
  regime_->setAxisName(QString::fromStdString(axis));
}

bool SweepPanel::watchFolder(const QString& dir, QString* error) {
  if (runner_->isRunning()) {
    *error = tr("a sweep is running here; cancel it first");
    return false;
  }
  if (!watcher_->open(dir, error)) return false;
  const SweepPlan& plan = watcher_->plan();
  rows_.clear();
  by_run_.clear();
  base_ = plan.base;
  resetFigures(
      QString("%1 (%2, T = %3, %4 steps per run, %5 seed(s)%6)")
          .arg(QDir(dir).dirName(), QString::fromStdString(plan.base.task.name))
          .arg(plan.base.task.length)
          .arg(QString::fromStdString(sweepStepRange(plan.base, plan.budget_epochs, plan.sizes)))
          .arg(plan.seeds.size())
          .arg(tunedTitle(plan.tuned, plan.base)),
      plan.axis.name);
  refreshTable();
  status_->setText(tr("Watching %1: %2 cells planned").arg(dir).arg(plan.cellCount()));
  emit log(QString("Watching sweep folder %1: %2 cells (%3).")
               .arg(dir)
               .arg(plan.cellCount())
               .arg(QString::fromStdString(plan.hash)));
  emit resultsOpened();
  return true;
}

void SweepPanel::onFinished(const SweepResult& result, bool cancelled) {
  setRunning(false);
  if (!folder_.isEmpty()) {  // the folder reopens with Open results… (its sweep.json)
    try {
      writeFileAtomically(QDir(folder_).filePath("sweep.json").toStdString(), sweepJson(result));
    } catch (const std::exception& e) {
      emit log(QString("Could not write the sweep's sweep.json: %1").arg(e.what()));
    }
  }
  for (const auto& r : result.rows) {  // baselines at each N, drawn grey beside the models
    if (!r.reference) continue;
    view_->addPoint(sampleEfficiencyPoint(r));
    reference_rows_.push_back(r);
  }
  // The sweep's own fits (per seed): of the excess loss where the task has a floor.
  QString fits = result.excess_fits.empty() ? QString() : QString("excess loss: ");
  for (const auto& f : result.excess_fits.empty() ? result.fits : result.excess_fits) {
    if (f.seeds() == 0) continue;
    fits += QString("%1 b=%2").arg(QString::fromStdString(f.model)).arg(f.b, 0, 'f', 3);
    fits += f.seeds() >= 2 ? QString(" [%1, %2] over %3 seeds; ")
                                 .arg(f.b_low, 0, 'f', 3)
                                 .arg(f.b_high, 0, 'f', 3)
                                 .arg(f.seeds())
                           : QString(" (1 seed); ");
  }
  for (const auto& note : result.notes) fits += QString::fromStdString(note) + "; ";
  const QString summary = QString("Sweep %1: %2 usable runs in %3 s. %4")
                              .arg(cancelled ? "cancelled" : "finished")
                              .arg(rows_.size())
                              .arg(result.wall_seconds, 0, 'f', 1)
                              .arg(fits);
  status_->setText(summary);
  dialog_->setMessage(summary.toHtmlEscaped());
  emit log(summary);
  emit sweepFinished(cancelled);
}

void SweepPanel::setRunning(bool running) {
  dialog_->setRunning(running);
  progress_->setVisible(running);
  eta_->setVisible(running);
  cancel_button_->setVisible(running);
  open_button_->setEnabled(!running);
}

void SweepPanel::updateProgress(qint64 done, qint64 total) {
  progress_->setRange(0, static_cast<int>(std::max<qint64>(1, total)));
  progress_->setValue(static_cast<int>(done));
  const double eta = runner_->etaSeconds();
  eta_->setText(SweepDialog::formatEta(eta));
  dialog_->setProgress(done, total, eta);
  status_->setText(tr("Sweep running: %1 of %2 runs done").arg(done).arg(total));
}

void SweepPanel::refreshTable() { table_->setEntries(comparisonEntries(rows_, base_)); }

const SweepRow* SweepPanel::row(int run_id) const {
  const auto it = by_run_.find(run_id);
  return it == by_run_.end() ? nullptr : &rows_[it->second];
}

bool SweepPanel::loadResults(const QString& path, QString* error) {
  if (runner_->isRunning()) {
    *error = tr("a sweep is running; cancel it first");
    return false;
  }
  SweepResult result;
  try {
    result = sweepResultFromJson(readTextFile(path.toStdString(), 256 << 20));
  } catch (const std::exception& e) {
    *error = path + ": " + QString::fromUtf8(e.what());
    return false;
  }
  openResult(std::move(result), QFileInfo(path).fileName(), path);
  return true;
}

void SweepPanel::openResult(SweepResult result, const QString& name, const QString& path) {
  watcher_->stop();
  // A sweep the GUI ran keeps each run's every point and maps beside its sweep.json.
  const QDir beside = QFileInfo(path).absoluteDir();
  for (auto& r : result.rows) {
    const QString files = beside.filePath(QString("runs/%1").arg(r.run));
    if (r.reference || !QFileInfo::exists(files + "/metrics.csv")) continue;
    r.files = files.toStdString();
    r.has_inspection = QFileInfo::exists(files + "/inspection.json");
  }
  showResult(std::move(result), name);
  status_->setText(tr("Opened %1: %2 runs").arg(path).arg(rows_.size()));
  emit log(QString("Opened sweep results %1 (%2 runs).").arg(path).arg(rows_.size()));
  emit resultsOpened();
}

void SweepPanel::showResult(SweepResult result, const QString& name) {
  rows_.clear();
  by_run_.clear();
  reference_rows_.clear();
  base_ = result.base;
  QVector<SampleEfficiencyPoint> points;
  std::vector<RegimePoint> regime;
  for (auto& r : result.rows) {
    if (r.reference) {  // grey reference curves; the references of a run opened from its point
      points.push_back(sampleEfficiencyPoint(r));
      reference_rows_.push_back(r);
    }
    if (!r.ok()) continue;
    by_run_[static_cast<int>(r.run)] = rows_.size();
    points.push_back(sampleEfficiencyPoint(r));
    if (const auto p = regimePoint(r)) regime.push_back(*p);
    rows_.push_back(std::move(r));
  }
  int64_t fewest = 0, most = 0;  // the steps the runs trained (a budget may grow with N)
  for (const auto& r : rows_) {
    fewest = fewest == 0 ? r.steps : std::min(fewest, r.steps);
    most = std::max(most, r.steps);
  }
  if (most == 0) fewest = most = base_.trainer.max_steps;
  resetFigures(
      QString("%1 (%2, T = %3, %4 steps per run%5)")
          .arg(name, QString::fromStdString(base_.task.name))
          .arg(base_.task.length)
          .arg(fewest == most ? QString::number(most) : QString("%1–%2").arg(fewest).arg(most))
          .arg(tunedTitle(result.tuned, base_)),
      result.axis.name);
  view_->setPoints(points);
  regime_->setPoints(regime);
  refreshTable();
}

void SweepPanel::saveFigure() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save sample-efficiency figure"),
                                                    "sample_efficiency.png",
                                                    tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
  if (path.isEmpty()) return;
  QString error;
  if (!view_->saveImage(path, 1200, 800, &error))
    QMessageBox::warning(this, tr("Cannot save"), error);
}

}  // namespace rsalab
