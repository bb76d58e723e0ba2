// SPDX-License-Identifier: GPL-3.0-or-later
// Watches a planned sweep's folder (plan.json + cells/I.json, engine/sweep/) while its cells are
// written, by this machine or any other that shares the folder (a Slurm job array): each new cell
// result comes out once as a SweepRow, and a status line says how many cells are done of how many
// and, when the sweep went to Slurm and squeue answers, how many tasks are running or pending.
//
// How it notices: a QFileSystemWatcher on DIR/cells (local filesystems) and a poll every
// `pollMilliseconds()` (network filesystems send no change events); a scan reads only the cell
// files it has not read yet. squeue runs as an asynchronous QProcess every 5 s (never blocks the
// GUI thread); without squeue, or without submissions, the status comes from the files alone.
// Qt only (no LibTorch): the files are read through the core library.
#pragma once

#include <QMetaType>
#include <QObject>
#include <QProcess>
#include <QSet>
#include <QString>
#include <map>
#include <memory>

#include "engine/core/sweep/slurm.h"
#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/sweep/sweep_types.h"

class QFileSystemWatcher;
class QTimer;

namespace rsalab {

class SweepFolderWatcher : public QObject {
  Q_OBJECT
 public:
  explicit SweepFolderWatcher(QObject* parent = nullptr);
  ~SweepFolderWatcher() override;

  // Reads DIR/plan.json and starts watching; false with the reader's message on a bad folder.
  // Cells already there arrive (rowArrived) from the first scan, right after this returns.
  bool open(const QString& dir, QString* error);
  void stop();
  QString dir() const { return dir_; }
  const SweepPlan& plan() const { return plan_; }
  int64_t done() const { return static_cast<int64_t>(loaded_.size()); }
  QString statusLine() const;
  void setPollMilliseconds(int ms);
  int pollMilliseconds() const;
  void scanNow();  // what the watcher and the poll call

 signals:
  /// A cell's result appeared (once per cell): its row, with curves.
  void rowArrived(const rsalab::SweepRow& row);
  /// The status line changed (done / total, Slurm's counts).
  void statusChanged(const QString& line, qint64 done, qint64 total);
  /// A cell file that cannot be used (damaged, another plan's): its message, once per file.
  void problem(const QString& message);

 private:
  void querySlurm();
  void onSqueueFinished(int exit_code, QProcess::ExitStatus status);
  void emitStatus();

  QString dir_;
  SweepPlan plan_;
  QFileSystemWatcher* fs_watcher_ = nullptr;
  QTimer* poll_ = nullptr;
  QTimer* slurm_timer_ = nullptr;
  QProcess* squeue_ = nullptr;
  QSet<int64_t> loaded_;                // cell indices read
  std::map<QString, qint64> reported_;  // bad files already reported → their mtime
  std::vector<SlurmSubmission> submissions_;
  std::map<int64_t, std::string> slurm_states_;
  QString slurm_note_;  // why there are no Slurm states, or empty
  QString last_line_;
};

}  // namespace rsalab

Q_DECLARE_METATYPE(rsalab::SweepRow)
