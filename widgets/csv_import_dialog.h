// SPDX-License-Identifier: GPL-3.0-or-later
// CSV import preview: what the reader made of a dropped file (columns kept, header detected or
// not, date/time columns skipped, separator, rows) with the first rows as a table, and the two
// choices the series task needs: window length T and forecast horizon H. Plain data in (a
// CsvTable from engine/core/io/csv_reader.h, parsed by the caller), plain values out.
#pragma once

#include <QDialog>

#include "engine/core/io/csv_reader.h"

class QLabel;
class QSpinBox;
class QTableWidget;

namespace rsalab {

class CsvImportDialog : public QDialog {
  Q_OBJECT
 public:
  static constexpr int kPreviewRows = 50;
  CsvImportDialog(const QString& path, const CsvTable& table, int length, int horizon,
                  QWidget* parent = nullptr);

  QString path() const { return path_; }
  int length() const;               // T
  int horizon() const;              // H
  QStringList columnNames() const;  // as shown in the preview's header
  QString summary() const;          // the one-line description shown above the table
  QTableWidget* preview() const { return preview_; }
  QSpinBox* lengthBox() const { return length_; }
  QSpinBox* horizonBox() const { return horizon_; }

 private:
  QString path_;
  QLabel* summary_;
  QTableWidget* preview_;
  QSpinBox *length_, *horizon_;
};

}  // namespace rsalab
