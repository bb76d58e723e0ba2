// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI's PresetRunner (engine/core/verdicts/preset_runner.h): the Presets menu, a preset applied
// to the window (its run becomes the base of the forms, its models train; a sweep preset starts its
// sweep; a computed one is judged at once; the linear-attention probe is measured in its own
// tab), its claim in the status bar and, once what it ran has finished, its measured verdict
// (judgeClaim, engine/core/verdicts/claims.h) in the status bar, the headline and the log.
#pragma once

#include <QMenu>
#include <QObject>
#include <QStringList>
#include <memory>
#include <vector>

#include "engine/core/config/run_config.h"
#include "engine/core/verdicts/preset_runner.h"

namespace rsalab {

class BackgroundRunner;
class FigureFocus;
class InspectorPanel;
class RunStore;
class SweepPanel;
class GenerationTimeView;
class PaperTableView;
struct TrainingControl;

// What the presets act on, given once: the runs they judge, the inspector (its headline, the
// records a train preset's verdict reads, its tabs), focus mode and the sweep panel.
struct PresetViews {
  const RunStore* runs = nullptr;
  InspectorPanel* inspector = nullptr;
  FigureFocus* focus = nullptr;
  SweepPanel* sweeps = nullptr;
};

class PresetController : public QObject, public PresetRunner {
  Q_OBJECT
 public:
  PresetController(const PresetViews& views, QObject* parent);
  ~PresetController() override;  // stops a running paper table before its runner waits for it
  void buildMenu(QMenu* menu);   // Presets: one entry per row of presets()
  void buildGenerationTab();     // "Linear attention = RNN"
  // The preset `name`: false (logged) for an unknown name or when it did not start.
  bool apply(const QString& name);
  // The running preset's claim ("Preset "…": …"), first in the status bar; empty: none.
  const QString& claimLine() const { return claim_line_; }
  void forget();  // training started by hand: no preset is running
  // Judges the active preset once its runs have all ended (a train preset) or its sweep has
  // finished (cancelled: nothing is judged).
  void runsChanged();
  void sweepFinished(bool cancelled);
  // The last preset's verdict lines ("holds: …"); empty until one was judged.
  const QStringList& lastVerdicts() const { return last_verdicts_; }
  // The "Linear attention = RNN" tab and its measurement: the width, heads and layers of
  // `config.model`, up to T = config.task.length; stops training first. False if one is running.
  GenerationTimeView* generationView() const { return generation_view_; }
  bool measureGeneration(const RunConfig& config);
  bool isMeasuringGeneration() const;
  // The "RSA paper's table" tab: the paper-table preset runs its default table there (ETTh1,
  // engine/sweep/paper_table_run.h) with a progress bar, then shows the figure, the table and
  // the verdicts. False if a table or another background job is running.
  void buildPaperTableTab();
  PaperTableView* paperTableView() const { return paper_view_; }
  bool isRunningPaperTable() const;
  // A table saved by `rsalab-cli paper-table --json FILE` (docs/data/paper_table.json) shown in
  // that tab; false, with the reason in `error`, when the file is unreadable or not such a table.
  bool openPaperTable(const QString& path, QString* error);

 signals:
  void log(const QString& line);
  void status(const QString& text, int timeout_ms);
  /// A measurement or table started or ended, or made progress: the window's state label.
  void busyChanged();
  /// Training must stop and its runs go (a preset starts, or a measurement needs quiet cores).
  void quietRequested();
  /// A train preset: its config becomes the base of the forms and `models` train (one seed).
  void trainRequested(const rsalab::RunConfig& config, const QStringList& models);

 protected:
  int train(const Preset& preset) override;
  int sweep(const Preset& preset) override;
  int probe(const Preset& preset) override;
  int computed(const Preset& preset, const std::vector<ClaimVerdict>& verdicts) override;
  int paperTable(const Preset& preset) override;

 private:
  void showTab(PresetTab tab);
  void showVerdicts(const std::vector<ClaimVerdict>& verdicts);
  PresetViews v_;
  const Preset* active_ = nullptr;  // a preset whose verdict is still to come
  QString claim_line_;
  QStringList last_verdicts_;
  GenerationTimeView* generation_view_ = nullptr;
  BackgroundRunner* generation_runner_ = nullptr;
  PaperTableView* paper_view_ = nullptr;
  BackgroundRunner* paper_runner_ = nullptr;
  std::shared_ptr<TrainingControl> paper_control_;  // the running table's stop, checked per step
};

}  // namespace rsalab
