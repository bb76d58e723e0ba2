// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/run_setup_panel.h"

#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/core/config/model_variant.h"
#include "engine/core/config/task_limits.h"
#include "engine/core/forecast/long_horizon.h"
#include "engine/core/io/enums.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/process_tasks.h"
#include "engine/core/registry/task_registry.h"

namespace rsalab {

RunSetup defaultRunSetup() {
  const RunConfig c = defaultLaunchConfig();
  RunSetup s;
  s.config = c;
  for (const auto& name : defaultModelNames()) {
    if (modelInfo(name).family != ModelFamily::Seq2Seq) s.models << QString::fromStdString(name);
  }
  s.seeds = 1;
  return s;
}

namespace {
// Ranges only: the values come from defaultRunSetup() at the end of the constructor.
QSpinBox* spin(int lo, int hi, const QString& tip, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setToolTip(tip + QString(" (%1–%2)").arg(lo).arg(hi));
  s->setAccelerated(true);
  return s;
}
// A spin box over an option table's row: the row's one range (the one validate checks).
template <typename S>
QSpinBox* spin(const OptionInfo<S>* row, const QString& tip, QWidget* parent) {
  auto* s = spin(static_cast<int>(row->minimum), static_cast<int>(row->maximum), tip, parent);
  s->setObjectName(QString::fromStdString(row->name));  // the JSON key: "d_model"
  return s;
}
}  // namespace

RunSetupPanel::RunSetupPanel(const QList<QPair<QString, QString>>& tasks, QWidget* parent)
    : QWidget(parent), tasks_(tasks) {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  task_ = new QComboBox(this);
  for (const auto& t : tasks) task_->addItem(t.first);
  task_description_ = new QLabel(this);
  task_description_->setWordWrap(true);
  task_description_->setStyleSheet("color: palette(mid);");
  form->addRow("Task", task_);
  form->addRow("", task_description_);
  teacher_process_ = new QComboBox(this);
  teacher_process_->setObjectName("teacher_process");
  for (const auto& row : teacherProcessRegistry()) {
    teacher_process_->addItem(QString::fromStdString(teacherProcessLabel(row.process)),
                              QString(enumName(row.process)));
    teacher_process_->setItemData(
        teacher_process_->count() - 1,
        QString("teacher, mix: %1\nseasonal, ar: %2")
            .arg(QString::fromUtf8(row.description), QString::fromUtf8(row.series)),
        Qt::ToolTipRole);
  }
  teacher_process_->setToolTip(
      "teacher and mix: the process behind the (recurrent) target; seasonal and ar: the process in "
      "place of the AR(1) poles; each default has the reach of its task's rem (rsalab-cli tasks)");
  form->addRow("Teacher process", teacher_process_);
  train_size_ =
      spin(1, static_cast<int>(kMaxTrainSize), "training-set size N: sequences or windows", this);
  train_size_->setObjectName("train_size");
  train_size_tip_ = train_size_->toolTip();
  form->addRow("Training set N", train_size_);
  length_ =
      spin(findTaskOption("length"), "sequence length T (auto: a T that fits a real series)", this);
  length_->setSpecialValueText("auto");
  form->addRow("Length T", length_);
  seeds_ = spin(1, 10, "seeds per model", this);
  form->addRow("Seeds", seeds_);
  steps_ = spin(findHyperParameter("max_steps"), "training steps per run", this);
  form->addRow("Max steps", steps_);
  d_model_ = spin(findModelOption("d_model"), "width D (divisible by heads)", this);
  form->addRow("Width D", d_model_);
  heads_ = spin(findModelOption("heads"), "attention heads H", this);
  form->addRow("Heads H", heads_);
  layers_ = spin(findModelOption("layers"), "layers L", this);
  form->addRow("Layers L", layers_);
  anchors_ = new QComboBox(this);
  for (const auto& name : enumNames<AnchorMode>()) anchors_->addItem(QString::fromStdString(name));
  anchors_->setToolTip(
      "Real series: the forecasting anchors (ETS, auto ARIMA, Theta) fitted in the background "
      "while the runs train and drawn when ready. all: on at most the last 8192 and "
      "48000/period train rows; fast: 2000 and 12000/period rows, seasonal ARIMA orders at most "
      "1; none: no anchors");
  form->addRow("Anchors", anchors_);
  // Real series: the protocol and what the networks see; the long-horizon protocol's own fields.
  auto combo = [this](const std::vector<std::string>& names, const char* object,
                      const QString& tip) {
    auto* box = new QComboBox(this);
    box->setObjectName(object);
    for (const auto& name : names) box->addItem(QString::fromStdString(name));
    box->setToolTip(tip);
    return box;
  };
  protocol_ = combo(enumNames<SeriesProtocol>(), "protocol",
                    QString::fromStdString(findTaskOption("protocol")->help));
  form->addRow("Protocol", protocol_);
  norm_ =
      combo(enumNames<NormMode>(), "norm", QString::fromStdString(findTaskOption("norm")->help));
  form->addRow("Normalisation", norm_);
  features_ = combo(enumNames<forecast::LongHorizonFeatures>(), "features",
                    QString::fromStdString(findTaskOption("features")->help));
  form->addRow("Features", features_);
  horizon_ =
      spin(findTaskOption("horizon"), "forecast horizon H (the long-horizon protocol)", this);
  form->addRow("Horizon H", horizon_);
  epochs_ =
      spin(findTaskOption("epochs"), QString::fromStdString(findTaskOption("epochs")->help), this);
  form->addRow("Epochs", epochs_);
  layout->addLayout(form);

  auto* box = new QGroupBox("Models", this);
  model_grid_ = new QGridLayout(box);
  for (const ModelCard& m : modelRegistry()) {
    if (m.family == ModelFamily::Seq2Seq) continue;  // the sequence tasks take one-stream models
    addModelBox(QString::fromUtf8(m.name), QString::fromUtf8(m.title));
  }
  layout->addWidget(box);
  start_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), "Start", this);
  start_->setMinimumHeight(36);
  start_->setStyleSheet("QPushButton { font-weight: bold; font-size: 14px; }");
  start_->setToolTip("Start training every selected model (Space)");
  layout->addWidget(start_);
  layout->addStretch(1);

  auto describe = [this] {
    const int k = task_->currentIndex();
    task_description_->setText(k >= 0 && k < tasks_.size() ? tasks_[k].second : QString());
    teacher_process_->setEnabled(readsTeacherProcess(task_->currentText().toStdString()));
    enableSeriesFields();
  };
  describe();
  connect(task_, &QComboBox::currentIndexChanged, this, [this, describe] {
    describe();
    emit setupChanged();
  });
  for (auto* s : {seeds_, train_size_, steps_, length_, d_model_, heads_, layers_}) {
    connect(s, &QSpinBox::valueChanged, this, &RunSetupPanel::setupChanged);
  }
  connect(anchors_, &QComboBox::currentIndexChanged, this, &RunSetupPanel::setupChanged);
  for (auto* box : {protocol_, norm_, features_})
    connect(box, &QComboBox::currentIndexChanged, this, [this] {
      enableSeriesFields();
      emit setupChanged();
    });
  for (auto* s : {horizon_, epochs_})
    connect(s, &QSpinBox::valueChanged, this, &RunSetupPanel::setupChanged);
  for (auto* s : {horizon_, length_})  // L and H set the protocol's window count
    connect(s, &QSpinBox::valueChanged, this, &RunSetupPanel::enableSeriesFields);
  connect(teacher_process_, &QComboBox::currentIndexChanged, this, &RunSetupPanel::setupChanged);
  connect(start_, &QPushButton::clicked, this, &RunSetupPanel::startRequested);
  setSetup(defaultRunSetup());
}

