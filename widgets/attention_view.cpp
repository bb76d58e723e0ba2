// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/attention_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/core/registry/model_registry.h"
#include "widgets/heat_map_grid.h"
#include "widgets/number_text.h"

namespace rsalab {

namespace {

QString remSummary(const HeadInspection& head) {
  QString s =
      head.rem_kind == RemKind::Regular
          ? QString("REM regular λ=%1").arg(numberText(head.lambda))
          : QString("REM %1 γ=%2 θ=%3")
                .arg(remKindName(head.rem_kind), numberText(head.gamma), numberText(head.theta));
  if (head.dilation > 1) s += QString(" d=%1").arg(head.dilation);
  return s;
}

// The record's model is a registry row whose attention is linear (its matrices are the implied
// normalised φ(Q)φ(K)ᵀ).
bool hasLinearAttention(const InspectionRecord& record) {
  const ModelCard* info = findModel(record.model);
  return info && info->attention == attentionKind("linear");
}

// Whether any drawn matrix of the record has a negative entry (the shared scale then diverges).
bool anyNegative(const InspectionRecord& record) {
  const auto negative = [](const Matrix& m) {
    return std::any_of(m.values.begin(), m.values.end(), [](float v) { return v < 0; });
  };
  for (const auto* layers : {&record.layers, &record.decoder_layers}) {
    for (const auto& layer : *layers) {
      for (const auto& h : layer.heads)
        if (negative(h.attention) || negative(h.softmax_part) || negative(h.rem)) return true;
      for (const auto& m : layer.cross_attention)
        if (negative(m)) return true;
    }
  }
  return false;
}

bool hasRem(const InspectionRecord& record) {
  for (const auto& layer : record.layers)
    for (const auto& head : layer.heads)
      if (head.has_rem) return true;
  return false;
}

int maxHeads(const std::vector<LayerInspection>& layers) {
  size_t n = 0;
  for (const auto& l : layers) n = std::max({n, l.heads.size(), l.cross_attention.size()});
  return static_cast<int>(n);
}

}  // namespace

AttentionView::AttentionView(QWidget* parent) : QWidget(parent) {
  picker_ = new QSpinBox(this);
  picker_->setRange(0, 0);
  picker_->setPrefix("sample ");
  picker_->setToolTip(tr("Validation sample whose attention is shown"));
  picker_->setKeyboardTracking(false);
  scale_box_ = new QComboBox(this);
  scale_box_->setObjectName("AttentionScale");
  scale_box_->addItem(tr("signed, one range"));
  scale_box_->addItem(tr("|A|, min–max per map"));
  scale_box_->setToolTip(
      tr("Colours: the signed weights on one range for every map (diverging around 0 when any "
         "weight is negative), or |A| scaled from its min to its max within each map"));
  caption_ = new QLabel(tr("Start training to see the attention maps of the selected run."), this);
  caption_->setWordWrap(true);
  grid_ = new HeatMapGrid(this);
  grid_->setEnlargeOnClick(true);
  auto* top = new QHBoxLayout;
  top->addWidget(picker_);
  top->addWidget(scale_box_);
  top->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(caption_);  // the whole width: the rules take two or three lines
  layout->addWidget(grid_, 1);
  connect(picker_, qOverload<int>(&QSpinBox::valueChanged), this, &AttentionView::sampleChanged);
  connect(scale_box_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] { redraw(); });
}

void AttentionView::setScale(Scale scale) {
  scale_box_->setCurrentIndex(scale == Scale::kAbsoluteMinMax ? 1 : 0);  // redraws
}

AttentionView::Scale AttentionView::scale() const {
  return scale_box_->currentIndex() == 1 ? Scale::kAbsoluteMinMax : Scale::kSigned;
}

Matrix AttentionView::drawn(const Matrix& m) const {
  if (scale() == Scale::kSigned) return m;
  Matrix a = m;
  for (float& v : a.values) v = std::fabs(v);
  return a;
}

int AttentionView::sample() const { return picker_->value(); }
QString AttentionView::caption() const { return caption_->text(); }

void AttentionView::clear(const QString& message) {
  grid_->setGridSize(0, 0);
  caption_->setText(message.isEmpty() ? tr("No attention record.") : message);
}

void AttentionView::setRecord(qint64 step, const InspectionRecord& record, const SampleInput& input,
                              const QString& run_label) {
  if (input.sample_count > 0) {
    const QSignalBlocker block(picker_);
    picker_->setMaximum(input.sample_count - 1);
  }
  step_ = step;
  record_ = record;
  input_ = input;
  run_label_ = run_label;
  redraw();
}

