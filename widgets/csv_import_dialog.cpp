// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/csv_import_dialog.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "engine/core/io/calendar.h"

namespace rsalab {

CsvImportDialog::CsvImportDialog(const QString& path, const CsvTable& table, int length,
                                 int horizon, QWidget* parent)
    : QDialog(parent), path_(path) {
  setWindowTitle(QString("Import %1").arg(QFileInfo(path).fileName()));
  auto* layout = new QVBoxLayout(this);
  const QString separator =
      table.separator == '\t' ? "tab" : QString("'%1'").arg(QChar(table.separator));
  QStringList skipped;
  for (const auto& s : table.skipped_columns) skipped << QString::fromStdString(s);
  // The seasonal period the time column's calendar gives (the task's notes say the P it uses).
  const auto calendar = calendarPeriod(table);
  const QString season =
      calendar.period > 0 ? QString("; seasonal period P = %1 %2")
                                .arg(calendar.period)
                                .arg(QString::fromStdString(calendar.rule()))
      : calendar.column.empty()
          ? QString("; no time column: the seasonal period is detected from the data")
          : QString("; %1: the seasonal period is detected from the data")
                .arg(QString::fromStdString(calendar.problem));
  summary_ = new QLabel(
      QString("%1 numeric column(s), %2 row(s); header %3; separator %4%5%6%7")
          .arg(table.columns.size())
          .arg(table.rows)
          .arg(table.has_header ? "detected" : "not detected (columns named by position)")
          .arg(separator)
          .arg(skipped.isEmpty()
                   ? QString()
                   : QString("; date/time column(s) skipped: %1").arg(skipped.join(", ")))
          .arg(table.filled ? QString("; %1 missing value(s) filled forward").arg(table.filled)
                            : QString())
          .arg(season),
      this);
  summary_->setWordWrap(true);
  layout->addWidget(summary_);

  const int cols = static_cast<int>(table.columns.size());
  const int rows = static_cast<int>(std::min<int64_t>(table.rows, kPreviewRows));
  preview_ = new QTableWidget(rows, cols, this);
  QStringList names;
  for (const auto& c : table.columns) names << QString::fromStdString(c);
  preview_->setHorizontalHeaderLabels(names);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      auto* item = new QTableWidgetItem(QString::number(table.at(r, c), 'g', 8));
      item->setFlags(Qt::ItemIsEnabled);
      preview_->setItem(r, c, item);
    }
  }
  preview_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(preview_, 1);

  auto* form = new QFormLayout;
  length_ = new QSpinBox(this);
  length_->setRange(2, 4096);
  length_->setValue(length);
  length_->setToolTip("Window length T: positions the model sees per training sequence");
  horizon_ = new QSpinBox(this);
  horizon_->setRange(1, 1024);
  horizon_->setValue(horizon);
  horizon_->setToolTip("Forecast horizon H: predict the next H values from every position");
  form->addRow("Window length T", length_);
  form->addRow("Horizon H", horizon_);
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText("Use as task");
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(640, 480);
}

int CsvImportDialog::length() const { return length_->value(); }
int CsvImportDialog::horizon() const { return horizon_->value(); }
QString CsvImportDialog::summary() const { return summary_->text(); }

QStringList CsvImportDialog::columnNames() const {
  QStringList out;
  for (int c = 0; c < preview_->columnCount(); ++c)
    out << preview_->horizontalHeaderItem(c)->text();
  return out;
}

}  // namespace rsalab
