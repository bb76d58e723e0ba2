// SPDX-License-Identifier: GPL-3.0-or-later
// LossCurveView: training and validation curves of any number of runs, one colour per run.
//
// Data model: every appended point is kept (CurveSeries per run and curve); drawing uses at most
// two points per pixel column of the visible range (min/max decimation), so 10⁶ points draw as
// fast as 10³. Training curves are EMA-smoothed (slider 0..0.999) with the raw curve faint behind;
// validation curves are drawn as measured, dashed. Appends only mark the view dirty; one ~40 ms
// timer redraws (the GUI never waits on a redraw), so append at any rate from queued trainer
// signals. Interaction: wheel zoom, drag pan, double-click (or "Fit") fits everything and follows
// new data again; clicking a legend entry toggles that run.
//
// With a RunStore attached (setStore), a run's colour and visibility are the store's: the view
// reads them from the store's roles, follows its dataChanged, and a legend click or setRunVisible
// writes through the store's setData, so the runs table's box and the legend never disagree. Runs
// the store does not hold (or a view without a store, as in tests) keep their own.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <vector>

#include "engine/core/forecast/metrics.h"
#include "engine/core/session/run_id.h"
#include "widgets/curve_series.h"
#include "widgets/plot_export.h"
#include "widgets/reference_line.h"
#include "widgets/repaint_throttle.h"

class QCustomPlot;
class QCPGraph;
class QCPRange;
class QCPItemStraightLine;
class QCPItemText;
class QCPLegend;
class QCPAbstractLegendItem;
class QCheckBox;
class QComboBox;
class QLabel;
class QMouseEvent;
class QSlider;
class QModelIndex;

namespace rsalab {

class RunStore;

class LossCurveView : public QWidget {
  Q_OBJECT

 public:
  enum class Curve { kTrain, kValidation };
  enum class XAxisMode { kStep, kSamplesSeen };
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;

  explicit LossCurveView(QWidget* parent = nullptr);

  // The store whose runs' colour and visibility this view follows (nullptr: none). Not owned.
  void setStore(RunStore* store);

  // An invalid colour means the store's colour for the run, else runColor(run_id). Appending to an
  // unknown run adds it as "run N".
  void addRun(const RunId& run_id, const QString& name, const QColor& color = QColor());
  void removeRun(const RunId& run_id);
  bool hasRun(const RunId& run_id) const { return runs_.count(run_id) > 0; }
  std::vector<RunId> runIds() const;

  void append(const RunId& run_id, Curve curve, double step, double samples_seen, double loss);
  void appendTrain(const RunId& run_id, double step, double samples_seen, double loss) {
    append(run_id, Curve::kTrain, step, samples_seen, loss);
  }
  void appendValidation(const RunId& run_id, double step, double samples_seen, double loss) {
    append(run_id, Curve::kValidation, step, samples_seen, loss);
  }
  // Engine metrics as they arrive (live runs, bundles, sweeps): a training step at its step and
  // samples seen; a validation evaluation at its step and the samples seen when it ran (other
  // splits are left out). Points keep their x when the batch size changes later.
  void appendStep(const RunId& run_id, const StepMetrics& m) {
    append(run_id, Curve::kTrain, static_cast<double>(m.step), static_cast<double>(m.samples_seen),
           m.train_loss);
  }
  void appendEvaluation(const RunId& run_id, const EvalMetrics& e);
  // Every stored point of a curve (never decimated); nullptr for an unknown run.
  const CurveSeries* series(const RunId& run_id, Curve curve) const;

  void setXAxisMode(XAxisMode mode);
  XAxisMode xAxisMode() const { return x_mode_; }
  void setSmoothing(double alpha);  // EMA factor, clamped to [0, 0.999]
  double smoothing() const { return smoothing_; }
  void setLogY(bool log_y);
  bool logY() const { return log_y_; }
  void setRunVisible(const RunId& run_id, bool visible);
  bool isRunVisible(const RunId& run_id) const;

  // A labelled vertical line at a training step ("lr 3e-3 → 1e-3"), in the run's colour when
  // run_id names a run (hidden with it), grey otherwise. In samples-seen mode the step is placed
  // by the run's (or the first run's) step → samples mapping.
  void addMarker(double step, const QString& label, const RunId& run_id = RunId());
  int markerCount() const { return int(markers_.size()); }
  void clearMarkers();
  void clear();  // all runs and markers

