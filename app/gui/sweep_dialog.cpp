// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/sweep_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <thread>

#include "engine/core/registry/model_registry.h"
#include "engine/core/sweep/sweep_plan.h"

namespace rsalab {

namespace {
// The sweep's sequence tasks take every model but the encoder-decoder, in registry order.
QStringList sweepModels() {
  QStringList out;
  for (const auto& name : modelNames(/*sequence_only=*/true)) out << QString::fromStdString(name);
  return out;
}

QString sizesText(const std::vector<int64_t>& sizes) {
  QStringList out;
  for (int64_t n : sizes) out << QString::number(n);
  return out.join(", ");
}
}  // namespace

SweepDialog::SweepDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Sample-efficiency sweep"));
  setObjectName("SweepDialog");
  auto* layout = new QVBoxLayout(this);
  base_label_ = new QLabel(this);
  base_label_->setWordWrap(true);
  layout->addWidget(base_label_);

  auto* models_box = new QGroupBox(tr("Models"), this);
  auto* grid = new QGridLayout(models_box);
  const SweepOptions defaults;  // models, sizes and seeds of `rsalab-cli sweep` too
  const QStringList models = sweepModels();
  for (int i = 0; i < models.size(); ++i) {
    auto* box = new QCheckBox(models[i], models_box);
    box->setToolTip(QString::fromUtf8(modelInfo(models[i].toStdString()).title));
    box->setChecked(std::find(defaults.models.begin(), defaults.models.end(),
                              models[i].toStdString()) != defaults.models.end());
    models_.push_back({models[i], box});
    grid->addWidget(box, i / 4, i % 4);
  }
  layout->addWidget(models_box);

  auto* form = new QFormLayout;
  sizes_ = new QLineEdit(sizesText(defaults.sizes), this);
  sizes_->setToolTip(
      tr("Training-set sizes N (sequences), comma-separated; at least 2 for a slope"));
  form->addRow(tr("Sizes N"), sizes_);
  axis_ = new QLineEdit(this);
  axis_->setObjectName("SweepAxis");
  axis_->setPlaceholderText(tr("none — e.g. mix.share=0, 0.25, 0.5, 0.75, 1"));
  axis_->setToolTip(
      tr("A task parameter and its values: every model × N × seed runs at each value, and the "
         "Regime map tab shows who wins where"));
  form->addRow(tr("Task axis"), axis_);
  seeds_ = new QSpinBox(this);
  seeds_->setRange(1, 100);
  seeds_->setValue(static_cast<int>(defaults.seeds));
  form->addRow(tr("Seeds"), seeds_);
  steps_ = new QSpinBox(this);
  const auto* steps = findHyperParameter("max_steps");  // the trainer table's range
  steps_->setRange(static_cast<int>(steps->minimum), static_cast<int>(steps->maximum));
  steps_->setValue(static_cast<int>(defaultSweepConfig().trainer.max_steps));
  steps_->setSuffix(tr(" steps per run"));
  form->addRow(tr("Budget"), steps_);
  parallel_ = new QSpinBox(this);
  parallel_->setRange(0, 256);
  parallel_->setSpecialValueText(
      tr("one per core (%1)").arg(std::max(1u, std::thread::hardware_concurrency())));
  parallel_->setToolTip(tr("Runs trained at the same time, each on cores ÷ runs threads"));
  form->addRow(tr("Concurrent runs"), parallel_);
  layout->addLayout(form);

  message_ = new QLabel(this);
  message_->setWordWrap(true);
  layout->addWidget(message_);
  auto* progress_row = new QHBoxLayout;
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(tr("%v / %m runs"));
  eta_ = new QLabel(formatEta(-1), this);
  eta_->setMinimumWidth(eta_->fontMetrics().horizontalAdvance("ETA 000 m 00 s"));
  progress_row->addWidget(progress_, 1);
  progress_row->addWidget(eta_);
  layout->addLayout(progress_row);

  auto* buttons = new QDialogButtonBox(this);
  start_ = buttons->addButton(tr("Start sweep"), QDialogButtonBox::AcceptRole);
  cancel_ = buttons->addButton(tr("Cancel sweep"), QDialogButtonBox::DestructiveRole);
  auto* close = buttons->addButton(QDialogButtonBox::Close);
  layout->addWidget(buttons);
  cancel_->setEnabled(false);
  connect(start_, &QPushButton::clicked, this, [this] {
    SweepOptions options;
    QString error;
    if (!readOptions(&options, &error)) {
      setMessage("<b>Cannot start:</b> " + error.toHtmlEscaped());
      return;
    }
    emit startRequested(options);
  });
  connect(cancel_, &QPushButton::clicked, this, &SweepDialog::cancelRequested);
  connect(close, &QPushButton::clicked, this, &QDialog::hide);  // the sweep goes on
  setBase(defaultSweepConfig());
}

