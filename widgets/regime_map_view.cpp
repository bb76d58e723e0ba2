// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/regime_map_view.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/registry/model_registry.h"
#include "widgets/number_text.h"
#include "widgets/plot_export.h"
#include "widgets/sample_efficiency_view.h"

namespace rsalab {

namespace {

QString csvField(const QString& s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
  return '"' + QString(s).replace('"', "\"\"") + '"';
}

const RegimeCell* winnerCell(const RegimeMap& m, const RegimeWinner* w) {
  if (!w || w->verdict == RegimeVerdict::Pending) return nullptr;
  return m.cell(w->best, w->axis_value, w->size);
}

int lowestRun(const RegimeCell* cell) {
  if (!cell || cell->runs.empty()) return -1;
  return static_cast<int>(*std::min_element(cell->runs.begin(), cell->runs.end()));
}
}  // namespace

RegimeMapView::RegimeMapView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 0);
  summary_label_ = new QLabel(tr("no runs yet"), this);
  summary_label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  bar->addWidget(summary_label_, 1);
  figure_button_ = new QPushButton(tr("Save figure…"), this);
  figure_button_->setToolTip(tr("The regime map as PNG, SVG or PDF"));
  csv_button_ = new QPushButton(tr("Export cells…"), this);
  csv_button_->setToolTip(
      tr("Every model's cells as CSV: model, axis value, N, seeds, mean, sd, verdict, best"));
  bar->addWidget(figure_button_);
  bar->addWidget(csv_button_);
  layout->addLayout(bar);

  stack_ = new QStackedWidget(this);
  empty_page_ = new QWidget(stack_);
  auto* empty_layout = new QVBoxLayout(empty_page_);
  empty_layout->addStretch(1);
  empty_label_ = new QLabel(empty_page_);
  empty_label_->setObjectName("RegimeMapMessage");
  empty_label_->setAlignment(Qt::AlignCenter);
  empty_label_->setWordWrap(true);
  empty_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the command can be copied
  empty_layout->addWidget(empty_label_);
  empty_action_ = new QPushButton(empty_page_);
  empty_action_->setObjectName("RegimeMapAction");
  empty_action_->setVisible(false);
  empty_layout->addWidget(empty_action_, 0, Qt::AlignHCenter);
  empty_layout->addStretch(1);
  connect(empty_action_, &QPushButton::clicked, this, &RegimeMapView::emptyActionClicked);
  plot_ = new QCustomPlot(stack_);
  plot_->setObjectName("RegimeMapPlot");
  plot_->setAutoAddPlottableToLegend(false);
  plot_->setMouseTracking(true);
  plot_->installEventFilter(this);
  stack_->addWidget(empty_page_);
  stack_->addWidget(plot_);
  layout->addWidget(stack_, 1);
  setEmptyMessage(tr("no runs yet"));

  PlotExport::attach(plot_, [this](bool) {
    // Numbers only (the context menu's CSV/JSON); the text CSV is cellsCsv().
    QVector<PlotDataTable> tables;
    const RegimeMap& m = regimeMap();
    const QStringList order = models();
    for (const QString& model : order) {
      PlotDataTable t{model, {"axis_value", "N", "seeds", "mean", "sd"}, {}};
      for (const auto& c : m.cells) {
        if (QString::fromStdString(c.model) == model)
          t.rows.push_back({c.axis_value, double(c.size), double(c.seeds), c.mean, c.sd});
      }
      tables.push_back(t);
    }
    PlotDataTable w{
        "winner", {"axis_value", "N", "verdict (0 pending 1 winner 2 tie)", "best"}, {}};
    for (const auto& v : m.winners) {
      w.rows.push_back({v.axis_value, double(v.size), double(static_cast<int>(v.verdict)),
                        double(order.indexOf(QString::fromStdString(v.best)))});
    }
    tables.push_back(w);
    return tables;
  });
  connect(csv_button_, &QPushButton::clicked, this, &RegimeMapView::exportCsvInteractively);
  connect(figure_button_, &QPushButton::clicked, this, &RegimeMapView::saveFigureInteractively);
  connect(plot_, &QCustomPlot::mousePress, this,
          [this](QMouseEvent* e) { press_pos_ = e->position().toPoint(); });
  connect(plot_, &QCustomPlot::mouseRelease, this, &RegimeMapView::onMouseRelease);
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    const QString text = toolTipAt(e->position().toPoint());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(e->globalPosition().toPoint(), text, plot_);
  });
}

