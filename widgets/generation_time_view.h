// SPDX-License-Identifier: GPL-3.0-or-later
// GenerationTimeView: the "linear attention is an RNN" claim, drawn as it is measured
// (engine/core/verdicts/generation_claim.h). Time per generated token against the position T (log₂
// x), one curve per method with its quartiles as error bars, and the state each keeps (floats,
// right log axis, dashed); above it the parallel == recurrent check and the verdicts. Plain data
// in; the measuring happens elsewhere (app/gui/preset_controller.cpp runs
// engine/training/generation_probe.h).
#pragma once

#include <QWidget>

#include "engine/core/verdicts/generation_claim.h"

class QCustomPlot;
class QCPGraph;
class QCPErrorBars;
class QLabel;
class QPushButton;

namespace rsalab {

class GenerationTimeView : public QWidget {
  Q_OBJECT

 public:
  explicit GenerationTimeView(QWidget* parent = nullptr);

  // A new measurement begins: clears the curves; `model` says what is measured.
  void begin(const QString& model);
  // One point of the curve of the attention kind named `kind` (attentionKindName: "linear" or
  // "softmax"), as it is measured.
  void addPoint(const QString& kind, const GenerationPoint& point);
  // The whole measurement: curves, check and verdicts (linearAttentionRnnVerdicts).
  void setProbe(const LinearAttentionRnnProbe& probe);
  void setRunning(bool running);
  void setMessage(const QString& text);  // e.g. an error

  const LinearAttentionRnnProbe& probe() const { return probe_; }
  QString text() const;  // the label above the plot
  QCustomPlot* plot() const { return plot_; }

 signals:
  void measureRequested();

 private:
  struct Curve {
    QCPGraph* time = nullptr;
    QCPErrorBars* spread = nullptr;
    QCPGraph* state = nullptr;
  };
  Curve makeCurve(const QString& name, const QColor& colour);
  void redraw();

  QCustomPlot* plot_ = nullptr;
  QLabel* label_ = nullptr;
  QPushButton* measure_ = nullptr;
  Curve linear_, softmax_;
  LinearAttentionRnnProbe probe_;
  QString header_;
};

}  // namespace rsalab
