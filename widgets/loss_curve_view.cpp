// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/loss_curve_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/core/io/enums.h"
#include "widgets/plot_export.h"
#include "widgets/run_palette.h"
#include "widgets/run_store.h"

namespace rsalab {

namespace {
constexpr int kSliderSteps = 1000;  // slider value / 1000 = α; the top (0.999) is the clamp
constexpr int kRawAlpha = 55;       // raw curve behind the smoothed one: faint
constexpr double kPad = 0.05;       // fitted ranges get 5 % headroom on each side

QString smoothingText(double alpha) { return QString::number(alpha, 'f', 3); }
}  // namespace

LossCurveView::LossCurveView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 0);
  bar->addWidget(new QLabel(tr("x:"), this));
  x_mode_box_ = new QComboBox(this);
  x_mode_box_->addItems({tr("step"), tr("samples seen")});
  bar->addWidget(x_mode_box_);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("smoothing"), this));
  smoothing_slider_ = new QSlider(Qt::Horizontal, this);
  smoothing_slider_->setRange(0, kSliderSteps - 1);
  smoothing_slider_->setFixedWidth(140);
  smoothing_slider_->setToolTip(tr("EMA smoothing of the training curves (0 = raw)"));
  bar->addWidget(smoothing_slider_);
  smoothing_label_ = new QLabel(this);
  smoothing_label_->setMinimumWidth(QFontMetrics(font()).horizontalAdvance("0.000 "));
  bar->addWidget(smoothing_label_);
  bar->addSpacing(12);
  log_box_ = new QCheckBox(tr("log y"), this);
  bar->addWidget(log_box_);
  bar->addStretch(1);
  auto* fit = new QPushButton(tr("Fit"), this);
  fit->setToolTip(tr("Show all data and follow new points (or double-click the plot)"));
  bar->addWidget(fit);
  layout->addLayout(bar);

  plot_ = new QCustomPlot(this);
  layout->addWidget(plot_, 1);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->xAxis->setLabel(tr("step"));
  plot_->yAxis->setLabel(tr("loss"));
  plot_->legend->setVisible(true);
  plot_->legend->setBrush(QColor(255, 255, 255, 210));
  plot_->legend->setBorderPen(QPen(QColor(180, 180, 180)));
  QFont legend_font = font();
  legend_font.setPointSizeF(std::max(6.0, legend_font.pointSizeF() - 1));
  plot_->legend->setFont(legend_font);
  // The legend beside the data, not over it: with the anchors' lines there is no free corner.
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->addElement(0, 1, plot_->legend);
  plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
  plot_->legend->setMargins(QMargins(4, 4, 4, 4));
  PlotExport::attach(plot_, [this](bool visible_only) { return exportTables(visible_only); });

  smoothing_slider_->setValue(int(std::lround(smoothing_ * kSliderSteps)));
  smoothing_label_->setText(smoothingText(smoothing_));

  connect(x_mode_box_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setXAxisMode(i == 1 ? XAxisMode::kSamplesSeen : XAxisMode::kStep); });
  connect(smoothing_slider_, &QSlider::valueChanged, this,
          [this](int v) { setSmoothing(double(v) / kSliderSteps); });
  connect(log_box_, &QCheckBox::toggled, this, &LossCurveView::setLogY);
  connect(fit, &QPushButton::clicked, this, &LossCurveView::fitAll);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { fitAll(); });
  connect(plot_, &QCustomPlot::legendClick, this, &LossCurveView::onLegendClick);
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &LossCurveView::onRangeChanged);
  connect(plot_->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &LossCurveView::onRangeChanged);
}

void LossCurveView::setStore(RunStore* store) {
  if (store_) disconnect(store_, nullptr, this, nullptr);
  store_ = store;
  if (!store_) return;
  connect(store_, &QAbstractItemModel::dataChanged, this, &LossCurveView::followStoreRows);
  connect(store_, &QAbstractItemModel::rowsInserted, this,
          [this](const QModelIndex&, int first, int last) {
            for (int row = first; row <= last; ++row) followStore(store_->idAt(row));
          });
  connect(store_, &QAbstractItemModel::modelReset, this, [this] {
    for (auto& [id, run] : runs_) followStore(id);
  });
  connect(store_, &QObject::destroyed, this, [this] { store_ = nullptr; });
  for (auto& [id, run] : runs_) followStore(id);
}

