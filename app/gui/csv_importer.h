// SPDX-License-Identifier: GPL-3.0-or-later
// CSV series: File → Import CSV series… and a dropped file open the import preview; accepting it
// makes the file the run setup's "csv" task. A dropped folder is a session to open (openRequested).
#pragma once

#include <QObject>
#include <QString>

class QMimeData;
class QWidget;

namespace rsalab {

class CsvImportDialog;
class RunSetupPanel;

class CsvImporter : public QObject {
  Q_OBJECT
 public:
  // `setup`: the panel whose task list gets the file; `dialogs`: the preview's parent.
  CsvImporter(RunSetupPanel* setup, QWidget* dialogs);
  // Parses a CSV (torch-free reader) and opens the import preview (non-modal). nullptr, with the
  // reader's message logged, on error.
  CsvImportDialog* importCsv(const QString& path);
  QString path() const { return path_; }
  int horizon() const { return horizon_; }
  // Drag and drop onto the window: a CSV file is imported, a folder opened as a session.
  static bool accepts(const QMimeData* data);
  bool drop(const QMimeData* data);  // false: nothing to open
  // Makes `path` the run setup's "csv" task (`select`: labelled with H, the forms moved to the
  // real-series defaults through taskSelected; the caller selects it).
  void setTask(const QString& path, int horizon, bool select);

 signals:
  void log(const QString& line);
  void status(const QString& text, int timeout_ms);
  /// The csv task was selected: the forms move to the real-series defaults.
  void taskSelected(const QString& task);
  /// A folder was dropped: a session bundle to open.
  void openRequested(const QString& path);

 private:
  RunSetupPanel* setup_;
  QWidget* dialogs_;
  QString path_;
  int horizon_ = 1;
};

}  // namespace rsalab
