// SPDX-License-Identifier: GPL-3.0-or-later
// The scripted screenshots of `rsalab --screenshot PATH`: start training (unless the window shows
// a session or a sweep), wait, then save a PNG of the window, or one PNG per TAB:MODEL entry of
// --shots (PATH-TAB-MODEL.png, TAB one of attention, rem, decay, gates, linear-rnn, after
// inspecting the first run of MODEL), and close the window. For the docs and for checks on Xvfb or
// Qt's offscreen platform.
#pragma once

#include <QString>
#include <QStringList>

namespace rsalab {

class MainWindow;

struct ScreenshotScript {
  QString path;                // the PNG, or the prefix of the --shots files
  double after_seconds = 8;    // training time before the first shot
  QStringList shots;           // TAB or TAB:MODEL entries; empty: one shot of the window
  bool start_training = true;  // false: the window shows a session or a sweep
};

// Index of a --shots tab name in the inspector's tabs, -1 when unknown.
int screenshotTabIndex(const QString& name);

// Schedules the script on the window's event loop; the window closes when it is done.
void scheduleScreenshots(MainWindow& window, const ScreenshotScript& script);

}  // namespace rsalab