QCheckBox* RunSetupPanel::addModelBox(const QString& name, const QString& tooltip) {
  auto* check = new QCheckBox(name, model_grid_->parentWidget());
  check->setToolTip(tooltip);
  const int i = static_cast<int>(models_.size());
  models_.push_back({name, check});
  model_grid_->addWidget(check, i / 2, i % 2);
  connect(check, &QCheckBox::toggled, this, &RunSetupPanel::setupChanged);
  return check;
}

RunSetup RunSetupPanel::setup() const {
  RunSetup s;
  s.config = config(base_);
  for (const auto& [name, check] : models_) {
    if (check->isChecked()) s.models << name;
  }
  s.seeds = seeds_->value();
  return s;
}

void RunSetupPanel::setSetup(const RunSetup& s) {
  const QSignalBlocker block(this);
  const RunConfig& c = s.config;
  base_ = c;
  task_->setCurrentText(QString::fromStdString(c.task.name));
  for (const QString& name : s.models) {  // a named variant gets a box of its own
    const bool shown =
        std::any_of(models_.begin(), models_.end(), [&](const auto& m) { return m.first == name; });
    const ModelCard* card = findModel(name.toStdString());
    if (!shown && card && isModelVariant(name.toStdString()))
      addModelBox(name, QString::fromUtf8(card->title) + ", " + name);
  }
  for (const auto& [name, check] : models_) check->setChecked(s.models.contains(name));
  seeds_->setValue(s.seeds);
  if (!usesLongHorizonProtocol(c.task)) {  // under it N is the protocol's, not the user's
    own_train_size_ = static_cast<int>(c.train_size);
    showing_windows_ = false;
    train_size_->setValue(own_train_size_);
  }
  steps_->setValue(static_cast<int>(c.trainer.max_steps));
  length_->setValue(static_cast<int>(c.task.length));
  d_model_->setValue(static_cast<int>(c.model.d_model));
  heads_->setValue(static_cast<int>(c.model.heads));
  layers_->setValue(static_cast<int>(c.model.layers));
  anchors_->setCurrentText(enumName(c.task.anchors));
  teacher_process_->setCurrentIndex(
      std::max(0, teacher_process_->findData(QString(enumName(c.task.teacher_process)))));
  protocol_->setCurrentText(enumName(c.task.protocol));
  norm_->setCurrentText(enumName(c.task.norm));
  features_->setCurrentText(enumName(c.task.features));
  horizon_->setValue(static_cast<int>(c.task.horizon));
  epochs_->setValue(static_cast<int>(c.task.epochs));
  enableSeriesFields();
  const int k = task_->currentIndex();
  task_description_->setText(k >= 0 && k < tasks_.size() ? tasks_[k].second : QString());
  teacher_process_->setEnabled(readsTeacherProcess(c.task.name));
}

