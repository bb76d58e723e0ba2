// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/hyper_parameter_form.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace rsalab {

namespace {

constexpr int kLogSliderSteps = 1000;  // log10 slider resolution
constexpr int kSliderWidth = 120;
// Badges: text differs as well as colour, so they read without colour vision.
const char* kHotStyle =
    "QLabel { background: #DDF1E4; color: #17663A; border-radius: 3px; padding: 1px 5px; }";
const char* kColdStyle =
    "QLabel { background: #F3EBDD; color: #7A5300; border-radius: 3px; padding: 1px 5px; }";
const char* kPendingStyle =
    "QLabel { background: #F5B041; color: #3D2600; border-radius: 3px; padding: 1px 5px;"
    " font-weight: bold; }";

bool isCountUnit(const std::string& unit) {
  static const char* kCounts[] = {"steps",  "sequences", "evaluations", "samples", "tokens",
                                  "epochs", "layers",    "heads",       "batches"};
  return std::any_of(std::begin(kCounts), std::end(kCounts),
                     [&](const char* c) { return unit == c; });
}

double roundSignificant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::abs(v))));
  return std::round(v * scale) / scale;
}

QString rangeText(double v) { return QString::number(v, 'g', 6); }

// A spin box that shows short general-format numbers (3e-05, 0.003, 4096), accepts typed
// exponents, and steps multiplicatively on log-scale fields (×2 for counts, ×10^0.1 otherwise).
class ScientificSpinBox : public QDoubleSpinBox {
 public:
  ScientificSpinBox(bool log_scale, bool integral, QWidget* parent)
      : QDoubleSpinBox(parent), log_scale_(log_scale), integral_(integral) {
    QLocale l = locale();
    l.setNumberOptions(QLocale::OmitGroupSeparator);
    setLocale(l);
    setKeyboardTracking(false);  // valueChanged on Enter, focus loss or a step, not per keystroke
    setCorrectionMode(QAbstractSpinBox::CorrectToNearestValue);
    setIntegral(integral);
  }
  void setIntegral(bool integral) {
    integral_ = integral;
    setDecimals(integral ? 0 : 12);  // 12: QDoubleSpinBox rounds values to `decimals`
  }
  QString textFromValue(double v) const override {
    return integral_ ? locale().toString(v, 'f', 0) : locale().toString(v, 'g', 6);
  }
  double valueFromText(const QString& text) const override {
    bool ok = false;
    double v = locale().toDouble(text.trimmed(), &ok);
    if (!ok) v = QLocale::c().toDouble(text.trimmed(), &ok);
    return ok ? v : value();
  }
  QValidator::State validate(QString& text, int&) const override {
    const QString t = text.trimmed();
    if (t.isEmpty()) return QValidator::Intermediate;
    bool ok = false;
    double v = locale().toDouble(t, &ok);
    if (!ok) v = QLocale::c().toDouble(t, &ok);
    if (ok)
      return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    // Partial input such as "1e" or "-" may still become a number.
    for (QChar c : t) {
      if (!c.isDigit() && !QString("+-eE").contains(c) && c != locale().decimalPoint()[0] &&
          c != '.') {
        return QValidator::Invalid;
      }
    }
    return QValidator::Intermediate;
  }
  void stepBy(int steps) override {
    if (!log_scale_) return QDoubleSpinBox::stepBy(steps);
    const double factor = std::pow(integral_ ? 2.0 : std::pow(10.0, 0.1), steps);
    double v = value() > 0 ? value() * factor : std::max(minimum(), maximum() * 1e-6);
    v = integral_ ? std::round(v) : roundSignificant(v, 3);
    setValue(std::clamp(v, minimum(), maximum()));
  }

 private:
  bool log_scale_;
  bool integral_;
};

}  // namespace

std::vector<HyperParameterInfo> formHyperParameters() {
  std::vector<HyperParameterInfo> out;
  for (const auto& p : trainerHyperParameters()) {
    if (p.numeric() && p.name != "max_steps") out.push_back(p);
  }
  return out;
}

