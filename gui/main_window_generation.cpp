// The "Linear attention = RNN" tab: the linear-attention preset's measurement
// (engine/training/generation_probe.h), run by a GenerationProbeRunner off the GUI thread and
// drawn point by point in a GenerationTimeView; its verdicts go to the status bar and the log.
#include <QAction>
#include <QTabWidget>

#include "core/registry/presets.h"
#include "gui/generation_probe_runner.h"
#include "gui/main_window.h"
#include "widgets/generation_time_view.h"

namespace rsalab {

void MainWindow::buildGenerationTab() {
  generation_view_ = new GenerationTimeView(tabs_);
  generation_view_->setObjectName("GenerationTimeView");
  tabs_->addTab(generation_view_, "Linear attention = RNN");
  generation_runner_ = new GenerationProbeRunner(this);
  generation_config_ = presetOrThrow("linear-attention").config;
  connect(generation_view_, &GenerationTimeView::measureRequested, this,
          [this] { applyPreset("linear-attention"); });
  connect(generation_runner_, &GenerationProbeRunner::started, generation_view_,
          &GenerationTimeView::begin);
  connect(generation_runner_, &GenerationProbeRunner::point, generation_view_,
          &GenerationTimeView::addPoint);
  connect(generation_runner_, &GenerationProbeRunner::finished, this,
          [this](const LinearAttentionRnnProbe& probe, bool stopped) {
            generation_view_->setRunning(false);
            updateStateLabel();
            generation_view_->setProbe(probe);
            if (stopped) {
              appendLog("Linear attention = RNN: measurement stopped; nothing judged.");
              if (active_preset_ == "linear-attention") active_preset_.clear();
              return;
            }
            appendLog(QString("Linear attention = RNN measured (%1).")
                          .arg(QString::fromStdString(probe.model)));
            if (active_preset_ == "linear-attention")
              showVerdicts(linearAttentionRnnVerdicts(probe));
          });
  connect(generation_runner_, &GenerationProbeRunner::failed, this, [this](const QString& message) {
    generation_view_->setRunning(false);
    updateStateLabel();
    generation_view_->setMessage("The measurement failed: " + message);
    appendLog("Linear attention = RNN: the measurement failed: " + message);
    if (active_preset_ == "linear-attention") active_preset_.clear();
  });
}

bool MainWindow::measureGeneration(const RunConfig& config) {
  if (generation_runner_->isRunning()) {
    appendLog("Linear attention = RNN: a measurement is already running.");
    return false;
  }
  // Timings mean something only on a quiet machine: no training meanwhile.
  if (training_) resetRuns();
  generation_config_ = config;
  tabs_->setCurrentWidget(generation_view_);
  focus_action_->setChecked(true);  // a figure: the docks make room while it is shown
  generation_view_->setRunning(true);
  const bool started =
      generation_runner_->start(config.model, config.task.length, config.trainer.seed);
  updateStateLabel();
  return started;
}

bool MainWindow::isMeasuringGeneration() const {
  return generation_runner_ && generation_runner_->isRunning();
}

}  // namespace rsalab