void LossCurveView::followStoreRows(const QModelIndex& first, const QModelIndex& last,
                                    const QList<int>& roles) {
  if (!roles.isEmpty() && !roles.contains(Qt::CheckStateRole) &&
      !roles.contains(Qt::DecorationRole))
    return;
  for (int row = first.row(); row <= last.row(); ++row) followStore(store_->idAt(row));
}

void LossCurveView::followStore(const RunId& run_id) {
  auto it = runs_.find(run_id);
  if (!store_ || it == runs_.end()) return;
  const int row = store_->rowOf(run_id);
  if (row < 0) return;
  Run& run = it->second;
  const QColor color =
      store_->index(row, RunStore::kSwatch).data(Qt::DecorationRole).value<QColor>();
  if (color.isValid() && color != run.color) {
    run.color = color;
    applyColor(run);
  }
  showRun(run,
          store_->index(row, RunStore::kVisible).data(Qt::CheckStateRole).toInt() == Qt::Checked);
}

void LossCurveView::addRun(const RunId& run_id, const QString& name, const QColor& color) {
  Run& run = ensureRun(run_id);
  run.name = name;
  const QColor stored = store_ ? store_->colorOf(run_id) : QColor();
  run.color = color.isValid()    ? color
              : stored.isValid() ? stored
                                 : runColor(static_cast<int>(run_id.number));
  applyColor(run);
  run.train_smooth->setName(name);
  run.validation_graph->setName(name + tr(" (val)"));
  followStore(run_id);
  updateLegendItem(run);
  markDirty();
}

void LossCurveView::applyColor(Run& run) {
  QColor faint = run.color;
  faint.setAlpha(kRawAlpha);
  run.train_raw->setPen(QPen(faint, 1));
  run.train_smooth->setPen(QPen(run.color, 1.8));
  run.validation_graph->setPen(QPen(run.color, 1.8, Qt::DashLine));
  run.validation_graph->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, run.color, Qt::white, 4));
  markDirty();
}

LossCurveView::Run& LossCurveView::ensureRun(const RunId& run_id) {
  auto it = runs_.find(run_id);
  if (it != runs_.end()) return it->second;
  Run& run = runs_[run_id];
  run.train.setSmoothing(smoothing_);
  run.train_raw = plot_->addGraph();
  run.train_smooth = plot_->addGraph();
  run.validation_graph = plot_->addGraph();
  run.train_raw->removeFromLegend();
  run.validation_graph->removeFromLegend();  // joins the legend with its first point
  run.name = tr("run %1").arg(run_id.number);
  addRun(run_id, run.name, QColor());  // the store's colour where it holds the run
  return run;
}

void LossCurveView::removeRun(const RunId& run_id) {
  auto it = runs_.find(run_id);
  if (it == runs_.end()) return;
  for (QCPGraph* g : {it->second.train_raw, it->second.train_smooth, it->second.validation_graph}) {
    plot_->removeGraph(g);
  }
  runs_.erase(it);
  references_.erase(run_id);
  for (size_t i = markers_.size(); i-- > 0;) {  // its markers go with it
    if (markers_[i].run_id != run_id) continue;
    plot_->removeItem(markers_[i].line);
    plot_->removeItem(markers_[i].text);
    markers_.erase(markers_.begin() + long(i));
  }
  markDirty();
}

std::vector<RunId> LossCurveView::runIds() const {
  std::vector<RunId> ids;
  for (const auto& [id, run] : runs_) ids.push_back(id);
  return ids;
}

void LossCurveView::append(const RunId& run_id, Curve curve, double step, double samples_seen,
                           double loss) {
  Run& run = ensureRun(run_id);
  CurveSeries& s = curve == Curve::kTrain ? run.train : run.validation;
  const bool first = s.empty();
  s.append(step, samples_seen, loss);
  if (first && curve == Curve::kValidation) updateLegendItem(run);
  markDirty();
}

void LossCurveView::appendEvaluation(const RunId& run_id, const EvalMetrics& e) {
  if (e.split != Split::Validation) return;
  append(run_id, Curve::kValidation, static_cast<double>(e.step),
         static_cast<double>(e.samples_seen), e.loss);
}

const CurveSeries* LossCurveView::series(const RunId& run_id, Curve curve) const {
  auto it = runs_.find(run_id);
  if (it == runs_.end()) return nullptr;
  return curve == Curve::kTrain ? &it->second.train : &it->second.validation;
}