void RegimeMapView::addPoint(const RegimePoint& point) {
  points_.push_back(point);
  map_stale_ = true;
  markDirty();
}

void RegimeMapView::setPoints(const std::vector<RegimePoint>& points) {
  points_ = points;
  map_stale_ = true;
  markDirty();
}

void RegimeMapView::clear() { setPoints({}); }

void RegimeMapView::setAxisName(const QString& name) {
  axis_name_ = name;
  markDirty();
}

QString RegimeMapView::axisTitle(const QString& name) {
  // By the TaskOptions key (taskParameterKey): "mix.share", "task.mix_share" → "mix_share".
  static const QMap<QString, QString> kKnown = {
      {"mix_share", tr("recurrent share a")},
      {"noise", tr("observation noise σ")},
      {"length", tr("sequence length T")},
  };
  if (name.isEmpty()) return tr("task parameter");
  QString key = name.startsWith("task.") ? name.mid(5) : name;
  key.replace('.', '_');
  const auto it = kKnown.find(key);
  return it == kKnown.end() ? name : QString("%1 (%2)").arg(*it, name);
}

void RegimeMapView::setTitle(const QString& title) {
  title_ = title;
  markDirty();
}

void RegimeMapView::setEmptyMessage(const QString& text) {
  empty_message_ = text;
  markDirty();
}

void RegimeMapView::setEmptyAction(const QString& label) {
  empty_action_->setText(label);
  markDirty();
}

bool RegimeMapView::showsMaps() const { return stack_->currentWidget() == plot_; }

const RegimeMap& RegimeMapView::regimeMap() const {
  if (map_stale_) {
    map_ = buildRegimeMap(points_);
    map_stale_ = false;
  }
  return map_;
}

QStringList RegimeMapView::models() const {
  // Registry order whatever order the runs finish in; unknown models after, as first seen.
  const auto& names = regimeMap().models;
  std::vector<std::string> order(names.begin(), names.end());
  std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    const auto rank = [](const std::string& m) {
      const int i = modelIndex(m);
      return i >= 0 ? i : std::numeric_limits<int>::max();
    };
    return rank(a) < rank(b);
  });
  QStringList out;
  for (const auto& m : order) out << QString::fromStdString(m);
  return out;
}

void RegimeMapView::markDirty() { repaint_.markDirty(); }

void RegimeMapView::flush() {
  repaint_.markDirty();
  repaint_.flush();
}

bool RegimeMapView::eventFilter(QObject* watched, QEvent* event) {
  // A resize that calls for another grid (more columns, fewer rows) lays the maps out again.
  if (watched == plot_ && event->type() == QEvent::Resize && columns_ > 0 &&
      columnsFor(plot_->size(), static_cast<int>(panels_.size())) != columns_)
    markDirty();
  return QWidget::eventFilter(watched, event);
}

