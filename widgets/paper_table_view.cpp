// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/paper_table_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSplitter>
#include <QVBoxLayout>
#include <exception>

#include "engine/core/verdicts/paper_table.h"
#include "widgets/paper_table_plot.h"

namespace rsalab {

PaperTableView::PaperTableView(QWidget* parent) : QWidget(parent) {
  progress_ = new QProgressBar(this);
  progress_->setObjectName("PaperTableProgress");
  progress_->setFormat("%v of %m runs");
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ =
      new QLabel("Presets ▸ The RSA paper's table runs ETTh1 by the long-horizon protocol.", this);
  status_->setWordWrap(true);
  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(240);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(plot_);
  split->addWidget(text_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
}

void PaperTableView::begin(const QString& plan) {
  running_ = true;
  progress_->setVisible(true);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_->setText(plan);
  text_->clear();
  plot_->clearPlottables();
  plot_->replot();
}

void PaperTableView::setProgress(int done, int total, const QString& line) {
  progress_->setRange(0, std::max(1, total));
  progress_->setValue(done);
  status_->setText(line);
}

void PaperTableView::setTable(const std::string& table_json) {
  running_ = false;
  try {
    drawPaperTablePlot(plot_, paperTableCurves(table_json),
                       QString::fromStdString(paperTableTitle(table_json)));
    text_->setPlainText(QString::fromStdString(paperTableMarkdown(table_json)));
    progress_->setValue(progress_->maximum());
  } catch (const std::exception& e) {
    status_->setText(QString("The table could not be read: %1").arg(e.what()));
  }
}

void PaperTableView::showSaved(const std::string& table_json, const QString& source) {
  progress_->setVisible(false);
  status_->setText(QString("Opened %1, a table saved by rsalab-cli paper-table. Presets ▸ The RSA "
                           "paper's table measures a new one here.")
                       .arg(source));
  setTable(table_json);  // a malformed table replaces the line above with the reason
}

void PaperTableView::setMessage(const QString& message) {
  running_ = false;
  status_->setText(message);
}

}  // namespace rsalab
