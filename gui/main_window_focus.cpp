// MainWindow, room for the figures: focus mode (View → Focus on figure, Ctrl+Shift+F, and on by
// itself when sweep results are opened) hides the docks while a figure tab (Sample efficiency,
// Regime map) is shown, and brings them back, as they were, on any other tab or when it is
// turned off; and the status bar's message, elided to the room it has with the whole text in its
// tooltip.
#include <QAction>
#include <QDockWidget>
#include <QStatusBar>
#include <QTimer>

#include "gui/main_window.h"
#include "gui/sweep_panel.h"
#include "widgets/elided_label.h"
#include "widgets/generation_time_view.h"
#include "widgets/regime_map_view.h"

namespace rsalab {

QAction* MainWindow::buildFocusAction() {
  focus_action_ = new QAction("&Focus on figure", this);
  focus_action_->setObjectName("FocusAction");
  focus_action_->setCheckable(true);
  focus_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
  focus_action_->setToolTip(
      "Hide the docks while a figure tab (Sample efficiency, Regime map) is shown (Ctrl+Shift+F)");
  connect(focus_action_, &QAction::toggled, this, &MainWindow::applyFigureFocus);
  connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::applyFigureFocus);
  return focus_action_;
}

bool MainWindow::isFigureTab(const QWidget* tab) const {
  return sweep_panel_ && tab &&
         (tab == sweep_panel_ || tab == sweep_panel_->regimeView() || tab == generation_view_);
}

void MainWindow::applyFigureFocus() {
  const bool focus = focus_action_->isChecked() && isFigureTab(tabs_->currentWidget());
  if (focus == focused_) return;
  if (focus) {
    // What "as they were" means: the whole layout, tabified docks and sizes included.
    pre_focus_layout_ = saveState(kLayoutVersion);
    for (auto* dock : findChildren<QDockWidget*>()) {
      if (!dock->isFloating()) dock->hide();
    }
  } else {
    restoreState(pre_focus_layout_, kLayoutVersion);
  }
  focused_ = focus;
}

void MainWindow::leaveFigureFocus() { focus_action_->setChecked(false); }

QByteArray MainWindow::layoutState() const {
  return focused_ ? pre_focus_layout_ : saveState(kLayoutVersion);
}

void MainWindow::showSweepFigures() {
  auto* regime = sweep_panel_->regimeView();
  tabs_->setCurrentWidget(regime->pointCount() > 0 ? static_cast<QWidget*>(regime)
                                                   : static_cast<QWidget*>(sweep_panel_));
  focus_action_->setChecked(true);
}

void MainWindow::showStatus(const QString& text, int timeout_ms) {
  message_label_->setText(text);
  if (timeout_ms > 0)
    message_timer_->start(timeout_ms);
  else
    message_timer_->stop();
}

QString MainWindow::statusText() const { return message_label_->text(); }

}  // namespace rsalab
