// RemParameterView: how an RSA run's REM parameters move during training. One graph per REM head
// and quantity over the training step: λ (regular heads), γ and θ (cyclical heads) and σ(µ), the
// gate between softmax attention and the REM (every REM head). θ is in radians on the right axis;
// λ, γ and σ(µ) share the left axis. The task's ground truth (when known) is drawn as dashed
// horizontal lines, so one sees whether λ, γ, θ converge to the true poles.
//
// Data come from inspection records (SnapshotHistory): setRecords() rebuilds from a run's history,
// append() adds one snapshot as it arrives. Appends only mark the view dirty; one ~40 ms timer
// redraws (house style item 6).
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>
#include <map>
#include <tuple>
#include <vector>

#include "engine/inspection.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;

namespace rsalab {

class RemParameterView : public QWidget {
  Q_OBJECT

 public:
  enum class Quantity { kLambda, kGamma, kTheta, kGate };
  static constexpr int kRepaintIntervalMs = 40;

  explicit RemParameterView(QWidget* parent = nullptr);

  void append(qint64 step, const InspectionRecord& record);
  void setRecords(const std::map<qint64, InspectionRecord>& records);  // replaces everything
  void clear();
  // Dashed reference lines; empty vectors remove them.
  void setGroundTruth(const std::vector<double>& lambdas, const std::vector<double>& gammas,
                      const std::vector<double>& thetas);
  int groundTruthLineCount() const { return static_cast<int>(truth_lines_.size()); }

  // The graph of one head's quantity, nullptr when that head never had it.
  QCPGraph* graph(int layer, int head, Quantity quantity) const;
  int graphCount() const { return static_cast<int>(graphs_.size()); }
  static QString quantityName(Quantity quantity);
  void flush();  // redraw pending changes now (tests, grabs)

 private:
  using Key = std::tuple<int, int, Quantity>;
  QCPGraph* ensureGraph(int layer, int head, Quantity quantity);
  void addPoint(int layer, int head, Quantity quantity, double step, double value);
  void addTruthLine(double value, Quantity quantity, const QString& label);
  void redraw();

  QCustomPlot* plot_ = nullptr;
  QTimer repaint_timer_;
  std::map<Key, QCPGraph*> graphs_;
  std::vector<QCPItemStraightLine*> truth_lines_;
  bool dirty_ = false;
};

}  // namespace rsalab
