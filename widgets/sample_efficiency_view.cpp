// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/sample_efficiency_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "engine/core/registry/model_registry.h"
#include "widgets/plot_export.h"
#include "widgets/run_palette.h"

namespace rsalab {

namespace {
constexpr int kBandAlpha = 45;    // band fill: light, the mean line carries the colour
constexpr int kSeedAlpha = 110;   // single-seed points behind the mean
constexpr double kLogPad = 1.25;  // ranges get a factor 1.25 of headroom on log axes

QString fixed3(double v) { return QString::number(v, 'f', 3); }

// N spans decades (10^k labels); losses often span less than one (0.2, 0.4, …, 1.2 labels).
void setLogAxis(QCPAxis* axis, bool powers) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
  ticker->setLogBase(10);
  ticker->setSubTickCount(8);
  axis->setTicker(ticker);
  axis->setNumberFormat(powers ? "gb" : "g");  // "gb": 10^k as a power
  axis->setNumberPrecision(powers ? 0 : 3);
}
}  // namespace

SampleEfficiencyView::SampleEfficiencyView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 0);
  bar->addWidget(new QLabel(tr("band over seeds:"), this));
  band_box_ = new QComboBox(this);
  band_box_->addItems({tr("min – max"), tr("mean ± 1 sd")});
  band_box_->setToolTip(tr("What the shaded band around each model's mean shows"));
  bar->addWidget(band_box_);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("y:"), this));
  quantity_box_ = new QComboBox(this);
  quantity_box_->setObjectName("SampleEfficiencyQuantity");
  quantity_box_->addItems({tr("test loss"), tr("excess loss (test − Bayes floor)")});
  quantity_box_->setToolTip(
      tr("Excess loss: the test loss minus the task's Bayes floor (the optimal predictor's "
         "loss), where the task knows it"));
  bar->addWidget(quantity_box_);
  bar->addSpacing(12);
  summary_label_ = new QLabel(tr("no runs yet"), this);
  bar->addWidget(summary_label_, 1);
  layout->addLayout(bar);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("SampleEfficiencyPlot");
  layout->addWidget(plot_, 1);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  setLogAxis(plot_->xAxis, /*powers=*/true);
  setLogAxis(plot_->yAxis, /*powers=*/false);
  plot_->xAxis->setLabel(tr("training-set size N (sequences)"));
  plot_->yAxis->setLabel(tr("test loss"));
  plot_->xAxis->setRange(10, 10000);
  plot_->yAxis->setRange(0.1, 10);
  plot_->legend->setVisible(true);
  plot_->legend->setBorderPen(QPen(QColor(180, 180, 180)));
  // Outside the axis rect (never on data), at the top of a column of its own: a spacer below
  // takes the height the legend does not need (redraw caps the legend at its own height).
  auto* side = new QCPLayoutGrid;
  plot_->plotLayout()->addElement(0, 1, side);
  plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
  side->addElement(0, 0, plot_->legend);
  side->addElement(1, 0, new QCPLayoutElement(plot_));
  side->setRowSpacing(0);

  connect(band_box_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setBand(i == 1 ? Band::kStdDev : Band::kMinMax); });
  connect(quantity_box_, qOverload<int>(&QComboBox::activated), this,
          [this](int i) { setQuantity(i == 1 ? Quantity::kExcessLoss : Quantity::kTestLoss); });
  connect(plot_, &QCustomPlot::mousePress, this, &SampleEfficiencyView::onMousePress);
  connect(plot_, &QCustomPlot::mouseRelease, this, &SampleEfficiencyView::onMouseRelease);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { flush(); });
}

void SampleEfficiencyView::addPoint(const SampleEfficiencyPoint& point) {
  if (point.reference) references_.insert(point.model);
  if (!points_.count(point.model)) {
    // Legend in registry order whatever order the runs finish in; unknown models after, as added;
    // references last.
    const auto rank = [this](const QString& m) {
      if (references_.count(m)) return std::numeric_limits<int>::max();
      const int i = modelIndex(m.toStdString());
      return i >= 0 ? i : std::numeric_limits<int>::max() - 1;
    };
    const int r = rank(point.model);
    auto it =
        std::find_if(order_.begin(), order_.end(), [&](const QString& m) { return rank(m) > r; });
    order_.insert(it, point.model);
  }
  points_[point.model].push_back(point);
  if (!quantity_chosen_ && quantity_ == Quantity::kTestLoss && std::isfinite(point.bayes_floor)) {
    quantity_ = Quantity::kExcessLoss;  // the default where a floor exists
    const QSignalBlocker block(quantity_box_);
    quantity_box_->setCurrentIndex(1);
  }
  markDirty();
}

