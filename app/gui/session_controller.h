// SPDX-License-Identifier: GPL-3.0-or-later
// Sessions: open (File → Open, Recent sessions, a dropped folder, `rsalab --session`), save and
// save as on the worker thread, autosave, and the recent-sessions list; and showing runs that do
// not train here (a bundle's, a clicked sweep run's). What a save writes is assembled by the
// SessionRecorder (engine/core/session/session_recorder.h), the same assembler rsalab-cli's
// `train --session` and `sweep --session` use. A bundle's runs and a sweep's run become Runs in
// the RunStore at this boundary (runsOfSession, runOfSweepRow), with their truth and references.
#pragma once

#include <QMenu>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "engine/core/session/session_bundle.h"
#include "engine/core/session/session_recorder.h"

class QMainWindow;

namespace rsalab {

class CsvImporter;
class FigureFocus;
class HyperParameterForm;
class InspectorPanel;
class LossCurveView;
class RunSetupPanel;
class RunStore;
class SweepPanel;
class TrainingController;

// What the sessions act on, given once: the window (its title and modified flag), the runs and
// the views that show them, the forms an opened bundle fills, and the training controller whose
// worker thread writes checkpoints while saving.
struct SessionViews {
  QMainWindow* window = nullptr;
  RunStore* runs = nullptr;
  LossCurveView* curves = nullptr;
  InspectorPanel* inspector = nullptr;
  SweepPanel* sweeps = nullptr;
  RunSetupPanel* setup = nullptr;
  HyperParameterForm* hyper = nullptr;
  CsvImporter* csv = nullptr;
  FigureFocus* focus = nullptr;
  TrainingController* training = nullptr;
};

class SessionController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kSnapshotsPerRunSaved = 24;  // inspection snapshots kept per run in a bundle
  SessionController(const SessionViews& views, QObject* parent);
  void setRecentMenu(QMenu* menu);  // File → Recent sessions, filled from recent()
  // Replaces the picture with a saved session (runs table, curves, inspector, layout); offline:
  // nothing trains until Start. On a bad bundle: false, the picture unchanged, the reader's
  // message (naming the file and key) in `error` when given, else in a message box and the log.
  bool open(const QString& path, QString* error = nullptr);
  // Saves asynchronously on the worker thread (checkpoints of live runs included); the outcome
  // arrives as saved(). An empty path means the current session path.
  void saveTo(const QString& path);
  void saveOrAsk();  // File → Save: to the current path, else Save as
  void saveAs();     // File → Save session as… (asks for the path)
  QString path() const { return path_; }
  QStringList recent() const;
  SessionBundle bundle() const;  // what a save writes, minus checkpoints
  SessionRecorder& recorder() { return recorder_; }
  void setOffline(bool offline) { offline_ = offline; }
  void setTraining(bool training) { training_ = training; }  // no open while runs train
  void setAutosaveMinutes(int minutes);                      // 0: off
  // Shows a finished sweep run like a session run: its curves in the loss dock (every point from
  // its folder where the sweep kept one) and, when its inspection record was kept, its maps in
  // the inspector (switches to that tab); its truth and references in the runs table.
  void showSweepRun(const SweepRow& row);

 signals:
  void log(const QString& line);
  void status(const QString& text, int timeout_ms);
  /// A save finished; `error` is empty on success.
  void saved(const QString& path, const QString& error);

 private:
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void autosave();
  void showBundle(const SessionBundle& bundle);  // the picture of an opened bundle
  void applyBundleToPanels(const SessionBundle& bundle);

  SessionViews v_;
  // What a save writes: the config, the runs with every metric point received, checkpoint files
  // of offline runs, the sweep table.
  SessionRecorder recorder_;
  QMenu* recent_menu_ = nullptr;
  QString path_;
  bool offline_ = false;  // the runs shown came from a bundle, not from the worker
  bool saving_ = false;
  bool training_ = false;
  QTimer* autosave_timer_;
};

}  // namespace rsalab
