// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/preferences_dialog.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QPalette>
#include <QSpinBox>
#include <QStyle>
#include <QStyleFactory>

namespace rsalab {

PreferencesDialog::PreferencesDialog(const Preferences& current, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle("Preferences");
  auto* form = new QFormLayout(this);
  theme_ = new QComboBox(this);
  theme_->addItem("Follow the system", "system");
  theme_->addItem("Light", "light");
  theme_->addItem("Dark", "dark");
  theme_->setCurrentIndex(std::max(0, theme_->findData(current.theme)));
  form->addRow("Theme", theme_);
  autosave_ = new QSpinBox(this);
  autosave_->setRange(0, 120);
  autosave_->setSuffix(" min");
  autosave_->setSpecialValueText("off");
  autosave_->setValue(current.autosave_minutes);
  autosave_->setToolTip("While training, save the session this often (0: off)");
  form->addRow("Autosave every", autosave_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

Preferences PreferencesDialog::preferences() const {
  return {theme_->currentData().toString(), autosave_->value()};
}

void applyTheme(const QString& theme) {
  static const QPalette system_palette = QApplication::palette();
  static const QString system_style = QApplication::style()->name();
  if (theme == "light" || theme == "dark") {
    QApplication::setStyle(QStyleFactory::create("Fusion"));
    QPalette p = QApplication::style()->standardPalette();
    if (theme == "dark") {
      const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225), accent(64, 128, 214);
      p.setColor(QPalette::Window, window);
      p.setColor(QPalette::WindowText, text);
      p.setColor(QPalette::Base, base);
      p.setColor(QPalette::AlternateBase, window);
      p.setColor(QPalette::ToolTipBase, window);
      p.setColor(QPalette::ToolTipText, text);
      p.setColor(QPalette::Text, text);
      p.setColor(QPalette::Button, window);
      p.setColor(QPalette::ButtonText, text);
      p.setColor(QPalette::Highlight, accent);
      p.setColor(QPalette::HighlightedText, Qt::white);
      p.setColor(QPalette::Link, accent.lighter(130));
      p.setColor(QPalette::Mid, QColor(110, 110, 115));
      p.setColor(QPalette::Disabled, QPalette::Text, QColor(130, 130, 130));
      p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(130, 130, 130));
      p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(130, 130, 130));
    }
    QApplication::setPalette(p);
  } else {
    QApplication::setStyle(QStyleFactory::create(system_style));
    QApplication::setPalette(system_palette);
  }
}

}  // namespace rsalab