void LossCurveView::setXAxisMode(XAxisMode mode) {
  if (mode == x_mode_) return;
  x_mode_ = mode;
  QSignalBlocker block(x_mode_box_);
  x_mode_box_->setCurrentIndex(mode == XAxisMode::kSamplesSeen ? 1 : 0);
  plot_->xAxis->setLabel(mode == XAxisMode::kSamplesSeen ? tr("samples seen") : tr("step"));
  follow_ = true;  // the old x range means nothing on the new axis
  markDirty();
}

void LossCurveView::setSmoothing(double alpha) {
  alpha = std::clamp(alpha, 0.0, 0.999);
  if (alpha == smoothing_) return;
  smoothing_ = alpha;
  for (auto& [id, run] : runs_) run.train.setSmoothing(alpha);
  QSignalBlocker block(smoothing_slider_);
  smoothing_slider_->setValue(int(std::lround(alpha * kSliderSteps)));
  smoothing_label_->setText(smoothingText(alpha));
  markDirty();
}

void LossCurveView::setLogY(bool log_y) {
  if (log_y == log_y_) return;
  log_y_ = log_y;
  QSignalBlocker block(log_box_);
  log_box_->setChecked(log_y);
  QCPAxis* y = plot_->yAxis;
  if (log_y) {
    y->setScaleType(QCPAxis::stLogarithmic);
    y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    setLogLabels();
  } else {
    y->setScaleType(QCPAxis::stLinear);
    y->setTicker(QSharedPointer<QCPAxisTicker>::create());
    y->setNumberFormat("gbd");
    y->setNumberPrecision(6);
  }
  follow_ = true;  // a linear range rarely suits a log axis
  markDirty();
}

void LossCurveView::setRunVisible(const RunId& run_id, bool visible) {
  auto it = runs_.find(run_id);
  if (it == runs_.end()) return;
  // The store's run: write there, and follow its dataChanged like every other view.
  if (const int row = store_ ? store_->rowOf(run_id) : -1; row >= 0) {
    store_->setData(store_->index(row, RunStore::kVisible), visible ? Qt::Checked : Qt::Unchecked,
                    Qt::CheckStateRole);
    return;
  }
  showRun(it->second, visible);
}

void LossCurveView::showRun(Run& run, bool visible) {
  if (run.visible == visible) return;
  run.visible = visible;
  updateLegendItem(run);
  markDirty();
}

bool LossCurveView::isRunVisible(const RunId& run_id) const {
  auto it = runs_.find(run_id);
  return it != runs_.end() && it->second.visible;
}

void LossCurveView::addMarker(double step, const QString& label, const RunId& run_id) {
  Marker m;
  m.step = step;
  m.label = label;
  m.run_id = run_id;
  auto it = runs_.find(run_id);
  const QColor color = it != runs_.end() ? it->second.color : QColor(110, 110, 110);
  m.line = new QCPItemStraightLine(plot_);
  m.line->setPen(QPen(color, 1, Qt::DotLine));
  for (QCPItemPosition* p : {m.line->point1, m.line->point2}) {
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);  // whole height, linear or log
  }
  m.text = new QCPItemText(plot_);
  m.text->setText(label);
  m.text->setColor(color.darker(120));
  QFont f = font();
  f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
  m.text->setFont(f);
  m.text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  m.text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  // Rotated to read upwards along the line, starting just below the top, right of the line.
  m.text->setRotation(-90);
  m.text->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  m.text->setPadding(QMargins(2, 4, 2, 1));      // top (before rotation): the gap to the line
  m.text->setBrush(QColor(255, 255, 255, 200));  // readable over the curves
  markers_.push_back(m);
  markDirty();
}

void LossCurveView::clearMarkers() {
  for (Marker& m : markers_) {
    plot_->removeItem(m.line);
    plot_->removeItem(m.text);
  }
  markers_.clear();
  markDirty();
}

void LossCurveView::clear() {
  clearMarkers();
  plot_->clearGraphs();
  runs_.clear();
  references_.clear();
  follow_ = true;
  markDirty();
}

void LossCurveView::setXRange(double lower, double upper) {
  plot_->xAxis->setRange(lower, upper);
  follow_ = false;
  markDirty();
}

void LossCurveView::fitAll() {
  follow_ = true;
  markDirty();
  flush();
}