void SampleEfficiencyView::setQuantity(Quantity quantity) {
  quantity_ = quantity;
  quantity_chosen_ = true;
  const QSignalBlocker block(quantity_box_);
  quantity_box_->setCurrentIndex(quantity == Quantity::kExcessLoss ? 1 : 0);
  markDirty();
}

bool SampleEfficiencyView::hasFloor() const {
  for (const auto& [model, points] : points_)
    for (const auto& p : points)
      if (std::isfinite(p.bayes_floor)) return true;
  return false;
}

double SampleEfficiencyView::value(const SampleEfficiencyPoint& p) const {
  return quantity_ == Quantity::kExcessLoss ? p.test_loss - p.bayes_floor : p.test_loss;
}

bool SampleEfficiencyView::drawable(const SampleEfficiencyPoint& p) const {
  const double v = value(p);
  return p.size > 0 && std::isfinite(v) && v > 0;
}

void SampleEfficiencyView::setPoints(const QVector<SampleEfficiencyPoint>& points) {
  points_.clear();
  order_.clear();
  references_.clear();
  if (!quantity_chosen_) quantity_ = Quantity::kTestLoss;  // addPoint switches where floors exist
  for (const auto& p : points) addPoint(p);
  markDirty();
}

void SampleEfficiencyView::clear() { setPoints({}); }

int SampleEfficiencyView::pointCount() const {
  int n = 0;
  for (const auto& [model, points] : points_) n += static_cast<int>(points.size());
  return n;
}

void SampleEfficiencyView::setBand(Band band) {
  band_ = band;
  const QSignalBlocker block(band_box_);
  band_box_->setCurrentIndex(band == Band::kStdDev ? 1 : 0);
  markDirty();
}

void SampleEfficiencyView::setTitle(const QString& title) {
  title_ = title;
  if (plot_->plotLayout()->rowCount() > 1) {
    if (auto* text = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
      text->setText(title);
      markDirty();
      return;
    }
  }
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(
      0, 0, new QCPTextElement(plot_, title, QFont(font().family(), 10, QFont::Bold)));
  markDirty();
}

QStringList SampleEfficiencyView::models() const { return order_; }

SampleEfficiencyView::ModelCurve SampleEfficiencyView::curve(const QString& model) const {
  ModelCurve c;
  c.model = model;
  const auto it = points_.find(model);
  if (it == points_.end()) return c;
  std::map<double, std::vector<double>> by_size;
  std::vector<PowerLawPoint> points;
  for (const auto& p : it->second) {
    if (!drawable(p)) continue;
    by_size[p.size].push_back(value(p));
    points.push_back({p.size, static_cast<uint64_t>(p.seed), value(p)});
  }
  for (const auto& [n, losses] : by_size) {
    double sum = 0;
    for (double v : losses) sum += v;
    const double mean = sum / static_cast<double>(losses.size());
    double low, high;
    if (band_ == Band::kMinMax) {
      low = *std::min_element(losses.begin(), losses.end());
      high = *std::max_element(losses.begin(), losses.end());
    } else {
      double ss = 0;
      for (double v : losses) ss += (v - mean) * (v - mean);
      const double sd =
          losses.size() > 1 ? std::sqrt(ss / static_cast<double>(losses.size() - 1)) : 0;
      low = std::max(mean - sd, mean * 1e-3);  // the log axis cannot show <= 0
      high = mean + sd;
    }
    c.sizes.push_back(n);
    c.mean.push_back(mean);
    c.low.push_back(low);
    c.high.push_back(high);
    c.seeds.push_back(static_cast<int>(losses.size()));
  }
  // The engine's own fit, the one fitSweep writes to sweep.json (per seed); nothing fitted here.
  c.fit = fitPowerLawPerSeed(points);
  c.fit.model = model.toStdString();
  return c;
}

void SampleEfficiencyView::markDirty() { repaint_.markDirty(); }

