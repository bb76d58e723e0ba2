// SPDX-License-Identifier: GPL-3.0-or-later
// GateView: what the recurrent gates and StarSaber's fixed-point layers do.
// - Top: the chosen sample's input sequence (one line per feature for series, the tokens as tick
//   labels for token tasks), its time axis matching the gate maps' rows.
// - Middle: LSTM i/f/o and GRU r/z gate activations, one map per layer × gate. The record holds
//   time step × unit; the maps are drawn transposed (rows = units, columns = time steps) so time
//   runs left to right under the input strip; hover labels name the input at that step. The
//   candidate activations (LSTM g, GRU n) are not gates and are left out.
// - Bottom: StarSaber α per layer and its fixed-point residual ‖h^{l+1} − h^l‖ / ‖h^l‖ over
// training
//   steps (log-scale right axis), from the snapshot history.
// Parts the record has nothing for are hidden, with a caption saying so.
#pragma once

#include <QString>
#include <QWidget>
#include <map>

#include "engine/core/io/inspection.h"
#include "widgets/repaint_throttle.h"
#include "widgets/sample_input.h"

class QCustomPlot;
class QCPGraph;
class QLabel;

namespace rsalab {

class HeatMapGrid;

class GateView : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kRepaintIntervalMs = RepaintThrottle::kIntervalMs;

  explicit GateView(QWidget* parent = nullptr);

  // Gate maps and the input strip for one record.
  void setRecord(qint64 step, const InspectionRecord& record, const SampleInput& input,
                 const QString& run_label = {});
  // StarSaber curves: replaced from a run's history, or extended by one snapshot.
  void setHistory(const std::map<qint64, InspectionRecord>& records);
  void appendHistory(qint64 step, const InspectionRecord& record);
  void clear();

  HeatMapGrid* grid() const { return grid_; }
  QCustomPlot* inputPlot() const { return input_plot_; }
  QCustomPlot* fixedPointPlot() const { return fixed_point_plot_; }
  // α (residual=false) or residual curve of one StarSaber layer; nullptr if none.
  QCPGraph* fixedPointGraph(int layer, bool residual) const;
  QString caption() const;
  void flush();  // draw pending changes now (tests, grabs)

 private:
  void setInput(const SampleInput& input);
  void addFixedPoint(qint64 step, const InspectionRecord& record);
  void redrawFixedPoint();

  QLabel* caption_ = nullptr;
  QCustomPlot* input_plot_ = nullptr;
  HeatMapGrid* grid_ = nullptr;
  QCustomPlot* fixed_point_plot_ = nullptr;
  std::map<std::pair<int, bool>, QCPGraph*> fixed_point_graphs_;
  RepaintThrottle repaint_{this, [this] { redrawFixedPoint(); }};
};

}  // namespace rsalab