void LossCurveView::flush() {
  repaint_.markDirty();
  repaint_.flush();
}

int LossCurveView::drawnPointCount() const {
  int n = 0;
  for (int i = 0; i < plot_->graphCount(); ++i) n += plot_->graph(i)->data()->size();
  return n;
}

int LossCurveView::drawnPointCount(const RunId& run_id, Curve curve) const {
  auto it = runs_.find(run_id);
  if (it == runs_.end()) return 0;
  const QCPGraph* g =
      curve == Curve::kTrain ? it->second.train_smooth : it->second.validation_graph;
  return g->data()->size();
}

int LossCurveView::plotWidthPixels() const { return std::max(1, plot_->axisRect()->width()); }

const std::vector<double>& LossCurveView::xs(const CurveSeries& s) const {
  return x_mode_ == XAxisMode::kSamplesSeen ? s.samplesSeen() : s.steps();
}

double LossCurveView::markerX(const Marker& m) const {
  if (x_mode_ == XAxisMode::kStep) return m.step;
  // Samples seen at that step, interpolated along the marker's run (or the first run with data).
  const CurveSeries* s = nullptr;
  auto it = runs_.find(m.run_id);
  if (it != runs_.end() && !it->second.train.empty()) s = &it->second.train;
  for (auto r = runs_.begin(); !s && r != runs_.end(); ++r) {
    if (!r->second.train.empty()) s = &r->second.train;
  }
  if (!s) return NAN;
  const auto& steps = s->steps();
  const auto& samples = s->samplesSeen();
  const size_t i = size_t(std::lower_bound(steps.begin(), steps.end(), m.step) - steps.begin());
  if (i < steps.size() && steps[i] == m.step) return samples[i];
  if (i == 0 || i == steps.size()) {  // outside the data: proportional to the nearest point
    const size_t j = i == 0 ? 0 : steps.size() - 1;
    return steps[j] != 0 ? samples[j] * m.step / steps[j] : NAN;
  }
  const double t = (m.step - steps[i - 1]) / (steps[i] - steps[i - 1]);
  return samples[i - 1] + t * (samples[i] - samples[i - 1]);
}

void LossCurveView::markDirty() { repaint_.markDirty(); }

void LossCurveView::onRangeChanged() {
  if (setting_ranges_) return;
  follow_ = false;  // the user zoomed or panned: stop fitting, re-decimate for the new range
  markDirty();
}

