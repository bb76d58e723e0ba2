// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/figure_focus.h"

#include <QDockWidget>

namespace rsalab {

FigureFocus::FigureFocus(QMainWindow* window, QTabWidget* tabs, int layout_version)
    : QObject(window),
      window_(window),
      tabs_(tabs),
      version_(layout_version),
      action_(new QAction("&Focus on figure", window)) {
  action_->setObjectName("FocusAction");
  action_->setCheckable(true);
  action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
  action_->setToolTip(
      "Hide the docks while a figure tab (Sample efficiency, Regime map) is shown (Ctrl+Shift+F)");
  connect(action_, &QAction::toggled, this, &FigureFocus::apply);
  connect(tabs_, &QTabWidget::currentChanged, this, &FigureFocus::apply);
}

void FigureFocus::apply() {
  const bool focus = action_->isChecked() && figures_.contains(tabs_->currentWidget());
  if (focus == focused_) return;
  if (focus) {
    // What "as they were" means: the whole layout, tabified docks and sizes included.
    pre_focus_layout_ = window_->saveState(version_);
    for (auto* dock : window_->findChildren<QDockWidget*>()) {
      if (!dock->isFloating()) dock->hide();
    }
  } else {
    window_->restoreState(pre_focus_layout_, version_);
  }
  focused_ = focus;
}

void FigureFocus::show(QWidget* figure) {
  tabs_->setCurrentWidget(figure);
  action_->setChecked(true);
}

void FigureFocus::leave() { action_->setChecked(false); }

QByteArray FigureFocus::layoutState() const {
  return focused_ ? pre_focus_layout_ : window_->saveState(version_);
}

bool FigureFocus::restoreLayout(const QByteArray& state) {
  leave();
  return window_->restoreState(state, version_);
}

}  // namespace rsalab
