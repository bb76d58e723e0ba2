// SPDX-License-Identifier: GPL-3.0-or-later
// AttentionView: the attention maps of one inspection record, for a chosen input sample.
//
// What each model shows (rows × columns of the small-multiples grid):
// - RSA: one row per layer × head, three panels per head — the content softmax part, the REM part
//   P_h, and their gated mix (1 − σ(µ))·softmax + σ(µ)·P, the gate σ(µ) in the caption; heads
//   without a REM show their softmax weights in the first panel only.
// - Linear attention: layers × heads of its implied normalised φ(Q)φ(K)ᵀ matrix (row i is
//   φ(q_i)ᵀφ(k_j) / Σ_j φ(q_i)ᵀφ(k_j), what the linear form computes without materialising it).
// - Encoder–decoder: encoder self-attention, decoder self-attention and cross-attention (target ×
//   source) per layer × head, hover labels with the source/target tokens.
// - Softmax Transformer, StarSaber (α in the caption): layers × heads of the weights applied to V.
// - RetNet, Mamba-2: layers × heads of their implicit matrices (RetNet's normalised Q̃K̃ᵀ ⊙ D,
//   Mamba-2's L ∘ (C Bᵀ) with Δ), the weights their parallel forms apply to V.
// The caption states the model's normalisation rule (its card's matrix_rule, model_card.h) and the
// colour rule. Colours: by default one range for all maps, diverging around 0 (blue < 0 < red)
// when any weight is negative (signed maps: RSA's cos/sin REMs, RetNet, Mamba-2), sequential
// otherwise; the scale box switches to |A| scaled from its min to its max within each map.
// Hover tooltips name the cell, the query/key positions with their tokens (or input values) and
// the value. The sample picker emits sampleChanged; the caller asks the worker for that sample.
#pragma once

#include <QString>
#include <QWidget>

#include "engine/core/io/inspection.h"
#include "widgets/sample_input.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace rsalab {

class HeatMapGrid;

class AttentionView : public QWidget {
  Q_OBJECT

 public:
  enum RsaPanel { kSoftmaxPanel, kRemPanel, kMixPanel, kRsaPanelCount };
  // The colour scale: the signed weights on one shared range, or |A| min–max within each map.
  enum class Scale { kSigned, kAbsoluteMinMax };

  explicit AttentionView(QWidget* parent = nullptr);

  // Shows `record` (taken at `step` on `input`'s sample). Keeps the picker's value.
  void setRecord(qint64 step, const InspectionRecord& record, const SampleInput& input,
                 const QString& run_label = {});
  void clear(const QString& message = {});
  HeatMapGrid* grid() const { return grid_; }
  QSpinBox* samplePicker() const { return picker_; }
  void setScale(Scale scale);  // redraws the shown record
  Scale scale() const;
  QString caption() const;
  int sample() const;

 signals:
  /// The user picked another validation sample; MainWindow asks the worker to inspect it.
  void sampleChanged(int sample);

 private:
  void showRsa(const InspectionRecord& record, const QStringList& positions);
  void showEncoderDecoder(const InspectionRecord& record, const SampleInput& input);
  void showLayersByHeads(const InspectionRecord& record, const QStringList& positions);
  void redraw();
  // `m` as drawn under the scale: itself, or |m|.
  Matrix drawn(const Matrix& m) const;

  QSpinBox* picker_ = nullptr;
  QComboBox* scale_box_ = nullptr;
  // The shown record, kept to redraw when the scale changes.
  qint64 step_ = 0;
  InspectionRecord record_;
  SampleInput input_;
  QString run_label_;
  QLabel* caption_ = nullptr;
  HeatMapGrid* grid_ = nullptr;
};

}  // namespace rsalab