void LossCurveView::fitRanges() {
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (const auto& [id, run] : runs_) {
    if (!run.visible) continue;
    for (const CurveSeries* s : {&run.train, &run.validation}) {
      if (s->empty()) continue;
      x_lo = std::min(x_lo, xs(*s).front());
      x_hi = std::max(x_hi, xs(*s).back());
      const double lo = log_y_ ? s->minPositiveValue() : s->minValue();
      if (!std::isnan(lo)) y_lo = std::min(y_lo, lo);
      if (!std::isnan(s->maxValue())) y_hi = std::max(y_hi, s->maxValue());
    }
  }
  for (const auto& line : visibleReferences()) {
    if (!std::isfinite(line.loss) || (log_y_ && line.loss <= 0)) continue;
    y_lo = std::min(y_lo, line.loss);
    y_hi = std::max(y_hi, line.loss);
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1;
  if (!(x_hi > x_lo)) x_lo -= 0.5, x_hi += 0.5;
  if (!std::isfinite(y_lo) || !std::isfinite(y_hi)) {
    y_lo = log_y_ ? 0.01 : 0;
    y_hi = 1;
  }
  if (log_y_) {
    const double decades = std::max(std::log10(y_hi / y_lo), 0.2);
    const double factor = std::pow(10.0, kPad * decades);
    y_lo /= factor;
    y_hi *= factor;
  } else {
    const double span = y_hi > y_lo ? y_hi - y_lo : std::max(std::abs(y_hi), 1.0);
    y_lo -= kPad * span;
    y_hi += kPad * span;
  }
  setting_ranges_ = true;
  plot_->xAxis->setRange(x_lo, x_hi);
  plot_->yAxis->setRange(y_lo, y_hi);
  setting_ranges_ = false;
}

// Within less than about two decades the log ticker puts several ticks in one decade (2, 2.5,
// 3 …): "3·10⁰" twice with one significant digit. Plain numbers with three digits there.
void LossCurveView::setLogLabels() {
  QCPAxis* y = plot_->yAxis;
  const QCPRange r = y->range();
  const bool wide = r.lower > 0 && r.upper / r.lower >= 100;
  y->setNumberFormat(wide ? "eb" : "g");
  y->setNumberPrecision(wide ? 0 : 3);
}

void LossCurveView::redraw() {
  if (follow_) fitRanges();
  if (log_y_) setLogLabels();
  const QCPRange xr = plot_->xAxis->range();
  const int columns = plotWidthPixels();
  drawReferences();
  decimateAll(xr, columns);
  plot_->replot();
  // The replot's layout may resize the data area (wider tick labels): decimate again for it.
  if (plotWidthPixels() != columns) {
    decimateAll(xr, plotWidthPixels());
    plot_->replot();
  }
}

void LossCurveView::decimateAll(const QCPRange& xr, int columns) {
  QVector<QCPGraphData> points;
  auto draw = [&](QCPGraph* g, const std::vector<double>& x, const std::vector<double>& y,
                  bool show) {
    points.clear();
    if (show) decimateMinMax(x, y, xr.lower, xr.upper, columns, log_y_, &points);
    g->data()->set(points, /*alreadySorted=*/true);
  };
  for (auto& [id, run] : runs_) {
    const bool raw_behind = run.visible && smoothing_ > 0;
    draw(run.train_raw, xs(run.train), run.train.values(), raw_behind);
    draw(run.train_smooth, xs(run.train), run.train.smoothed(), run.visible);
    draw(run.validation_graph, xs(run.validation), run.validation.values(), run.visible);
  }
  for (Marker& m : markers_) {
    const double x = markerX(m);
    auto it = runs_.find(m.run_id);
    const bool show = std::isfinite(x) && (it == runs_.end() || it->second.visible);
    m.line->setVisible(show);
    m.text->setVisible(show);
    if (!show) continue;
    m.line->point1->setCoords(x, 0);
    m.line->point2->setCoords(x, 1);
    m.text->position->setCoords(x, 0.02);
  }
}

void LossCurveView::updateLegendItem(const Run& run) {
  if (!run.validation.empty() && !plot_->legend->hasItemWithPlottable(run.validation_graph)) {
    run.validation_graph->addToLegend();
  }
  const QColor text = run.visible ? QColor(Qt::black) : QColor(160, 160, 160);
  for (QCPGraph* g : {run.train_smooth, run.validation_graph}) {
    if (auto* item = plot_->legend->itemWithPlottable(g)) {
      item->setTextColor(text);
      item->setFont(plot_->legend->font());
      if (!run.visible) {
        QFont f = item->font();
        f.setStrikeOut(true);
        item->setFont(f);
      }
    }
  }
}

void LossCurveView::onLegendClick(QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
  auto* plottable_item = qobject_cast<QCPPlottableLegendItem*>(item);
  if (!plottable_item) return;
  for (const auto& [id, run] : runs_) {
    if (plottable_item->plottable() == run.train_smooth ||
        plottable_item->plottable() == run.validation_graph) {
      setRunVisible(id, !run.visible);
      return;
    }
  }
}

QVector<PlotDataTable> LossCurveView::exportTables(bool visible_only) const {
  QVector<PlotDataTable> out;
  const QCPRange range = plot_->xAxis->range();
  for (const auto& [id, run] : runs_) {
    if (visible_only && !run.visible) continue;
    for (const Curve curve : {Curve::kTrain, Curve::kValidation}) {
      const CurveSeries& s = curve == Curve::kTrain ? run.train : run.validation;
      if (s.empty()) continue;
      PlotDataTable t;
      t.name = run.name + (curve == Curve::kTrain ? " train" : " validation");
      t.columns = {"step", "samples_seen", "loss"};
      if (curve == Curve::kTrain) t.columns << "smoothed";
      const auto& x = xs(s);
      for (size_t k = 0; k < s.size(); ++k) {
        if (visible_only && !range.contains(x[k])) continue;
        QVector<double> row{s.steps()[k], s.samplesSeen()[k], s.values()[k]};
        if (curve == Curve::kTrain) row << s.smoothed()[k];
        t.rows.push_back(row);
      }
      if (!t.rows.isEmpty()) out.push_back(t);
    }
  }
  return out;
}

}  // namespace rsalab
