// SPDX-License-Identifier: GPL-3.0-or-later
// The paper-table preset's view: a progress bar over the table's runs with the last finished run,
// the figure of test MSE against horizon (widgets/paper_table_plot.h) and, once done, the table's
// Markdown (engine/core/verdicts/paper_table.h) as text. Plain data in, no LibTorch: the preset
// controller (app/gui/preset_controller.h) runs the table and hands its progress and JSON here.
#pragma once

#include <QString>
#include <QWidget>
#include <string>

class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QProgressBar;

namespace rsalab {

class PaperTableView : public QWidget {
  Q_OBJECT
 public:
  explicit PaperTableView(QWidget* parent = nullptr);
  // A new table: `plan` says what runs ("ETTh1, 36 runs"), the bar empties.
  void begin(const QString& plan);
  void setProgress(int done, int total, const QString& line);
  // The finished table: the figure and the Markdown; a malformed table is said in the status.
  void setTable(const std::string& table_json);
  // A table saved earlier (`source` names its file): no progress bar, the status says where the
  // table comes from; begin() brings the bar back.
  void showSaved(const std::string& table_json, const QString& source);
  void setMessage(const QString& message);
  bool isRunning() const { return running_; }
  QCustomPlot* plot() const { return plot_; }
  QProgressBar* progressBar() const { return progress_; }

 private:
  QProgressBar* progress_;
  QLabel* status_;
  QCustomPlot* plot_;
  QPlainTextEdit* text_;
  bool running_ = false;
};

}  // namespace rsalab
