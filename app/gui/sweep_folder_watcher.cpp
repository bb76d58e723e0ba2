// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/sweep_folder_watcher.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QStandardPaths>
#include <QTimer>

#include "engine/core/sweep/sweep_cell.h"
#include "engine/core/sweep/sweep_status.h"

namespace rsalab {

namespace {
constexpr int kSlurmPollMs = 5000;
}

SweepFolderWatcher::SweepFolderWatcher(QObject* parent)
    : QObject(parent),
      fs_watcher_(new QFileSystemWatcher(this)),
      poll_(new QTimer(this)),
      slurm_timer_(new QTimer(this)) {
  qRegisterMetaType<rsalab::SweepRow>();
  poll_->setInterval(2000);
  slurm_timer_->setInterval(kSlurmPollMs);
  connect(poll_, &QTimer::timeout, this, &SweepFolderWatcher::scanNow);
  connect(fs_watcher_, &QFileSystemWatcher::directoryChanged, this, &SweepFolderWatcher::scanNow);
  connect(slurm_timer_, &QTimer::timeout, this, &SweepFolderWatcher::querySlurm);
}

SweepFolderWatcher::~SweepFolderWatcher() { stop(); }

void SweepFolderWatcher::setPollMilliseconds(int ms) { poll_->setInterval(ms); }
int SweepFolderWatcher::pollMilliseconds() const { return poll_->interval(); }

bool SweepFolderWatcher::open(const QString& dir, QString* error) {
  stop();
  try {
    plan_ = readSweepPlan(dir.toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  dir_ = dir;
  loaded_.clear();
  reported_.clear();
  slurm_states_.clear();
  submissions_.clear();
  slurm_note_.clear();
  last_line_.clear();
  const QString cells = QString::fromStdString(sweepCellsDir(dir.toStdString()));
  QDir().mkpath(cells);  // a plan written with --plan has it; an older copy may not
  fs_watcher_->addPath(cells);
  poll_->start();
  slurm_timer_->start();
  QTimer::singleShot(0, this, [this] {
    scanNow();
    querySlurm();
  });
  return true;
}

void SweepFolderWatcher::stop() {
  poll_->stop();
  slurm_timer_->stop();
  if (!fs_watcher_->directories().isEmpty()) fs_watcher_->removePaths(fs_watcher_->directories());
  if (squeue_) {
    squeue_->disconnect(this);
    squeue_->kill();
    squeue_->waitForFinished(1000);
    delete squeue_;
    squeue_ = nullptr;
  }
  dir_.clear();
}

void SweepFolderWatcher::scanNow() {
  if (dir_.isEmpty()) return;
  const std::string dir = dir_.toStdString();
  const QDir cells(QString::fromStdString(sweepCellsDir(dir)));
  for (const QFileInfo& file : cells.entryInfoList({"*.json"}, QDir::Files)) {
    bool number = false;
    const int64_t index = file.completeBaseName().toLongLong(&number);
    if (!number || index < 0 || index >= plan_.cellCount() || loaded_.contains(index)) continue;
    const qint64 stamp = file.lastModified().toMSecsSinceEpoch();
    const auto seen = reported_.find(file.filePath());
    if (seen != reported_.end() && seen->second == stamp) continue;  // reported, unchanged
    try {
      if (auto cell = readSweepCell(dir, plan_, index)) {
        loaded_.insert(index);
        emit rowArrived(cell->row);
      }
    } catch (const std::exception& e) {
      reported_[file.filePath()] = stamp;
      emit problem(QString::fromUtf8(e.what()));
    }
  }
  try {
    submissions_ = readSlurmSubmissions(dir);
  } catch (const std::exception& e) {
    slurm_note_ = QString::fromUtf8(e.what());
  }
  emitStatus();
}

void SweepFolderWatcher::querySlurm() {
  if (dir_.isEmpty() || submissions_.empty() || squeue_) return;
  if (QStandardPaths::findExecutable("squeue").isEmpty()) {
    slurm_note_ = "squeue not found";
    emitStatus();
    return;
  }
  std::vector<std::string> argv = squeueCommand(submissions_);
  QStringList args;
  for (size_t i = 1; i < argv.size(); ++i) args << QString::fromStdString(argv[i]);
  squeue_ = new QProcess(this);
  connect(squeue_, &QProcess::finished, this, &SweepFolderWatcher::onSqueueFinished);
  squeue_->start(QString::fromStdString(argv[0]), args);
}

void SweepFolderWatcher::onSqueueFinished(int exit_code, QProcess::ExitStatus status) {
  const QString out = QString::fromUtf8(squeue_->readAllStandardOutput());
  const QString err = QString::fromUtf8(squeue_->readAllStandardError()).trimmed();
  squeue_->deleteLater();
  squeue_ = nullptr;
  if (status == QProcess::NormalExit && exit_code == 0) {
    slurm_states_ = parseSqueueTasks(out.toStdString(), submissions_);
    slurm_note_.clear();
  } else if (err.contains("Invalid job id")) {  // the controller has forgotten these jobs
    slurm_states_.clear();
    slurm_note_.clear();
  } else {
    slurm_note_ = "squeue: " + (err.isEmpty() ? QString("exit %1").arg(exit_code) : err);
  }
  emitStatus();
}

QString SweepFolderWatcher::statusLine() const {
  if (dir_.isEmpty()) return {};
  const std::string dir = dir_.toStdString();
  int64_t counts[kCellStateCount] = {};
  for (const auto& cell : plan_.cells) {
    const auto it = slurm_states_.find(cell.index);
    const bool has = loaded_.contains(cell.index);
    const auto state = classifyCell(has, false, !has && sweepCellStarted(dir, cell.index),
                                    it == slurm_states_.end() ? "" : it->second);
    ++counts[static_cast<int>(state)];
  }
  QString line = QString("Sweep folder %1: %2 / %3 cells done")
                     .arg(QDir(dir_).dirName())
                     .arg(done())
                     .arg(plan_.cellCount());
  if (submissions_.empty()) {
    line += " · not submitted to Slurm";
  } else if (!slurm_note_.isEmpty()) {
    line += " · Slurm: " + slurm_note_;
  } else {
    line += QString(" · Slurm: %1 running, %2 pending, %3 failed, %4 missing")
                .arg(counts[static_cast<int>(CellState::Running)])
                .arg(counts[static_cast<int>(CellState::Pending)])
                .arg(counts[static_cast<int>(CellState::Failed)])
                .arg(counts[static_cast<int>(CellState::Missing)]);
  }
  return line;
}

void SweepFolderWatcher::emitStatus() {
  const QString line = statusLine();
  if (line == last_line_) return;
  last_line_ = line;
  emit statusChanged(line, done(), plan_.cellCount());
}

}  // namespace rsalab