void RegimeMapView::redraw() {
  const RegimeMap& m = regimeMap();
  int won = 0, tied = 0, pending = 0;
  for (const auto& w : m.winners) {
    won += w.verdict == RegimeVerdict::Winner;
    tied += w.verdict == RegimeVerdict::Tie;
    pending += w.verdict == RegimeVerdict::Pending;
  }
  summary_label_->setText(
      points_.empty()
          ? tr("no runs yet")
          : tr("%1 run(s): %2 model(s) × %3 value(s) of %4 × %5 size(s) N — %6 cell(s) won, "
               "%7 tied, %8 pending")
                .arg(points_.size())
                .arg(m.models.size())
                .arg(m.axis_values.size())
                .arg(axis_name_.isEmpty() ? tr("the axis") : axis_name_)
                .arg(m.sizes.size())
                .arg(won)
                .arg(tied)
                .arg(pending));
  const bool drawable = std::any_of(m.cells.begin(), m.cells.end(), [](const RegimeCell& c) {
    return c.seeds > 0 && std::isfinite(c.mean);
  });
  csv_button_->setEnabled(drawable);
  figure_button_->setEnabled(drawable);
  if (!drawable) {
    empty_label_->setText(points_.empty() ? empty_message_
                                          : tr("These runs have no finite excess loss: the regime "
                                               "map needs a task whose Bayes floor is known."));
    empty_action_->setVisible(points_.empty() && !empty_action_->text().isEmpty());
    stack_->setCurrentWidget(empty_page_);
    plot_->clearItems();
    plot_->clearPlottables();
    plot_->plotLayout()->clear();
    panels_.clear();
    scale_ = nullptr;
    columns_ = 0;
    return;
  }
  stack_->setCurrentWidget(plot_);
  build(plot_->size());
  plot_->replot();
}

QCPColorMap* RegimeMapView::colorMap(const QString& model) const {
  for (const auto& p : panels_)
    if (!p.model.isEmpty() && p.model == model) return p.map;
  return nullptr;
}

QColor RegimeMapView::winnerColor(double axis_value, int64_t size) const {
  for (auto* item : plot_->findChildren<QCPItemRect*>()) {
    const QPointF key = item->property("regime_cell").toPointF();
    if (item->property("regime_cell").isValid() &&
        std::abs(key.x() - axis_value) <= kAxisTolerance && key.y() == static_cast<double>(size))
      return item->brush().color();
  }
  return {};
}

QString RegimeMapView::winnerText(double axis_value, int64_t size) const {
  for (auto* item : plot_->findChildren<QCPItemText*>()) {
    const QPointF key = item->property("regime_cell").toPointF();
    if (item->property("regime_cell").isValid() &&
        std::abs(key.x() - axis_value) <= kAxisTolerance && key.y() == static_cast<double>(size))
      return item->text();
  }
  return {};
}

QPoint RegimeMapView::cellPixel(const QString& model, double axis_value, int64_t size) const {
  const RegimeMap& m = regimeMap();
  const int i = columnOf(m, axis_value), j = rowOf(m, size);
  if (i < 0 || j < 0) return {-1, -1};
  for (const auto& p : panels_) {
    if (p.model != model) continue;
    return QPoint(qRound(p.rect->axis(QCPAxis::atBottom)->coordToPixel(i)),
                  qRound(p.rect->axis(QCPAxis::atLeft)->coordToPixel(j)));
  }
  return {-1, -1};
}

bool RegimeMapView::cellAt(const QPoint& pixel, const Panel** panel, double* axis_value,
                           int64_t* size) const {
  if (!showsMaps()) return false;
  const RegimeMap& m = regimeMap();
  for (const auto& p : panels_) {
    if (!p.rect->rect().contains(pixel)) continue;
    const int i = qRound(p.rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x()));
    const int j = qRound(p.rect->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y()));
    if (i < 0 || j < 0 || i >= static_cast<int>(m.axis_values.size()) ||
        j >= static_cast<int>(m.sizes.size()))
      return false;
    *panel = &p;
    *axis_value = m.axis_values[i];
    *size = m.sizes[j];
    return true;
  }
  return false;
}