void AttentionView::redraw() {
  const InspectionRecord& record = record_;
  const QString where =
      QString("%1 at step %2, validation sample %3")
          .arg(run_label_.isEmpty() ? QString::fromStdString(record.model) : run_label_)
          .arg(step_)
          .arg(record.sample);
  if (record.layers.empty()) {
    const ModelCard* card = findModel(record.model);
    if (card && card->has(LongHorizonOnly))  // Informer's views are not written yet
      clear(where + tr(": its attention is not recorded (the forecaster family has no views "
                       "yet; its runs, losses and forecasts are in the other panels)."));
    else if (card && card->family == ModelFamily::Recurrent)
      clear(where + tr(": this model has no attention (its gates are in the Gates tab)."));
    else
      clear(where + tr(": this model has no attention matrix."));
    return;
  }
  const bool absolute = scale() == Scale::kAbsoluteMinMax;
  grid_->setSharedScale(!absolute);
  grid_->setColorMode(absolute ? ColorMode::kSequential : ColorMode::kAuto);
  const QStringList positions = input_.positionLabels();
  QString what;
  if (!record.decoder_layers.empty()) {
    showEncoderDecoder(record, input_);
    what =
        tr("encoder self-, decoder self- and cross-attention (target × source) per layer × head");
  } else if (hasRem(record)) {
    showRsa(record, positions);
    what =
        tr("per layer × head: content softmax part | REM part | gated mix (1−σ(µ))·softmax + "
           "σ(µ)·REM");
  } else if (hasLinearAttention(record)) {
    showLayersByHeads(record, positions);
    what = tr("implied normalised φ(Q)φ(K)ᵀ matrix (row-normalised, φ = elu+1) per layer × head");
  } else {
    showLayersByHeads(record, positions);
    what = tr("the matrix applied to V (query × key) per layer × head");
  }
  QString rule;
  const ModelCard* card = findModel(record.model);
  if (const char* text = card ? card->matrix_rule : nullptr)
    rule = tr(" Matrix: %1.").arg(QString::fromUtf8(text));
  const QString colours =
      absolute ? tr(" Colours: |A|, from its min to its max within each map.")
      : anyNegative(record)
          ? tr(" Colours: signed, one range ±max|A| for all maps, diverging around 0 (blue < 0 < "
               "red).")
          : tr(" Colours: one range for all maps, from the smallest weight to the largest.");
  caption_->setText(where + ": " + what + "." + rule + colours);
}

void AttentionView::showRsa(const InspectionRecord& record, const QStringList& positions) {
  int rows = 0;
  for (const auto& layer : record.layers) rows += static_cast<int>(layer.heads.size());
  grid_->setGridSize(rows, kRsaPanelCount);
  int row = 0;
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& heads = record.layers[l].heads;
    for (size_t h = 0; h < heads.size(); ++h, ++row) {
      const HeadInspection& head = heads[h];
      const QString name = QString("L%1 H%2").arg(l).arg(h);
      if (!head.has_rem) {
        grid_->setCell(row, kSoftmaxPanel, drawn(head.attention), name + " softmax (no REM)",
                       positions, positions, name + " softmax");
        grid_->setCell(row, kRemPanel, Matrix{}, QString());
        grid_->setCell(row, kMixPanel, Matrix{}, QString());
        continue;
      }
      grid_->setCell(row, kSoftmaxPanel, drawn(head.softmax_part), name + " content softmax",
                     positions, positions, name + " softmax");
      grid_->setCell(row, kRemPanel, drawn(head.rem), name + " " + remSummary(head), positions,
                     positions, name + " REM");
      grid_->setCell(row, kMixPanel, drawn(head.attention),
                     name + QString(" mix σ(µ)=%1").arg(numberText(head.gate)), positions,
                     positions, name + " mix");
    }
  }
}

void AttentionView::showEncoderDecoder(const InspectionRecord& record, const SampleInput& input) {
  const QStringList source = input.tokens, target = input.target_tokens;
  const int enc = static_cast<int>(record.layers.size());
  const int dec = static_cast<int>(record.decoder_layers.size());
  grid_->setGridSize(enc + 2 * dec, std::max(1, std::max(maxHeads(record.layers),
                                                         maxHeads(record.decoder_layers))));
  for (int l = 0; l < enc; ++l) {
    const auto& heads = record.layers[size_t(l)].heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const QString name = QString("enc L%1 H%2").arg(l).arg(h);
      grid_->setCell(l, int(h), drawn(heads[h].attention), name + " self", source, source, name);
    }
  }
  for (int l = 0; l < dec; ++l) {
    const auto& layer = record.decoder_layers[size_t(l)];
    for (size_t h = 0; h < layer.heads.size(); ++h) {
      const QString name = QString("dec L%1 H%2 self").arg(l).arg(h);
      grid_->setCell(enc + 2 * l, int(h), drawn(layer.heads[h].attention), name, target, target,
                     name);
    }
    for (size_t h = 0; h < layer.cross_attention.size(); ++h) {
      const QString name = QString("dec L%1 H%2 cross").arg(l).arg(h);
      grid_->setCell(enc + 2 * l + 1, int(h), drawn(layer.cross_attention[h]),
                     name + " (target × source)", target, source, name);
    }
  }
}

void AttentionView::showLayersByHeads(const InspectionRecord& record,
                                      const QStringList& positions) {
  const bool linear = hasLinearAttention(record);
  grid_->setGridSize(static_cast<int>(record.layers.size()), maxHeads(record.layers));
  for (size_t l = 0; l < record.layers.size(); ++l) {
    const auto& layer = record.layers[l];
    for (size_t h = 0; h < layer.heads.size(); ++h) {
      const QString name = QString("L%1 H%2").arg(l).arg(h);
      QString title = name;
      if (linear) title += " φ(Q)φ(K)ᵀ norm.";
      if (layer.has_alpha) title += QString(" α=%1").arg(numberText(layer.alpha));
      grid_->setCell(int(l), int(h), drawn(layer.heads[h].attention), title, positions, positions,
                     name);
    }
  }
}

}  // namespace rsalab
