// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/preset_controller.h"

#include <QFile>
#include <QFileInfo>
#include <QMenuBar>

#include "app/gui/background_runner.h"
#include "app/gui/figure_focus.h"
#include "app/gui/sweep_panel.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/sweep/paper_table_run.h"
#include "engine/training/generation_probe.h"
#include "widgets/generation_time_view.h"
#include "widgets/inspector_panel.h"
#include "widgets/paper_table_view.h"
#include "widgets/regime_map_view.h"
#include "widgets/run_store.h"

namespace rsalab {

PresetController::PresetController(const PresetViews& views, QObject* parent)
    : QObject(parent), v_(views) {}

PresetController::~PresetController() {
  if (paper_control_) paper_control_->stop = true;  // the runner (a child) then waits one step
}

void PresetController::buildMenu(QMenu* menu) {
  menu->setToolTipsVisible(true);
  for (const Preset& p : presets()) {
    const QString name = QString::fromStdString(p.name);
    auto* action =
        menu->addAction(QString::fromStdString(p.title), this, [this, name] { apply(name); });
    action->setObjectName("Preset_" + name);
    action->setToolTip(QString::fromStdString(p.claim));
    action->setStatusTip(QString::fromStdString(p.claim));
  }
}

bool PresetController::apply(const QString& name) {
  const Preset* p = findPreset(name.toStdString());
  if (!p) {
    emit log(
        QString("Unknown preset '%1': use %2").arg(name, QString::fromStdString(presetNameList())));
    return false;
  }
  emit quietRequested();
  active_ = p;
  const QString claim = QString::fromStdString(p->claim);
  claim_line_ = QString("Preset \"%1\": %2").arg(QString::fromStdString(p->title), claim);
  emit log(QString("Preset %1 — claim: %2").arg(name, claim));
  v_.inspector->setHeadline(claim_line_);  // the claim in full, above every tab
  return run(*p) == 0;
}

void PresetController::forget() {
  claim_line_.clear();
  active_ = nullptr;
}

int PresetController::train(const Preset& p) {
  QStringList models;
  for (const auto& m : p.models) models << QString::fromStdString(m);
  const QString line = claim_line_;
  emit trainRequested(p.config,
                      models);  // forgets the preset, as a Start by hand does: set it again
  claim_line_ = line;
  active_ = &p;
  showTab(p.tab);
  emit status(claim_line_, 0);
  return 0;
}

int PresetController::sweep(const Preset& p) {
  SweepOptions o = p.sweepOptions();
  o.keep_curves = true;
  o.keep_inspection = true;
  if (!v_.sweeps->startSweep(o)) {
    emit log(QString("Preset %1: the sweep did not start (one is running?)")
                 .arg(QString::fromStdString(p.name)));
    return 1;
  }
  showTab(p.tab);
  emit busyChanged();
  emit status(claim_line_ + " — running the sweep; the verdict follows it.", 0);
  return 0;
}

int PresetController::probe(const Preset& p) {
  if (!measureGeneration(p.config)) return 1;
  emit status(claim_line_ + " — measuring; the verdict follows it.", 0);
  return 0;
}

int PresetController::computed(const Preset& p, const std::vector<ClaimVerdict>& verdicts) {
  showTab(p.tab);
  showVerdicts(verdicts);
  return 0;
}

// The tab a preset shows; the figure tabs with focus mode on (the figure fills in: room for it).
void PresetController::showTab(PresetTab tab) {
  switch (tab) {
    case PresetTab::Unchanged:
      return;
    case PresetTab::Rem:
      return v_.inspector->tabs()->setCurrentIndex(InspectorPanel::kRemTab);
    case PresetTab::Decay:
      return v_.inspector->tabs()->setCurrentIndex(InspectorPanel::kDecayTab);
    case PresetTab::Gates:
      return v_.inspector->tabs()->setCurrentIndex(InspectorPanel::kGatesTab);
    case PresetTab::LinearRnn:
      return v_.inspector->tabs()->setCurrentIndex(InspectorPanel::kLinearRnnTab);
    case PresetTab::Generation:
      return v_.focus->show(generation_view_);
    case PresetTab::SampleEfficiency:
      return v_.focus->show(v_.sweeps);
    case PresetTab::RegimeMap:
      return v_.focus->show(v_.sweeps->regimeView());
    case PresetTab::PaperTable:
      return v_.focus->show(paper_view_);
  }
}

// The running preset's verdicts, once what it ran has finished (never a canned answer).
void PresetController::runsChanged() {
  if (!active_ || active_->action != PresetAction::Train) return;
  // A train preset: every run ended; judge the first run's newest inspection record.
  const RunStore& store = *v_.runs;
  if (store.anyActive() || store.isEmpty()) return;
  const Run& first = store.runAt(0);
  const RunId run = first.id;
  const SnapshotHistory& history = v_.inspector->history();
  const auto steps = history.steps(run);
  if (steps.empty()) return;
  const RunDescriptor& d = first.what;
  ClaimEvidence e;
  e.record = history.at(run, steps.back());
  // The control: the same run's step-0 record (the untrained model, same initialisation).
  e.control = steps.front() == 0 && steps.back() > 0 ? history.at(run, 0) : nullptr;
  e.truth = &d.truth;
  e.length = d.length;
  if (e.record) showVerdicts(judgeClaim(active_->rule, e));
}

void PresetController::sweepFinished(bool cancelled) {
  if (!active_ || active_->action != PresetAction::Sweep) return;
  if (cancelled) {  // a cut-short sweep judges nothing
    active_ = nullptr;
    return;
  }
  const std::vector<SweepRow>& rows = v_.sweeps->rows();
  ClaimEvidence e;
  e.rows = &rows;
  showVerdicts(judgeClaim(active_->rule, e));
}

void PresetController::showVerdicts(const std::vector<ClaimVerdict>& verdicts) {
  if (verdicts.empty()) return;
  QStringList lines;
  // Where a sweep preset measured it: "on RSA's home ground (rem)" on a teacher process (as the
  // CLI's sweep and the docs' blocks say it).
  const std::string ground =
      active_ && active_->isSweep()
          ? claimGround(active_->config.task.name, active_->config.task.teacher_process)
          : "";
  for (const auto& v : verdicts) lines << QString::fromStdString(verdictLine(v, ground));
  for (const auto& line : lines) emit log("Verdict — " + line);
  last_verdicts_ = lines;
  const QString name = active_ ? QString::fromStdString(active_->name) : QString();
  emit status(QString("Preset %1: %2").arg(name, lines.join("  |  ")), 0);
  v_.inspector->setHeadline((claim_line_.isEmpty() ? QString() : claim_line_ + "\n") +
                            lines.join("\n"));
  active_ = nullptr;  // judged once
}

// ---- The "Linear attention = RNN" tab: the linear-attention preset's measurement
// (engine/training/generation_probe.h), run off the GUI thread and drawn point by point.

void PresetController::buildGenerationTab() {
  generation_view_ = new GenerationTimeView(v_.inspector->tabs());
  generation_view_->setObjectName("GenerationTimeView");
  v_.inspector->tabs()->addTab(generation_view_, "Linear attention = RNN");
  v_.focus->addFigureTab(generation_view_);
  generation_runner_ = new BackgroundRunner(this);
  connect(generation_view_, &GenerationTimeView::measureRequested, this,
          [this] { apply("linear-attention"); });
  connect(generation_runner_, &BackgroundRunner::failed, this, [this](const QString& message) {
    generation_view_->setRunning(false);
    emit busyChanged();
    generation_view_->setMessage("The measurement failed: " + message);
    emit log("Linear attention = RNN: the measurement failed: " + message);
    if (active_ && active_->action == PresetAction::Probe) active_ = nullptr;
  });
}

bool PresetController::measureGeneration(const RunConfig& config) {
  if (generation_runner_->isRunning()) {
    emit log("Linear attention = RNN: a measurement is already running.");
    return false;
  }
  // Timings mean something only on a quiet machine: no training meanwhile.
  emit quietRequested();
  showTab(PresetTab::Generation);
  generation_view_->setRunning(true);
  GenerationProbeOptions o;
  o.model = config.model;
  o.max_position = config.task.length;
  o.seed = config.trainer.seed;
  generation_view_->begin(QString("d%1 h%2 L%3, T up to %4")
                              .arg(o.model.d_model)
                              .arg(o.model.heads)
                              .arg(o.model.layers)
                              .arg(o.max_position));
  BackgroundRunner* runner = generation_runner_;
  const bool started = runner->start([this, runner, o]() -> BackgroundRunner::Done {
    const auto probe = probeLinearAttentionRnn(
        o,
        [this, runner](const std::string& kind, const GenerationPoint& p) {
          const QString k = QString::fromStdString(kind);
          runner->post([this, k, p] { generation_view_->addPoint(k, p); });
        },
        &runner->stopFlag());
    const bool stopped = runner->stopFlag().load();
    return [this, probe, stopped] {
      generation_view_->setRunning(false);
      emit busyChanged();
      generation_view_->setProbe(probe);
      const bool judging = active_ && active_->action == PresetAction::Probe;
      if (stopped) {
        emit log("Linear attention = RNN: measurement stopped; nothing judged.");
        if (judging) active_ = nullptr;
        return;
      }
      emit log(QString("Linear attention = RNN measured (%1).")
                   .arg(QString::fromStdString(probe.model)));
      ClaimEvidence e;
      e.probe = &probe;
      if (judging) showVerdicts(judgeClaim(active_->rule, e));
    };
  });
  emit busyChanged();
  return started;
}

bool PresetController::isMeasuringGeneration() const {
  return generation_runner_ && generation_runner_->isRunning();
}

// ---- The "RSA paper's table" tab: the paper-table preset's default table, run off the GUI
// thread (engine/sweep/paper_table_run.h), its progress drawn as it goes.

void PresetController::buildPaperTableTab() {
  paper_view_ = new PaperTableView(v_.inspector->tabs());
  paper_view_->setObjectName("PaperTableView");
  v_.inspector->tabs()->addTab(paper_view_, "RSA paper's table");
  v_.focus->addFigureTab(paper_view_);
  paper_runner_ = new BackgroundRunner(this);
  connect(paper_runner_, &BackgroundRunner::failed, this, [this](const QString& message) {
    paper_view_->setMessage("The table failed: " + message);
    emit log("RSA paper's table: failed: " + message);
    if (active_ && active_->action == PresetAction::PaperTable) active_ = nullptr;
  });
}

bool PresetController::isRunningPaperTable() const {
  return paper_runner_ && paper_runner_->isRunning();
}

int PresetController::paperTable(const Preset& p) {
  if (paper_runner_->isRunning()) {
    emit log("RSA paper's table: one is already running.");
    return 1;
  }
  emit quietRequested();  // its runs take the cores
  PaperTableOptions o;
  o.series = p.config.task.name;
  o.models = p.models;
  showTab(p.tab);
  paper_view_->begin(QString("%1: %2 models × %3 horizons × %4 seeds, the univariate row at H = "
                             "%5, persistence and the anchors on OT; at most %6 epochs each")
                         .arg(QString::fromStdString(o.series))
                         .arg(o.models.size())
                         .arg(o.horizons.size())
                         .arg(o.seeds)
                         .arg(o.univariate_horizon)
                         .arg(o.epochs));
  BackgroundRunner* runner = paper_runner_;
  auto control = std::make_shared<TrainingControl>();
  paper_control_ = control;
  const bool started = runner->start([this, runner, o, control]() -> BackgroundRunner::Done {
    const auto result = runPaperTable(
        o,
        [this, runner, control](const PaperTableProgress& progress) {
          if (runner->stopFlag().load()) control->stop = true;
          const QString line = QString::fromStdString(progress.line);
          const int done = static_cast<int>(progress.done),
                    total = static_cast<int>(progress.total);
          runner->post([this, done, total, line] {
            paper_view_->setProgress(done, total, line);
            emit busyChanged();
          });
        },
        control.get());
    const bool stopped = control->stop.load();
    return [this, result, stopped] {
      emit busyChanged();
      const bool judging = active_ && active_->action == PresetAction::PaperTable;
      if (stopped) {
        paper_view_->setMessage("Stopped; nothing judged.");
        if (judging) active_ = nullptr;
        return;
      }
      paper_view_->setTable(result.json);
      for (const auto& e : result.errors) emit log(QString::fromStdString("Paper table: " + e));
      ClaimEvidence e;
      e.paper_runs = &result.runs;
      if (judging) showVerdicts(judgeClaim(active_->rule, e));
    };
  });
  emit busyChanged();
  emit status(claim_line_ + " — running the table; the verdict follows it.", 0);
  return started ? 0 : 1;
}

bool PresetController::openPaperTable(const QString& path, QString* error) {
  QFile file(path);
  constexpr qint64 kMaxTableBytes = qint64{64} << 20;
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QString("cannot read %1: %2").arg(path, file.errorString());
    return false;
  }
  if (file.size() > kMaxTableBytes) {
    *error = QString("%1 is larger than a paper table can be (64 MiB)").arg(path);
    return false;
  }
  const std::string text = file.readAll().toStdString();
  try {
    paperTableTitle(text);  // throws on a file that is not a paper table
    paperTableCurves(text);
  } catch (const std::exception& e) {
    *error = QString("%1 is not a paper table: %2").arg(path, e.what());
    return false;
  }
  paper_view_->showSaved(text, QFileInfo(path).fileName());
  showTab(PresetTab::PaperTable);
  return true;
}

}  // namespace rsalab
