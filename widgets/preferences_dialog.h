// SPDX-License-Identifier: GPL-3.0-or-later
// Preferences: the theme (follow the system, or force light/dark) and the autosave interval.
// Plain values in and out; the app stores them in QSettings and applies them.
#pragma once

#include <QDialog>

class QComboBox;
class QSpinBox;

namespace rsalab {

struct Preferences {
  QString theme = "system";  // system | light | dark
  int autosave_minutes = 3;  // 0 = off
};

class PreferencesDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PreferencesDialog(const Preferences& current, QWidget* parent = nullptr);
  Preferences preferences() const;

 private:
  QComboBox* theme_;
  QSpinBox* autosave_;
};

// Applies a theme to the whole application. "system" restores the palette and style the
// platform gave at the first call (Qt 6.4 has no colour-scheme API, so following the system
// means leaving its palette alone); "light"/"dark" use the Fusion style with a fixed palette.
void applyTheme(const QString& theme);

}  // namespace rsalab