QString RegimeMapView::toolTip(double axis_value, int64_t size) const {
  const RegimeMap& m = regimeMap();
  QStringList lines;
  lines << QString("%1 = %2, N = %3")
               .arg(axis_name_.isEmpty() ? tr("axis") : axis_name_)
               .arg(axis_value, 0, 'g', 4)
               .arg(size);
  for (const QString& model : models()) {
    const RegimeCell* c = m.cell(model.toStdString(), axis_value, size);
    if (c && c->seeds > 0)
      lines << tr("%1: %2 ± %3 (%4 seed(s))")
                   .arg(model, numberText(c->mean), numberText(c->sd))
                   .arg(c->seeds);
    else
      lines << tr("%1: no run yet").arg(model);
  }
  const RegimeWinner* w = m.winner(axis_value, size);
  const QString best = w ? QString::fromStdString(w->best) : QString();
  const QString second = w ? QString::fromStdString(w->runner_up) : QString();
  if (!w || w->verdict == RegimeVerdict::Pending)
    lines << tr("pending: fewer than two models have a result here");
  else if (w->verdict == RegimeVerdict::Winner)
    lines << tr("winner: %1, ahead of %2 by %3 (paired: %4)")
                 .arg(best, second, numberText(w->difference.mean),
                      QString::fromStdString(regimeIntervalText(w->difference)));
  else
    lines << tr("tie: %1 and %2 (paired difference %3: %4 covers 0)")
                 .arg(best, second, numberText(w->difference.mean),
                      QString::fromStdString(regimeIntervalText(w->difference)));
  return lines.join('\n');
}

QString RegimeMapView::toolTipAt(const QPoint& pixel) const {
  const Panel* panel = nullptr;
  double a = 0;
  int64_t n = 0;
  return cellAt(pixel, &panel, &a, &n) ? toolTip(a, n) : QString();
}

int RegimeMapView::runAt(const QPoint& pixel) const {
  const Panel* panel = nullptr;
  double a = 0;
  int64_t n = 0;
  if (!cellAt(pixel, &panel, &a, &n)) return -1;
  const RegimeMap& m = regimeMap();
  if (panel->model.isEmpty()) return lowestRun(winnerCell(m, m.winner(a, n)));
  return lowestRun(m.cell(panel->model.toStdString(), a, n));
}

void RegimeMapView::onMouseRelease(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if ((pos - press_pos_).manhattanLength() > 3) return;  // a drag, not a click
  const int run = runAt(pos);
  if (run >= 0) emit runClicked(run);
}

QString RegimeMapView::cellsCsv() const {
  const RegimeMap& m = regimeMap();
  QString out = "model,axis_value,N,seeds,mean,sd,verdict,best\n";
  for (const QString& model : models()) {
    for (const auto& c : m.cells) {
      if (QString::fromStdString(c.model) != model) continue;
      const RegimeWinner* w = m.winner(c.axis_value, c.size);
      out += QString("%1,%2,%3,%4,%5,%6,%7,%8\n")
                 .arg(csvField(model))
                 .arg(c.axis_value, 0, 'g', 10)
                 .arg(c.size)
                 .arg(c.seeds)
                 .arg(c.mean, 0, 'g', 10)
                 .arg(c.sd, 0, 'g', 10)
                 .arg(regimeVerdictName(w ? w->verdict : RegimeVerdict::Pending))
                 .arg(csvField(w ? QString::fromStdString(w->best) : QString()));
    }
  }
  return out;
}

bool RegimeMapView::saveCsv(const QString& path, QString* error) const {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text) || file.write(cellsCsv().toUtf8()) < 0 ||
      !file.commit()) {
    if (error) *error = QString("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

bool RegimeMapView::saveImage(const QString& path, int width, int height, QString* error) {
  repaint_.flush();
  if (!showsMaps()) {
    if (error) *error = tr("the regime map has no cells to draw yet");
    return false;
  }
  const QSize size(width > 0 ? width : plot_->width(), height > 0 ? height : plot_->height());
  build(size);  // the grid for the image's size
  const bool ok = savePlot(plot_, path, size.width(), size.height(), error);
  build(plot_->size());
  plot_->replot();
  return ok;
}

void RegimeMapView::exportCsvInteractively() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export regime-map cells"),
                                                    "regime_map.csv", tr("CSV (*.csv)"));
  QString error;
  if (!path.isEmpty() && !saveCsv(path, &error))
    QMessageBox::warning(this, tr("Cannot export"), error);
}

void RegimeMapView::saveFigureInteractively() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save regime map"), "regime_map.png",
                                                    tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
  QString error;
  if (!path.isEmpty() && !saveImage(path, 1400, 800, &error))
    QMessageBox::warning(this, tr("Cannot save"), error);
}

}  // namespace rsalab