RunConfig RunSetupPanel::config(const RunConfig& base) const {
  RunConfig c = base;
  c.task.name = task_->currentText().toStdString();
  c.task.length = length_->value();
  c.train_size = train_size_->value();
  c.trainer.max_steps = steps_->value();
  c.model.d_model = d_model_->value();
  c.model.heads = heads_->value();
  c.model.layers = layers_->value();
  c.task.anchors =
      parseEnum<AnchorMode>(anchors_->currentText().toStdString()).value_or(c.task.anchors);
  c.task.teacher_process =
      parseEnum<TeacherProcess>(teacher_process_->currentData().toString().toStdString())
          .value_or(c.task.teacher_process);
  c.task.protocol =
      parseEnum<SeriesProtocol>(protocol_->currentText().toStdString()).value_or(c.task.protocol);
  c.task.norm = parseEnum<NormMode>(norm_->currentText().toStdString()).value_or(c.task.norm);
  c.task.features = parseEnum<forecast::LongHorizonFeatures>(features_->currentText().toStdString())
                        .value_or(c.task.features);
  if (horizon_->isEnabled()) c.task.horizon = horizon_->value();
  c.task.epochs = epochs_->value();
  // Other heads than the base's: the REM heads follow by the one rule (a preset's own REM heads
  // stay while its heads do).
  if (c.model.heads != base.model.heads) c.model.rem = defaultRemHeads(c.model.heads);
  return c;
}

void RunSetupPanel::enableSeriesFields() {
  TaskOptions t;
  t.name = task_->currentText().toStdString();
  t.protocol =
      parseEnum<SeriesProtocol>(protocol_->currentText().toStdString()).value_or(t.protocol);
  const bool real = isRealSeriesTask(t.name), long_horizon = usesLongHorizonProtocol(t);
  protocol_->setEnabled(real);
  const auto* row = findTask(t.name);
  norm_->setEnabled(row && row->objective == Objective::Regression);
  for (QWidget* w : std::initializer_list<QWidget*>{features_, horizon_, epochs_})
    w->setEnabled(long_horizon);
  showTrainSize(long_horizon);
}

// The long-horizon protocol trains on every train window of its split, so N is no choice there:
// the field shows that count for the form's L (Length T, auto: the protocol's) and H, disabled,
// from the protocol's own arithmetic (forecast::longHorizonWindows; the bundled series hold the
// split's rows). Under any other protocol it is the user's N again.
void RunSetupPanel::showTrainSize(bool long_horizon) {
  const QSignalBlocker block(train_size_);
  if (!long_horizon) {
    if (showing_windows_) train_size_->setValue(own_train_size_);
    showing_windows_ = false;
    train_size_->setEnabled(true);
    train_size_->setSuffix("");
    train_size_->setSpecialValueText("");
    train_size_->setToolTip(train_size_tip_);
    return;
  }
  if (!showing_windows_) own_train_size_ = train_size_->value();
  showing_windows_ = true;
  train_size_->setEnabled(false);
  const int64_t L = forecast::longHorizonInputLength(length_->value()), H = horizon_->value();
  const auto& split = forecast::kEttHourSplit;
  try {
    const auto windows = forecast::longHorizonWindows(split, split.test_end, L, H);
    train_size_->setSpecialValueText("");
    train_size_->setSuffix(" (every train window)");
    train_size_->setValue(static_cast<int>(windows.train.size()));
    train_size_->setToolTip(QString("The long-horizon protocol trains on every train window: "
                                    "%1 windows of L = %2 input and H = %3 target rows in the "
                                    "train rows [0, %4)")
                                .arg(windows.train.size())
                                .arg(L)
                                .arg(H)
                                .arg(split.train_end));
  } catch (const std::invalid_argument& e) {
    train_size_->setSuffix("");
    train_size_->setSpecialValueText("none");
    train_size_->setValue(train_size_->minimum());
    train_size_->setToolTip(QString("The long-horizon protocol has no train window here: %1")
                                .arg(QString::fromUtf8(e.what())));
  }
}

void RunSetupPanel::setConfig(const RunConfig& c) {
  RunSetup s = setup();
  s.config = c;
  setSetup(s);
}

QStringList RunSetupPanel::modelChoices() const {
  QStringList out;
  for (const auto& m : models_) out << m.first;
  return out;
}

void RunSetupPanel::addTask(const QString& name, const QString& description) {
  for (auto& t : tasks_) {
    if (t.first == name) {
      t.second = description;
      if (task_->currentText() == name) task_description_->setText(description);
      return;
    }
  }
  tasks_.push_back({name, description});
  task_->addItem(name);
}

}  // namespace rsalab
