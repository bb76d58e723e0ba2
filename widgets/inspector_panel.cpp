// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/inspector_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/attention_view.h"
#include "widgets/decay_view.h"
#include "widgets/gate_view.h"
#include "widgets/linear_rnn_rem_panel.h"
#include "widgets/rem_parameter_view.h"
#include "widgets/run_store.h"

namespace rsalab {

void InspectorPanel::setHeadline(const QString& text) {
  headline_->setText(text);
  headline_->setVisible(!text.isEmpty());
}

QString InspectorPanel::headline() const { return headline_->text(); }

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("InspectorPanel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 0);
  // What the window is showing, in full (the status bar elides it): the launch or the preset's
  // claim and, once judged, its verdict. Hidden while empty.
  headline_ = new QLabel(this);
  headline_->setObjectName("InspectorHeadline");
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  headline_->setVisible(false);
  layout->addWidget(headline_);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("InspectorTabs");
  attention_view_ = new AttentionView(tabs_);
  attention_view_->setObjectName("AttentionView");
  tabs_->addTab(attention_view_, "Attention && REMs");
  rem_view_ = new RemParameterView(tabs_);
  rem_view_->setObjectName("RemParameterView");
  tabs_->addTab(rem_view_, "REM parameters");
  decay_view_ = new DecayView(tabs_);
  decay_view_->setObjectName("DecayView");
  tabs_->addTab(decay_view_, "Decays (memory)");
  gate_view_ = new GateView(tabs_);
  gate_view_->setObjectName("GateView");
  tabs_->addTab(gate_view_, "Gates && fixed points");
  tabs_->addTab(new LinearRnnRemPanel(tabs_), "Why REMs (linear RNN)");
  layout->addWidget(tabs_, 1);
  buildScrubber();
  // Hidden views keep their data and draw when their tab comes back.
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { refreshScrubber(); });
  connect(attention_view_, &AttentionView::sampleChanged, this, [this](int sample) {
    if (!inspected_run_.valid()) return;
    follow_latest_ = true;
    emit inspectionRequested(inspected_run_, sample);
  });
}

int InspectorPanel::sample() const { return attention_view_->sample(); }

void InspectorPanel::setStore(const RunStore* store) {
  store_ = store;
  // A run's truth may arrive or change after its first snapshot (a reopened bundle, anchors).
  connect(store, &QAbstractItemModel::dataChanged, this, [this] { applyGroundTruth(); });
  connect(store, &QAbstractItemModel::modelReset, this, [this] { applyGroundTruth(); });
  connect(store, &QAbstractItemModel::rowsInserted, this, [this] { applyGroundTruth(); });
}

void InspectorPanel::clear() {
  latest_.clear();
  inputs_.clear();
  history_.clear();
  follow_latest_ = true;
  shown_step_ = -1;
  setInspectedRun(RunId());
  rebuildRemView();
  refreshScrubber();
}

void InspectorPanel::addSnapshot(const RunId& run, qint64 step,
                                 std::shared_ptr<const InspectionRecord> shared,
                                 const SampleInput& input) {
  if (!shared) return;
  const InspectionRecord& record = *shared;
  latest_[run] = {step, std::move(shared)};
  inputs_[{run, static_cast<int>(record.sample)}] = input;
  history_.insert(run, step, record);
  if (run != inspected_run_) return;
  if (step > rem_view_step_) {
    rem_view_->append(step, record);
    gate_view_->appendHistory(step, record);
    rem_view_step_ = step;
  } else {
    rebuildRemView();  // a step recorded again (e.g. after resuming): redraw from the history
  }
  refreshScrubber();  // shows the newest snapshot unless the user scrubbed back
}

void InspectorPanel::addRecord(const RunId& run, qint64 step, const InspectionRecord& record) {
  history_.insert(run, step, record);
  if (!latest_.contains(run) || latest_[run].step <= step)
    latest_[run] = {step, std::make_shared<const InspectionRecord>(record)};
}

void InspectorPanel::setInspectedRun(const RunId& run) {
  inspected_run_ = run;
  applyGroundTruth();
}

void InspectorPanel::showRun(const RunId& run) {
  setInspectedRun(run);
  showLatest(run);
  follow_latest_ = true;
  refreshScrubber();
  rebuildRemView();
}

void InspectorPanel::applyGroundTruth() {
  const Run* run = store_ ? store_->find(inspected_run_) : nullptr;
  const GroundTruth truth = run ? run->what.truth : GroundTruth{};
  const int64_t length = run ? run->what.length : 0;
  // Statuses change the store ~20 times a second: redraw the truth only when it is another one.
  const QString key = QString("%1 %2 %3 %4 %5")
                          .arg(runSourceName(inspected_run_.source))
                          .arg(inspected_run_.number)
                          .arg(QString::fromStdString(truth.description))
                          .arg(truth.components.size())
                          .arg(length);
  if (key == applied_truth_) return;
  applied_truth_ = key;
  rem_view_->setGroundTruth(truth, length);
  decay_view_->setGroundTruth(truth);
}

