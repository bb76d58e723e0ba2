// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/figures/sweep_figures.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QString>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "app/figures/paper_table_figure.h"
#include "widgets/paper_table_plot.h"
#include "widgets/plot_export.h"
#include "widgets/regime_map_view.h"
#include "widgets/run_palette.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {

constexpr double kSmoothing = 0.9;  // EMA of the per-step training loss, as the loss dock shows it

// A QApplication for widget rendering when the caller (the CLI) has none; Qt's offscreen platform
// unless QT_QPA_PLATFORM says otherwise, so no display is needed.
QApplication* ensureApplication(std::unique_ptr<QApplication>& owned) {
  if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) return app;
  if (QCoreApplication::instance())
    throw std::runtime_error("figures need a QApplication, not a QCoreApplication");
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "rsalab-cli";
  static char* argv[] = {name, nullptr};
  owned = std::make_unique<QApplication>(argc, argv);
  return owned.get();
}

void save(QCustomPlot* plot, const QString& path, const FigureOptions& o,
          std::vector<std::string>& written) {
  QString error;
  if (!savePlot(plot, path, o.width, o.height, &error))
    throw std::runtime_error(error.toStdString());
  written.push_back(path.toStdString());
}

// Loss figure: per model, at the largest N, the mean over seeds of the smoothed training loss
// (solid) and of the validation loss (dashed, dots) against step; log y.
void buildLossFigure(QCustomPlot* plot, const std::vector<SweepRow>& rows, const QString& title) {
  int64_t largest = 0;
  for (const auto& r : rows) {
    if (r.ok() && !r.train_curve.empty()) largest = std::max(largest, r.size);
  }
  std::vector<std::string> order;
  std::map<std::string, std::map<int64_t, std::pair<double, int>>> train,
      validation;  // step → (sum, n)
  for (const auto& r : rows) {
    if (!r.ok() || r.size != largest || r.train_curve.empty()) continue;
    if (std::find(order.begin(), order.end(), r.model) == order.end()) order.push_back(r.model);
    double ema = r.train_curve.front().train_loss;
    for (const auto& m : r.train_curve) {
      if (!std::isfinite(m.train_loss)) continue;
      ema = kSmoothing * ema + (1 - kSmoothing) * m.train_loss;
      auto& slot = train[r.model][m.step];
      slot.first += ema;
      slot.second += 1;
    }
    for (const auto& e : r.validation_curve) {
      auto& slot = validation[r.model][e.step];
      slot.first += e.loss;
      slot.second += 1;
    }
  }
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(
      0, 0,
      new QCPTextElement(
          plot,
          QString("%1 — loss vs step at N = %2 (mean over seeds; training loss EMA %3)")
              .arg(title)
              .arg(largest)
              .arg(kSmoothing),
          QFont(plot->font().family(), 10, QFont::Bold)));
  plot->xAxis->setLabel("step");
  plot->yAxis->setLabel("loss");
  plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot->legend->setVisible(true);
  plot->legend->setBorderPen(QPen(QColor(180, 180, 180)));
  plot->plotLayout()->addElement(1, 1, plot->legend);  // outside the axis rect: never on data
  plot->plotLayout()->setColumnStretchFactor(1, 0.001);
  for (const auto& model : order) {
    const QColor color = modelColor(QString::fromStdString(model));
    auto* t = plot->addGraph();
    t->setName(QString::fromStdString(model) + " train");
    t->setPen(QPen(color, 1.8));
    for (const auto& [step, s] : train[model])
      t->addData(static_cast<double>(step), s.first / s.second);
    if (!validation[model].empty()) {
      auto* v = plot->addGraph();
      v->setName(QString::fromStdString(model) + " validation");
      v->setPen(QPen(color, 1.5, Qt::DashLine));
      v->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, Qt::white, 5));
      for (const auto& [step, s] : validation[model])
        v->addData(static_cast<double>(step), s.first / s.second);
    }
  }
  plot->rescaleAxes();
  const auto y = plot->yAxis->range();
  if (y.lower > 0) plot->yAxis->setRange(y.lower / 1.15, y.upper * 1.15);
}

}  // namespace

bool sweepFiguresAvailable() { return true; }

std::vector<std::string> writeSweepFigures(const std::vector<SweepRow>& rows,
                                           const FigureOptions& options) {
  std::unique_ptr<QApplication> owned;
  ensureApplication(owned);
  const QString dir = QString::fromStdString(options.out_dir);
  if (!QDir().mkpath(dir))
    throw std::runtime_error("cannot create the figures folder " + options.out_dir);
  const QString title = QString::fromStdString(options.title);
  std::vector<std::string> written;

  SampleEfficiencyView view;
  view.resize(options.width, options.height);
  QVector<SampleEfficiencyPoint> points;
  for (const auto& r : rows) {
    if (!r.ok() && !r.reference) continue;  // references: grey curves beside the models
    points.push_back({QString::fromStdString(r.model), static_cast<double>(r.size), r.seed,
                      r.test_loss, static_cast<int>(r.run), r.reference, r.bayes_floor});
  }
  view.setPoints(points);
  view.setTitle(title.isEmpty() ? QString("Sample efficiency") : "Sample efficiency — " + title);
  view.flush();
  for (const char* suffix : {"png", "svg"}) {
    save(view.plot(), QDir(dir).filePath(QString("sample_efficiency.") + suffix), options, written);
  }

  QCustomPlot loss;
  loss.resize(options.width, options.height);
  buildLossFigure(&loss, rows, title.isEmpty() ? QString("Loss") : title);
  for (const char* suffix : {"png", "svg"}) {
    save(&loss, QDir(dir).filePath(QString("loss.") + suffix), options, written);
  }

  // The regime map, where the rows carry a task axis: the trained models' usable runs.
  std::vector<RegimePoint> regime;
  for (const auto& r : rows) {
    if (r.ok() && !r.reference && std::isfinite(r.axis_value))
      regime.push_back({r.model, r.axis_value, r.size, r.seed, r.excess(), r.run});
  }
  if (!regime.empty()) {
    RegimeMapView map;
    map.resize(options.width * 3 / 2, options.height);  // one map per model and the winner map
    map.setAxisName(QString::fromStdString(options.axis_name));
    map.setPoints(regime);
    map.setTitle(title.isEmpty() ? QString("Regime map") : "Regime map — " + title);
    map.flush();
    for (const char* suffix : {"png", "svg"}) {
      const QString path = QDir(dir).filePath(QString("regime_map.") + suffix);
      QString error;
      if (!map.saveImage(path, options.width * 3 / 2, options.height, &error))
        throw std::runtime_error(error.toStdString());
      written.push_back(path.toStdString());
    }
  }
  return written;
}

std::vector<std::string> writePaperTableFigure(const std::string& table_json,
                                               const FigureOptions& options) {
  std::unique_ptr<QApplication> owned;
  ensureApplication(owned);
  const QString dir = QString::fromStdString(options.out_dir);
  if (!QDir().mkpath(dir))
    throw std::runtime_error("cannot create the figures folder " + options.out_dir);
  QCustomPlot plot;
  plot.resize(options.width, options.height);
  drawPaperTablePlot(&plot, paperTableCurves(table_json),
                     QString::fromStdString(paperTableTitle(table_json)));
  std::vector<std::string> written;
  for (const char* suffix : {"png", "svg"})
    save(&plot, QDir(dir).filePath(QString("mse_vs_horizon.") + suffix), options, written);
  return written;
}

}  // namespace rsalab