void SampleEfficiencyView::flush() {
  repaint_.markDirty();
  repaint_.flush();
}

void SampleEfficiencyView::redraw() {
  plot_->clearGraphs();
  plot_->legend->clearItems();
  double x_min = std::numeric_limits<double>::max(), x_max = 0;
  double y_min = std::numeric_limits<double>::max(), y_max = 0;
  int runs = 0, reference_index = 0;
  for (const auto& model : order_) {
    const ModelCurve c = curve(model);
    const bool reference = isReference(model);
    // References: grey, one dash pattern each, no band and no fit.
    const Qt::PenStyle dashes[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    const QColor color =
        reference ? QColor::fromHsv(0, 0, 70 + 35 * (reference_index % 4)) : modelColor(model);
    const Qt::PenStyle reference_dash = dashes[reference_index % 4];
    if (reference) ++reference_index;
    // Band: the high edge filled down to the low edge.
    auto* low = plot_->addGraph();
    auto* high = plot_->addGraph();
    QColor fill = color;
    fill.setAlpha(kBandAlpha);
    low->setPen(Qt::NoPen);
    high->setPen(Qt::NoPen);
    if (!reference) high->setBrush(fill);
    high->setChannelFillGraph(low);
    low->removeFromLegend();
    high->removeFromLegend();
    low->setData(QVector<double>(c.sizes.begin(), c.sizes.end()),
                 QVector<double>(c.low.begin(), c.low.end()), true);
    high->setData(QVector<double>(c.sizes.begin(), c.sizes.end()),
                  QVector<double>(c.high.begin(), c.high.end()), true);
    // Every seed's point, faint.
    auto* seeds = plot_->addGraph();
    QColor faint = color;
    faint.setAlpha(kSeedAlpha);
    seeds->setLineStyle(QCPGraph::lsNone);
    seeds->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, faint, faint, 4));
    seeds->removeFromLegend();
    for (const auto& p : points_.at(model)) {
      if (!reference) ++runs;
      if (!drawable(p)) continue;
      seeds->addData(p.size, value(p));
      x_min = std::min(x_min, p.size);
      x_max = std::max(x_max, p.size);
      y_min = std::min(y_min, value(p));
      y_max = std::max(y_max, value(p));
    }
    // The power-law fit, dashed, over the measured N.
    if (!reference && c.fit.seeds() > 0 && c.fit.a > 0 && !c.sizes.empty()) {
      auto* fit = plot_->addGraph();
      fit->setPen(QPen(color, 1.2, Qt::DashLine));
      fit->removeFromLegend();
      const double n0 = c.sizes.front(), n1 = c.sizes.back();
      for (int k = 0; k <= 16; ++k) {
        const double n = n0 * std::pow(n1 / n0, k / 16.0);
        fit->addData(n, c.fit.a * std::pow(n, -c.fit.b));
      }
    }
    // The mean line, in the legend with b and its 95% CI.
    auto* mean = plot_->addGraph();
    mean->setProperty("model", model);
    mean->setPen(reference ? QPen(color, 1.6, reference_dash) : QPen(color, 2));
    mean->setScatterStyle(
        QCPScatterStyle(reference ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssDisc, color,
                        color, reference ? 5 : 6));
    mean->setData(QVector<double>(c.sizes.begin(), c.sizes.end()),
                  QVector<double>(c.mean.begin(), c.mean.end()), true);
    QString name = model;
    if (reference) {
      name += tr("  (reference)");
    } else if (c.fit.seeds() >= 2) {
      name += QString("  b = %1 [%2, %3], %4 seeds")
                  .arg(fixed3(c.fit.b), fixed3(c.fit.b_low), fixed3(c.fit.b_high))
                  .arg(c.fit.seeds());
    } else if (c.fit.seeds() == 1) {
      name += QString("  b = %1 (1 seed, no interval)").arg(fixed3(c.fit.b));
    } else {
      name += tr("  (fit needs %1+ sizes in a seed)").arg(kPowerLawMinSizes);
    }
    mean->setName(name);
  }
  // N ticks at the measured sizes (16, 64, 256, …), plain numbers; powers of 10 past a dozen.
  std::vector<double> sizes;
  for (const auto& [model, points] : points_) {
    for (const auto& p : points) {
      if (drawable(p) && std::find(sizes.begin(), sizes.end(), p.size) == sizes.end())
        sizes.push_back(p.size);
    }
  }
  if (!sizes.empty() && sizes.size() <= 12) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (double n : sizes) ticker->addTick(n, QString::number(n, 'g', 7));
    plot_->xAxis->setTicker(ticker);
  } else {
    setLogAxis(plot_->xAxis, /*powers=*/true);
  }
  // With the raw loss, the mean Bayes floor as a dashed grey line over the measured N.
  double floor_sum = 0;
  int floors = 0;
  for (const auto& [model, points] : points_) {
    for (const auto& p : points) {
      if (std::isfinite(p.bayes_floor)) {
        floor_sum += p.bayes_floor;
        ++floors;
      }
    }
  }
  if (quantity_ == Quantity::kTestLoss && floors > 0 && x_max > 0 && floor_sum > 0) {
    auto* floor_line = plot_->addGraph();
    floor_line->setPen(QPen(QColor(110, 110, 110), 1.2, Qt::DashLine));
    floor_line->setName(tr("Bayes floor %1").arg(floor_sum / floors, 0, 'g', 3));
    floor_line->addData(x_min, floor_sum / floors);
    floor_line->addData(x_max, floor_sum / floors);
    y_min = std::min(y_min, floor_sum / floors);
  }
  if (x_max > 0) {
    plot_->xAxis->setRange(x_min / kLogPad, x_max * kLogPad);
    plot_->yAxis->setRange(y_min / kLogPad, y_max * kLogPad);
  }
  plot_->legend->setMaximumSize(QWIDGETSIZE_MAX, plot_->legend->minimumOuterSizeHint().height());
  const bool excess = quantity_ == Quantity::kExcessLoss;
  plot_->yAxis->setLabel(excess ? tr("excess test loss (test − Bayes floor)") : tr("test loss"));
  summary_label_->setText(runs == 0 ? tr("no runs yet")
                                    : tr("%1 run(s), %2 model(s); %3 ≈ a·N^−b fitted per "
                                         "seed, b with its 95% CI over the seeds")
                                          .arg(runs)
                                          .arg(order_.size())
                                          .arg(excess ? tr("excess") : tr("loss")));
  plot_->replot();
}

