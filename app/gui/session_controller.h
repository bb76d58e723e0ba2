// SPDX-License-Identifier: GPL-3.0-or-later
// Sessions: open (File → Open, Recent sessions, a dropped folder, `rsalab --session`), save and
// save as on the worker thread, autosave, and the recent-sessions list; and showing runs that do
// not train here (a bundle's, a clicked sweep run's). What a save writes is assembled by the
// SessionRecorder (engine/core/session/session_recorder.h), the same assembler rsalab-cli's
// `train --session` and `sweep --session` use.
#pragma once

#include <QMenu>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "engine/core/session/session_bundle.h"
#include "engine/core/session/session_recorder.h"

namespace rsalab {

class MainWindow;
struct SweepRow;

class SessionController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kSnapshotsPerRunSaved = 24;  // inspection snapshots kept per run in a bundle
  explicit SessionController(MainWindow* window);
  void setRecentMenu(QMenu* menu);  // File → Recent sessions, filled from recent()
  // Replaces the picture with a saved session (runs table, curves, inspector, layout); offline:
  // nothing trains until Start. On a bad bundle: false, the picture unchanged, the reader's
  // message (naming the file and key) in `error` when given, else in a message box and the log.
  bool open(const QString& path, QString* error = nullptr);
  // Saves asynchronously on the worker thread (checkpoints of live runs included); the outcome
  // arrives as MainWindow::sessionSaved(). An empty path means the current session path.
  void saveTo(const QString& path);
  void saveOrAsk();  // File → Save: to the current path, else Save as
  QString path() const { return path_; }
  QStringList recent() const;
  SessionBundle bundle() const;  // what a save writes, minus checkpoints
  SessionRecorder& recorder() { return recorder_; }
  void setOffline(bool offline) { offline_ = offline; }
  void setAutosaveMinutes(int minutes);  // 0: off
  // Shows a finished sweep run like a session run: its curves in the loss dock and, when its
  // inspection record was kept, its maps in the inspector (switches to that tab).
  void showSweepRun(const SweepRow& row);

 private:
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void autosave();
  void showBundle(const SessionBundle& bundle);  // the picture of an opened bundle
  void applyBundleToPanels(const SessionBundle& bundle);

  MainWindow* w_;
  // What a save writes: the config, the runs with every metric point received, checkpoint files
  // of offline runs, the sweep table.
  SessionRecorder recorder_;
  QMenu* recent_menu_ = nullptr;
  QString path_;
  bool offline_ = false;  // the runs shown came from a bundle, not from the worker
  bool saving_ = false;
  QTimer* autosave_timer_;
};

}  // namespace rsalab