// ---- Step scrubber: a slider over the inspected run's recorded steps, with Play/Pause.

void InspectorPanel::buildScrubber() {
  auto* row = new QHBoxLayout();
  play_button_ = new QPushButton("Play", this);
  play_button_->setObjectName("PlayButton");
  play_button_->setToolTip("Step through the recorded snapshots");
  step_slider_ = new QSlider(Qt::Horizontal, this);
  step_slider_->setObjectName("StepSlider");
  step_slider_->setRange(0, 0);
  step_slider_->setEnabled(false);
  step_slider_->setToolTip("Training step shown by every inspector view");
  step_label_ = new QLabel("step –", this);
  step_label_->setObjectName("StepLabel");
  step_label_->setMinimumWidth(step_label_->fontMetrics().horizontalAdvance("step 00000000"));
  row->addWidget(play_button_);
  row->addWidget(step_slider_, 1);
  row->addWidget(step_label_);
  static_cast<QVBoxLayout*>(layout())->addLayout(row);
  play_timer_ = new QTimer(this);
  play_timer_->setInterval(150);
  connect(step_slider_, &QSlider::valueChanged, this, &InspectorPanel::onScrubbed);
  connect(play_button_, &QPushButton::clicked, this, [this] {
    if (play_timer_->isActive()) {
      play_timer_->stop();
    } else {
      if (step_slider_->value() >= step_slider_->maximum()) step_slider_->setValue(0);
      play_timer_->start();
    }
    play_button_->setText(play_timer_->isActive() ? "Pause" : "Play");
  });
  connect(play_timer_, &QTimer::timeout, this, [this] {
    if (step_slider_->value() < step_slider_->maximum()) {
      step_slider_->setValue(step_slider_->value() + 1);
    } else {
      play_timer_->stop();
      play_button_->setText("Play");
    }
  });
}

void InspectorPanel::refreshScrubber() {
  scrub_steps_ = history_.steps(inspected_run_);
  const int last = static_cast<int>(scrub_steps_.size()) - 1;
  int index = last;
  if (!follow_latest_ && shown_step_ >= 0) {  // stay on the step the user chose
    const auto it = std::upper_bound(scrub_steps_.begin(), scrub_steps_.end(), shown_step_);
    index = std::max(0, static_cast<int>(it - scrub_steps_.begin()) - 1);
  }
  {
    const QSignalBlocker block(step_slider_);
    step_slider_->setRange(0, std::max(0, last));
    step_slider_->setValue(std::max(0, index));
  }
  step_slider_->setEnabled(last > 0);
  if (last < 0) {
    shown_step_ = -1;
    step_label_->setText("step –");
    return;
  }
  if (scrub_steps_[static_cast<size_t>(index)] != shown_step_ || follow_latest_) {
    const qint64 step = scrub_steps_[static_cast<size_t>(index)];
    if (const InspectionRecord* rec = history_.at(inspected_run_, step))
      showRecord(inspected_run_, step, *rec);
  }
}

void InspectorPanel::onScrubbed(int index) {
  if (index < 0 || index >= static_cast<int>(scrub_steps_.size())) return;
  follow_latest_ = index == static_cast<int>(scrub_steps_.size()) - 1;
  const qint64 step = scrub_steps_[static_cast<size_t>(index)];
  if (const InspectionRecord* rec = history_.at(inspected_run_, step))
    showRecord(inspected_run_, step, *rec);
}

void InspectorPanel::rebuildRemView() {
  rem_view_->setRecords(history_.records(inspected_run_));
  gate_view_->setHistory(history_.records(inspected_run_));
  const auto steps = history_.steps(inspected_run_);
  rem_view_step_ = steps.empty() ? -1 : steps.back();
}

void InspectorPanel::showLatest(const RunId& run) {
  if (!latest_.contains(run)) return;
  const Latest& latest = latest_[run];
  if (latest.record) showRecord(run, latest.step, *latest.record);
}

void InspectorPanel::showRecord(const RunId& run, qint64 step, const InspectionRecord& rec) {
  shown_step_ = step;
  step_label_->setText(QString("step %1").arg(step));
  const Run* r = store_ ? store_->find(run) : nullptr;
  const QString label =
      r ? QString("%1 seed %2").arg(QString::fromStdString(r->what.model)).arg(r->what.seed)
        : QString();
  const SampleInput input = inputs_.value({run, static_cast<int>(rec.sample)});
  attention_view_->setRecord(step, rec, input, label);
  gate_view_->setRecord(step, rec, input, label);
  rem_view_->setCurrentRecord(step, rec);
  decay_view_->setRecord(step, rec, label);
}

}  // namespace rsalab