QString SampleEfficiencyView::legendText(const QString& model) const {
  for (int i = 0; i < plot_->legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i));
    if (item && item->plottable()->property("model").toString() == model)
      return item->plottable()->name();
  }
  return {};
}

int SampleEfficiencyView::meanGraphCount() const {
  int n = 0;
  for (int i = 0; i < plot_->graphCount(); ++i)
    n += plot_->graph(i)->property("model").isValid() ? 1 : 0;
  return n;
}

int SampleEfficiencyView::runAt(const QPoint& pixel, int radius) const {
  int best = -1;
  double best_d2 = static_cast<double>(radius) * radius;
  for (const auto& [model, points] : points_) {
    for (const auto& p : points) {
      if (!drawable(p)) continue;
      const double dx = plot_->xAxis->coordToPixel(p.size) - pixel.x();
      const double dy = plot_->yAxis->coordToPixel(value(p)) - pixel.y();
      if (dx * dx + dy * dy <= best_d2) {
        best_d2 = dx * dx + dy * dy;
        best = p.run_id;
      }
    }
  }
  return best;
}

QPoint SampleEfficiencyView::pixelOf(int run_id) const {
  for (const auto& [model, points] : points_) {
    for (const auto& p : points) {
      if (p.run_id == run_id && drawable(p)) {
        return QPoint(qRound(plot_->xAxis->coordToPixel(p.size)),
                      qRound(plot_->yAxis->coordToPixel(value(p))));
      }
    }
  }
  return {-1, -1};
}

void SampleEfficiencyView::onMousePress(QMouseEvent* event) {
  press_pos_ = event->position().toPoint();
}

void SampleEfficiencyView::onMouseRelease(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if ((pos - press_pos_).manhattanLength() > 3) return;  // a drag, not a click
  const int run = runAt(pos);
  if (run >= 0) emit pointClicked(run);
}

bool SampleEfficiencyView::saveImage(const QString& path, int width, int height, QString* error) {
  repaint_.flush();
  return savePlot(plot_, path, width, height, error);
}

}  // namespace rsalab