  // A run's reference lines (its task's baselines on the validation split, the losses its
  // validation curve is read against); an empty list removes them. Lines equal in label and loss
  // across runs are drawn once, grey and dashed with their label above them, while one of
  // their runs is shown; the y range fitted to the data includes them.
  void setReferenceLines(const RunId& run_id, const std::vector<ReferenceLine>& lines);
  // Lines drawn at the last redraw (after de-duplication); their labels, top to bottom.
  QStringList drawnReferenceLabels() const;

  void setXRange(double lower, double upper);  // stops following new data, like a user zoom
  void fitAll();  // fit every visible point and follow new data again (also: double-click)
  void flush();   // redraw pending changes now (tests, grabs)

  // Points handed to QCustomPlot at the last redraw: over all graphs, or one curve's main graph
  // (smoothed training curve / validation curve).
  int drawnPointCount() const;
  int drawnPointCount(const RunId& run_id, Curve curve) const;
  int plotWidthPixels() const;  // width of the data area, the decimation's column count
  QCustomPlot* plot() const { return plot_; }
  // Every stored point (not the decimated drawing) per run and curve: step, samples_seen, loss
  // (+ smoothed for training); `visible_only`: shown runs, points inside the x range. For export.
  QVector<PlotDataTable> exportTables(bool visible_only) const;

 private:
  struct Run {
    QString name;
    QColor color;
    bool visible = true;
    CurveSeries train, validation;
    QCPGraph* train_raw = nullptr;         // faint, behind
    QCPGraph* train_smooth = nullptr;      // solid, in the legend
    QCPGraph* validation_graph = nullptr;  // dashed, in the legend once it has points
  };
  struct Marker {
    double step = 0;
    QString label;
    RunId run_id;
    QCPItemStraightLine* line = nullptr;
    QCPItemText* text = nullptr;
  };

  Run& ensureRun(const RunId& run_id);
  void applyColor(Run& run);              // the run's pens from run.color
  void showRun(Run& run, bool visible);   // the view's own state; no write to the store
  void followStore(const RunId& run_id);  // take the store's colour and visibility for a run
  void followStoreRows(const QModelIndex& first, const QModelIndex& last, const QList<int>& roles);
  std::vector<ReferenceLine> visibleReferences() const;  // de-duplicated, by falling loss
  void drawReferences();                                 // (loss_curve_references.cpp)
  const std::vector<double>& xs(const CurveSeries& s) const;
  double markerX(const Marker& m) const;  // NaN when it cannot be placed
  void markDirty();
  void redraw();
  void setLogLabels();  // the log axis' number format for its current range
  void decimateAll(const QCPRange& x_range, int columns);  // graphs and markers
  void fitRanges();
  void updateLegendItem(const Run& run);
  void onRangeChanged();
  void onLegendClick(QCPLegend* legend, QCPAbstractLegendItem* item, QMouseEvent* event);

  QCustomPlot* plot_ = nullptr;
  QComboBox* x_mode_box_ = nullptr;
  QSlider* smoothing_slider_ = nullptr;
  QLabel* smoothing_label_ = nullptr;
  QCheckBox* log_box_ = nullptr;

  RunStore* store_ = nullptr;
  std::map<RunId, Run> runs_;
  std::vector<Marker> markers_;
  std::map<RunId, std::vector<ReferenceLine>> references_;  // by run
  std::vector<QCPItemStraightLine*> reference_lines_;       // drawn, with their labels
  std::vector<QCPItemText*> reference_texts_;
  XAxisMode x_mode_ = XAxisMode::kStep;
  double smoothing_ = 0.9;  // per-step losses are noisy; TensorBoard's 0.6 barely shows a trend
  bool log_y_ = false;
  bool follow_ = true;           // fit ranges to the data on every redraw until the user zooms
  bool setting_ranges_ = false;  // our own setRange calls are not user zooms
  RepaintThrottle repaint_{this, [this] { redraw(); }};
};

}  // namespace rsalab