HyperParameterForm::HyperParameterForm(const std::vector<HyperParameterInfo>& parameters,
                                       QWidget* parent)
    : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
  outer->addLayout(form);

  for (const HyperParameterInfo& info : parameters) {
    const QString name = QString::fromStdString(info.name);
    Field& f = fields_[name];
    f.info = info;
    order_ << name;
    const bool integral = isCountUnit(info.unit);

    QString label = QString::fromStdString(info.label);
    if (!info.unit.empty()) label += QStringLiteral(" (%1)").arg(QString::fromStdString(info.unit));
    f.label = new QLabel(label, this);
    const QString tip = tr("%1: %2 … %3%4; %5")
                            .arg(name, rangeText(info.minimum), rangeText(info.maximum),
                                 info.log_scale ? tr(" (log scale)") : QString(),
                                 info.hot ? tr("applies at the next training step")
                                          : tr("applies when the run restarts"));

    auto* row = new QHBoxLayout;
    auto* spin = new ScientificSpinBox(info.log_scale, integral, this);
    f.spin = spin;
    spin->setRange(info.minimum, info.maximum);
    spin->setMinimumWidth(110);
    if (!info.log_scale) {
      spin->setSingleStep(integral ? 1.0
                                   : roundSignificant((info.maximum - info.minimum) / 100, 1));
    }
    spin->setValue(info.minimum);
    f.baseline = spin->value();
    row->addWidget(spin);
    if (info.log_scale) {
      f.slider = new QSlider(Qt::Horizontal, this);
      f.slider->setRange(0, kLogSliderSteps);
      f.slider->setFixedWidth(kSliderWidth);
      f.slider->setTracking(false);  // commit on release; the spin box follows while dragging
      row->addWidget(f.slider);
      connect(f.slider, &QSlider::sliderMoved, this, [this, name](int position) {
        Field& field = fields_[name];
        QSignalBlocker block(field.spin);
        field.spin->setValue(sliderToValue(field, position));
      });
      connect(f.slider, &QSlider::valueChanged, this, [this, name](int position) {
        Field& field = fields_[name];
        {
          QSignalBlocker block(field.spin);
          field.spin->setValue(sliderToValue(field, position));
        }
        onEdited(name, field.spin->value());
      });
    }
    if (!f.slider) {  // an empty slot where the slider would be, so badges form one column
      auto* gap = new QWidget(this);
      gap->setFixedWidth(kSliderWidth);
      row->addWidget(gap);
    }
    f.badge = new QLabel(this);
    row->addWidget(f.badge);
    row->addStretch(1);
    for (QWidget* w : {static_cast<QWidget*>(f.label), static_cast<QWidget*>(spin),
                       static_cast<QWidget*>(f.slider)}) {
      if (w) w->setToolTip(tip);
    }
    setPending(f, false);
    syncSlider(f);
    connect(spin, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
            [this, name](double v) { onEdited(name, v); });
    form->addRow(f.label, row);
  }

  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  revert_button_ = new QPushButton(tr("Revert"), this);
  revert_button_->setToolTip(tr("Undo the edits that need a restart"));
  apply_button_ = new QPushButton(tr("Apply && restart"), this);
  apply_button_->setToolTip(tr("Restart the run with the edited values"));
  buttons->addWidget(revert_button_);
  buttons->addWidget(apply_button_);
  outer->addLayout(buttons);
  outer->addStretch(1);
  revert_button_->setEnabled(false);
  apply_button_->setEnabled(false);
  setConfig(defaultLaunchConfig());
  connect(revert_button_, &QPushButton::clicked, this, &HyperParameterForm::revertCold);
  connect(apply_button_, &QPushButton::clicked, this, [this]() {
    const QMap<QString, double> all = values();
    for (auto& [name, f] : fields_) {
      f.baseline = f.spin->value();
      setPending(f, false);
    }
    emitPending();
    emit applyAndRestart(all);
  });
}

QMap<QString, double> HyperParameterForm::values() const {
  QMap<QString, double> out;
  for (const auto& [name, f] : fields_) out.insert(name, f.spin->value());
  return out;
}

double HyperParameterForm::value(const QString& name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? NAN : it->second.spin->value();
}

void HyperParameterForm::setValues(const QMap<QString, double>& values) {
  const QStringList before = pendingColdFields();
  updating_ = true;
  for (auto v = values.begin(); v != values.end(); ++v) {
    auto it = fields_.find(v.key());
    if (it == fields_.end()) {
      emit invalidValue(v.key(), tr("unknown parameter %1").arg(v.key()));
      continue;
    }
    Field& f = it->second;
    double value = v.value();
    if (!std::isfinite(value) || value < f.info.minimum || value > f.info.maximum) {
      const double clamped =
          std::isfinite(value) ? std::clamp(value, f.info.minimum, f.info.maximum) : f.baseline;
      emit invalidValue(v.key(), tr("%1 = %2 is outside %3 … %4; using %5")
                                     .arg(v.key(), rangeText(value), rangeText(f.info.minimum),
                                          rangeText(f.info.maximum), rangeText(clamped)));
      value = clamped;
    }
    f.spin->setValue(value);
    f.baseline = f.spin->value();
    setPending(f, false);
    syncSlider(f);
  }
  updating_ = false;
  if (pendingColdFields() != before) emitPending();
}

