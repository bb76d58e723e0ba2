// SPDX-License-Identifier: GPL-3.0-or-later
// SampleEfficiencyView: test loss against training-set size N, log–log, one line per model (mean
// over seeds, with a min–max or ±1 sd band), each seed's point drawn faintly, and the power-law
// fit loss ≈ a·N^(−b) dashed, with b and its 95% CI over the seeds in the legend. The fit is the
// engine's, not the view's: fitPowerLawPerSeed (engine/core/forecast/power_law.h), the per-seed
// fit fitSweep writes to sweep.json, on the quantity drawn (the excess loss where the task has a
// floor); with fewer than kPowerLawMinSizes sizes in every seed there is none. Points arrive one by
// one (addPoint) as sweep runs finish; like every view here it only marks itself dirty and redraws
// from one ~40 ms timer. Interaction: wheel zoom, drag pan, double-click fits; a click on a point
// emits pointClicked with that run's id. Input is plain data (no LibTorch). The y axis is the test
// loss or, where the task knows its Bayes floor, the excess loss (test loss − floor): the default
// once a point with a floor arrives, so the power law fits what is learned rather than the noise
// the floor says no model can remove. With the raw loss, the mean floor is drawn as a dashed grey
// line. The legend sits outside the plot, to its right.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "engine/core/forecast/power_law.h"
#include "widgets/repaint_throttle.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace rsalab {

struct SampleEfficiencyPoint {
  QString model;
  double size = 0;  // training-set size N
  quint64 seed = 0;
  double test_loss = 0;  // drawn only when finite and > 0 (log axis)
  int run_id = -1;       // handed back by pointClicked
  // A reference (a baseline such as persistence or AR(p) at this N, SweepRow::reference): drawn
  // as a grey dashed curve without band or fit, after the models.
  bool reference = false;
  double bayes_floor = std::numeric_limits<double>::quiet_NaN();  // NaN: the task has none
};

class SampleEfficiencyView : public QWidget {
  Q_OBJECT
 public:
  enum class Band { kMinMax, kStdDev };
  enum class Quantity { kTestLoss, kExcessLoss };
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;

  // What is drawn for one model: per N (ascending) the mean over seeds and the band's edges.
  struct ModelCurve {
    QString model;
    std::vector<double> sizes, mean, low, high;
    std::vector<int> seeds;  // points averaged at each N
    PowerLawFit fit;         // fitPowerLawPerSeed of the points drawn, as fitSweep fits
  };

  explicit SampleEfficiencyView(QWidget* parent = nullptr);

  void addPoint(const SampleEfficiencyPoint& point);
  void setPoints(const QVector<SampleEfficiencyPoint>& points);
  void clear();
  int pointCount() const;

  void setBand(Band band);
  Band band() const { return band_; }
  // The y quantity; choosing one stops the automatic switch to excess loss.
  void setQuantity(Quantity quantity);
  Quantity quantity() const { return quantity_; }
  bool hasFloor() const;                // some point carries a finite Bayes floor
  void setTitle(const QString& title);  // shown above the plot (e.g. task and budget)
  QString title() const { return title_; }

  QStringList models() const;  // in the order they first appeared
  bool isReference(const QString& model) const { return references_.count(model) > 0; }
  ModelCurve curve(const QString& model) const;

  void flush();  // redraw pending points now (tests, grabs)
  // After a redraw: the legend entry of a model's mean line ("rsa  b = 0.205 [0.135, 0.275], 3
  // seeds"),
  // read back from the plot; empty if the model has no line.
  QString legendText(const QString& model) const;
  int meanGraphCount() const;  // mean lines on the plot (one per model with points)
  // Run id of the point nearest to `pixel` (plot widget coordinates) within `radius` px, or -1.
  int runAt(const QPoint& pixel, int radius = 8) const;
  QPoint pixelOf(int run_id) const;  // where a run's point is drawn (tests); (-1,-1) if none
  QCustomPlot* plot() const { return plot_; }
  // PNG / SVG / PDF by suffix, at width × height (0: current size); see widgets/plot_export.h.
  bool saveImage(const QString& path, int width = 0, int height = 0, QString* error = nullptr);

 signals:
  /// A point was clicked; MainWindow opens that run's curves and inspector.
  void pointClicked(int run_id);

 private:
  void markDirty();
  void redraw();
  void onMousePress(QMouseEvent* event);
  void onMouseRelease(QMouseEvent* event);
  double value(const SampleEfficiencyPoint& p) const;  // the y quantity of a point
  bool drawable(const SampleEfficiencyPoint& p) const;

  QCustomPlot* plot_ = nullptr;
  QString title_;  // setTitle's
  QComboBox* band_box_ = nullptr;
  QComboBox* quantity_box_ = nullptr;
  QLabel* summary_label_ = nullptr;
  std::map<QString, std::vector<SampleEfficiencyPoint>> points_;  // by model
  QStringList order_;
  std::set<QString> references_;  // models whose points are references
  Band band_ = Band::kMinMax;
  Quantity quantity_ = Quantity::kTestLoss;
  bool quantity_chosen_ = false;  // by the user or setQuantity: no automatic switch
  QPoint press_pos_;
  RepaintThrottle repaint_{this, [this] { redraw(); }};
};

}  // namespace rsalab