void SweepDialog::setBase(const RunConfig& base) {
  base_ = base;
  base_label_->setText(
      tr("Task <b>%1</b> (T = %2), d_model %3, %4 heads, %5 layers, batch %6, lr %7 — "
         "from the run setup. Each run is scored on the same held-out test split.")
          .arg(QString::fromStdString(base.task.name))
          .arg(base.task.length)
          .arg(base.model.d_model)
          .arg(base.model.heads)
          .arg(base.model.layers)
          .arg(base.trainer.batch_size)
          .arg(base.trainer.learning_rate));
}

bool SweepDialog::readOptions(SweepOptions* options, QString* error) const {
  SweepOptions o;
  o.base = base_;
  o.base.trainer.max_steps = steps_->value();
  o.models.clear();
  for (const auto& [name, box] : models_) {
    if (box->isChecked()) o.models.push_back(name.toStdString());
  }
  if (o.models.empty()) {
    *error = tr("Models: select at least one model.");
    return false;
  }
  o.sizes.clear();
  const auto parts = sizes_->text().split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts);
  for (const auto& part : parts) {
    bool ok = false;
    const qlonglong n = part.toLongLong(&ok);
    if (!ok || n < 1 || n > 10000000) {
      *error = tr("Sizes N: '%1' is not a whole number between 1 and 10000000.").arg(part);
      return false;
    }
    if (std::find(o.sizes.begin(), o.sizes.end(), n) == o.sizes.end()) o.sizes.push_back(n);
  }
  if (o.sizes.empty()) {
    *error = tr("Sizes N: give at least one size, e.g. 16, 64, 256.");
    return false;
  }
  std::sort(o.sizes.begin(), o.sizes.end());
  if (QString axis = axis_->text().trimmed(); !axis.isEmpty()) {
    // The CLI's parser (--axis): values separated by commas, blanks allowed.
    axis.remove(QRegularExpression("\\s+"));
    try {
      o.axis = parseSweepAxis(axis.toStdString());
    } catch (const std::exception& e) {
      *error = tr("Task axis: %1").arg(QString::fromUtf8(e.what()));
      return false;
    }
  }
  o.seeds = seeds_->value();
  o.parallel = parallel_->value();
  o.keep_curves = true;      // clicking a point shows the run's curves
  o.keep_inspection = true;  // ... and its attention maps / REMs
  try {
    for (const auto& m : o.models) {
      RunConfig c = o.base;
      c.model.model = m;
      validate(c);
    }
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  *options = o;
  return true;
}

void SweepDialog::setModels(const QStringList& models) {
  for (const auto& [name, box] : models_) box->setChecked(models.contains(name));
}
void SweepDialog::setSizesText(const QString& text) { sizes_->setText(text); }
void SweepDialog::setAxisText(const QString& text) { axis_->setText(text); }
void SweepDialog::setSeeds(int seeds) { seeds_->setValue(seeds); }
void SweepDialog::setSteps(int steps) { steps_->setValue(steps); }

void SweepDialog::setRunning(bool running) {
  start_->setEnabled(!running);
  cancel_->setEnabled(running);
  for (const auto& m : models_) m.second->setEnabled(!running);
  for (QWidget* w : {static_cast<QWidget*>(sizes_), static_cast<QWidget*>(seeds_),
                     static_cast<QWidget*>(steps_), static_cast<QWidget*>(parallel_)}) {
    w->setEnabled(!running);
  }
}

void SweepDialog::setProgress(qint64 done, qint64 total, double eta_seconds) {
  progress_->setRange(0, static_cast<int>(std::max<qint64>(1, total)));
  progress_->setValue(static_cast<int>(done));
  eta_->setText(formatEta(eta_seconds));
}

void SweepDialog::setMessage(const QString& text) { message_->setText(text); }

QString SweepDialog::formatEta(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return tr("ETA –");
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return tr("ETA %1 s").arg(s);
  if (s < 3600) return tr("ETA %1 m %2 s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
  return tr("ETA %1 h %2 m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

}  // namespace rsalab
