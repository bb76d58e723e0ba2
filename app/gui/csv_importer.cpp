// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gui/csv_importer.h"

#include <QFileInfo>
#include <QMimeData>
#include <QSettings>
#include <QUrl>

#include "engine/core/io/csv_reader.h"
#include "engine/core/registry/task_registry.h"
#include "widgets/csv_import_dialog.h"
#include "widgets/run_setup_panel.h"

namespace rsalab {

CsvImporter::CsvImporter(RunSetupPanel* setup, QWidget* dialogs)
    : QObject(dialogs), setup_(setup), dialogs_(dialogs) {}

CsvImportDialog* CsvImporter::importCsv(const QString& path) {
  CsvTable table;
  try {
    table = readCsvFile(path.toStdString());
  } catch (const std::exception& e) {
    emit log(QString("Cannot import %1: %2").arg(path, e.what()));
    emit status(QString("CSV import: %1").arg(e.what()), 10000);
    return nullptr;
  }
  QSettings().setValue("paths/csv", QFileInfo(path).absolutePath());
  auto* dialog = new CsvImportDialog(
      path, table, static_cast<int>(setup_->setup().config.task.length), horizon_, dialogs_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    setTask(dialog->path(), dialog->horizon(), true);
    RunSetup s = setup_->setup();
    s.config.task.name = csvPathTaskName();
    s.config.task.length = dialog->length();
    setup_->setSetup(s);
    emit log(QString("Task: CSV series %1, T = %2, H = %3 (applies at the next Start)")
                 .arg(path_)
                 .arg(s.config.task.length)
                 .arg(horizon_));
  });
  dialog->open();
  return dialog;
}

bool CsvImporter::accepts(const QMimeData* data) {
  for (const QUrl& url : data->urls()) {
    const QString file = url.toLocalFile();
    if (file.endsWith(".csv", Qt::CaseInsensitive) || file.endsWith(".tsv", Qt::CaseInsensitive) ||
        file.endsWith(".txt", Qt::CaseInsensitive) || QFileInfo(file).isDir())
      return true;
  }
  return false;
}

bool CsvImporter::drop(const QMimeData* data) {
  const auto urls = data->urls();
  if (urls.isEmpty()) return false;
  const QString file = urls.first().toLocalFile();
  if (QFileInfo(file).isDir())
    emit openRequested(file);  // a dropped .rsalab folder
  else
    importCsv(file);
  return true;
}

void CsvImporter::setTask(const QString& path, int horizon, bool select) {
  path_ = path;
  horizon_ = horizon;
  const QString task = QString::fromStdString(csvPathTaskName());
  if (!select) {
    setup_->addTask(task, "CSV series: " + QFileInfo(path_).fileName());
    return;
  }
  setup_->addTask(
      task, QString("CSV series: %1 (H = %2)").arg(QFileInfo(path_).fileName()).arg(horizon_));
  emit taskSelected(task);
}

}  // namespace rsalab