RunConfig HyperParameterForm::config(const RunConfig& base) const {
  RunConfig c = base;
  for (const auto& [name, f] : fields_) f.info.set(c.trainer, f.spin->value());
  return c;
}

void HyperParameterForm::setConfig(const RunConfig& config) {
  QMap<QString, double> values;
  for (const auto& [name, f] : fields_) {
    if (f.info.numeric()) values.insert(name, f.info.get(config.trainer));
  }
  setValues(values);
}

QStringList HyperParameterForm::pendingColdFields() const {
  QStringList out;
  for (const QString& name : order_) {
    if (fields_.at(name).pending) out << name;
  }
  return out;
}

QStringList HyperParameterForm::fieldNames() const { return order_; }

bool HyperParameterForm::isHot(const QString& name) const {
  auto it = fields_.find(name);
  return it != fields_.end() && it->second.info.hot;
}

bool HyperParameterForm::isLogScale(const QString& name) const {
  auto it = fields_.find(name);
  return it != fields_.end() && it->second.info.log_scale;
}

void HyperParameterForm::setIntegral(const QString& name, bool integral) {
  auto it = fields_.find(name);
  if (it == fields_.end()) return;
  const bool was = updating_;
  updating_ = true;
  static_cast<ScientificSpinBox*>(it->second.spin)->setIntegral(integral);
  if (!it->second.info.log_scale && integral) it->second.spin->setSingleStep(1.0);
  it->second.baseline = it->second.spin->value();
  updating_ = was;
}

bool HyperParameterForm::isIntegral(const QString& name) const {
  auto it = fields_.find(name);
  return it != fields_.end() && it->second.spin->decimals() == 0;
}

QDoubleSpinBox* HyperParameterForm::spinBox(const QString& name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : it->second.spin;
}

QSlider* HyperParameterForm::logSlider(const QString& name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : it->second.slider;
}

QLabel* HyperParameterForm::badge(const QString& name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : it->second.badge;
}

void HyperParameterForm::revertCold() {
  updating_ = true;
  for (auto& [name, f] : fields_) {
    if (!f.pending) continue;
    f.spin->setValue(f.baseline);
    setPending(f, false);
    syncSlider(f);
  }
  updating_ = false;
  emitPending();
}

void HyperParameterForm::onEdited(const QString& name, double value) {
  if (updating_) return;
  Field& f = fields_[name];
  syncSlider(f);
  if (f.info.hot) {
    f.baseline = value;
    emit hotChanged(name, value);
    return;
  }
  const bool pending = value != f.baseline;
  if (pending == f.pending) return;
  setPending(f, pending);
  emitPending();
}

void HyperParameterForm::setPending(Field& f, bool pending) {
  f.pending = pending;
  if (f.info.hot) {
    f.badge->setText(tr("applies now"));
    f.badge->setStyleSheet(kHotStyle);
  } else {
    f.badge->setText(pending ? tr("restart pending") : tr("restart"));
    f.badge->setStyleSheet(pending ? kPendingStyle : kColdStyle);
  }
  QFont font = f.label->font();
  font.setBold(pending);
  f.label->setFont(font);
}

void HyperParameterForm::emitPending() {
  const QStringList pending = pendingColdFields();
  apply_button_->setEnabled(!pending.isEmpty());
  revert_button_->setEnabled(!pending.isEmpty());
  emit coldPending(pending);
}

double HyperParameterForm::sliderToValue(const Field& f, int position) const {
  const double hi = std::log10(f.info.maximum);
  const double lo = f.info.minimum > 0 ? std::log10(f.info.minimum) : hi - 6;
  double v = std::pow(10.0, lo + (hi - lo) * position / kLogSliderSteps);
  v = f.spin->decimals() == 0 ? std::round(v) : roundSignificant(v, 3);
  return std::clamp(v, f.info.minimum, f.info.maximum);
}

void HyperParameterForm::syncSlider(Field& f) {
  if (!f.slider) return;
  const double hi = std::log10(f.info.maximum);
  const double lo = f.info.minimum > 0 ? std::log10(f.info.minimum) : hi - 6;
  const double v = f.spin->value();
  const double t = v > 0 && hi > lo ? (std::log10(v) - lo) / (hi - lo) : 0;
  QSignalBlocker block(f.slider);
  f.slider->setValue(int(std::lround(std::clamp(t, 0.0, 1.0) * kLogSliderSteps)));
}

}  // namespace rsalab
