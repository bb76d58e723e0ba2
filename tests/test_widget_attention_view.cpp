// SPDX-License-Identifier: GPL-3.0-or-later
// AttentionView and GateView with hand-made inspection records: RSA heads get three panels (softmax
// part, REM, gated mix) holding the record's matrices and σ(µ) in the caption; linear attention is
// labelled as its implied φ(Q)φ(K)ᵀ matrix; the encoder–decoder's cross-attention carries token
// labels; the sample picker asks for another sample; the gate view shows the record's gate values
// beside the input and StarSaber's α / residual over steps. A signed implicit matrix (RetNet's)
// states its normalisation rule and a diverging scale, and the |A| option draws |A| min–max per
// map; the decay view reads RSA's λ and γ, a fixed γ and a per-token a_t as memory horizons
// beside the task's true decay.
#include <qcustomplot.h>

#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest>
#include <cmath>

#include "support/test_registry.h"
#include "widgets/attention_view.h"
#include "widgets/decay_view.h"
#include "widgets/gate_view.h"
#include "widgets/heat_map_grid.h"
#include "widgets/heat_map_view.h"

using namespace rsalab;

namespace {

Matrix filled(int64_t rows, int64_t cols, float start) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  for (int64_t i = 0; i < rows * cols; ++i) m.values.push_back(start + 0.01f * float(i));
  return m;
}

InspectionRecord rsaRecord() {
  InspectionRecord r;
  r.model = "rsa";
  r.sample = 2;
  LayerInspection layer;
  HeadInspection rem_head;
  rem_head.has_rem = true;
  rem_head.rem_kind = RemKind::Regular;
  rem_head.lambda = 0.8;
  rem_head.gate = 0.25;
  rem_head.softmax_part = filled(4, 4, 0.1f);
  rem_head.rem = filled(4, 4, 0.5f);
  rem_head.attention = filled(4, 4, 0.2f);
  HeadInspection plain;
  plain.attention = filled(4, 4, 0.3f);
  layer.heads = {rem_head, plain};
  r.layers = {layer};
  return r;
}

SampleInput seriesInput() {
  SampleInput in;
  in.sample = 2;
  in.sample_count = 10;
  in.features = 1;
  in.values = {0.5, -1.0, 2.0, 0.25};
  in.feature_names = {"x"};
  return in;
}

}  // namespace

class TestAttentionView : public QObject {
  Q_OBJECT
 private slots:
  void rsaHeadsShowThreePanelsWithTheRecordsMatrices() {
    AttentionView view;
    view.resize(800, 600);
    const InspectionRecord rec = rsaRecord();
    view.setRecord(40, rec, seriesInput(), "rsa seed 1");
    HeatMapGrid* grid = view.grid();
    QCOMPARE(grid->layerCount(), 2);  // one row per head
    QCOMPARE(grid->headCount(), int(AttentionView::kRsaPanelCount));
    const HeadInspection& h = rec.layers[0].heads[0];
    QVERIFY(grid->cellMatrix(0, AttentionView::kSoftmaxPanel).values == h.softmax_part.values);
    QVERIFY(grid->cellMatrix(0, AttentionView::kRemPanel).values == h.rem.values);
    QVERIFY(grid->cellMatrix(0, AttentionView::kMixPanel).values == h.attention.values);
    QVERIFY(grid->cellTitle(0, AttentionView::kMixPanel).contains("σ(µ)=0.25"));
    QVERIFY(grid->cellTitle(0, AttentionView::kRemPanel).contains("λ=0.8"));
    // The head without a REM: its softmax weights in the first panel, the others empty.
    QVERIFY(grid->cellMatrix(1, AttentionView::kSoftmaxPanel).values ==
            rec.layers[0].heads[1].attention.values);
    QVERIFY(grid->cellMatrix(1, AttentionView::kRemPanel).empty());
    QVERIFY(view.caption().contains("step 40"));
    QVERIFY(view.caption().contains("sample 2"));
    // Hover text: the head and panel, the positions with the input value there, the value.
    QCOMPARE(grid->tooltipFor(0, AttentionView::kRemPanel, 2, 1),
             QString("L0 H0 REM — row 2 (x=2), col 1 (x=-1): %1")
                 .arg(double(h.rem.at(2, 1)), 0, 'g', 6));
    view.show();
    grid->flush();
    QCOMPARE(view.samplePicker()->maximum(), 9);
    // A click enlarges a panel in its own view, which keeps the labels and follows new records.
    grid->enlarge(0, AttentionView::kRemPanel);
    HeatMapView* big = grid->enlargedView();
    QVERIFY(big && big->isVisible());
    QVERIFY(big->matrix().values == h.rem.values);
    QVERIFY(big->tooltipFor(2, 1).startsWith("row 2 (x=2), col 1 (x=-1)"));
    InspectionRecord later = rec;
    later.layers[0].heads[0].rem = filled(4, 4, 0.7f);
    view.setRecord(41, later, seriesInput());
    QVERIFY(big->matrix().values == later.layers[0].heads[0].rem.values);
  }
  void samplePickerAsksForTheSample() {
    AttentionView view;
    view.setRecord(1, rsaRecord(), seriesInput());
    QSignalSpy spy(&view, &AttentionView::sampleChanged);
    view.samplePicker()->setValue(7);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 7);
  }
  void linearAttentionIsLabelledAsItsImpliedMatrix() {
    InspectionRecord r;
    r.model = "linear";
    LayerInspection layer;
    HeadInspection h;
    h.attention = filled(3, 3, 0.1f);
    layer.heads = {h, h};
    r.layers = {layer, layer};
    AttentionView view;
    view.setRecord(5, r, SampleInput{});
    QCOMPARE(view.grid()->layerCount(), 2);
    QCOMPARE(view.grid()->headCount(), 2);
    QVERIFY(view.grid()->cellTitle(1, 1).contains("φ(Q)φ(K)ᵀ"));
    QVERIFY(view.caption().contains("φ(Q)φ(K)ᵀ"));
  }
  void crossAttentionHasSourceAndTargetLabels() {
    InspectionRecord r;
    r.model = "encdec";
    LayerInspection enc;
    HeadInspection h;
    h.attention = filled(3, 3, 0.1f);
    enc.heads = {h};
    LayerInspection dec;
    HeadInspection dh;
    dh.attention = filled(2, 2, 0.1f);
    dec.heads = {dh};
    dec.cross_attention = {filled(2, 3, 0.4f)};
    r.layers = {enc};
    r.decoder_layers = {dec};
    SampleInput in;
    in.tokens = {"a", "b", "c"};
    in.target_tokens = {"<bos>", "c"};
    AttentionView view;
    view.setRecord(9, r, in);
    QCOMPARE(view.grid()->layerCount(), 3);  // encoder self, decoder self, decoder cross
    QVERIFY(view.grid()->cellMatrix(2, 0).values == dec.cross_attention[0].values);
    QCOMPARE(view.grid()->tooltipFor(2, 0, 1, 2),
             QString("dec L0 H0 cross — row 1 (c), col 2 (c): %1")
                 .arg(double(dec.cross_attention[0].at(1, 2)), 0, 'g', 6));
    QCOMPARE(view.grid()->tooltipFor(2, 0, 0, 0).section(':', 0, 0),
             QString("dec L0 H0 cross — row 0 (<bos>), col 0 (a)"));
  }
  void signedMatricesStateTheirRuleAndDiverge() {
    InspectionRecord r;
    r.model = "retnet";
    LayerInspection layer;
    HeadInspection h;
    h.attention = filled(3, 3, -0.04f);  // −0.04 … +0.04: signed
    h.decay = {0.96875f};
    layer.heads = {h};
    r.layers = {layer};
    AttentionView view;
    view.setRecord(4, r, SampleInput{});
    QVERIFY2(view.caption().contains("RetNet's normalisers"), qPrintable(view.caption()));
    QVERIFY(view.caption().contains("diverging around 0"));
    view.grid()->flush();
    QVERIFY(view.grid()->resolvedColorMode() == ColorMode::kDiverging);
    QVERIFY(view.grid()->sharedScale());
    QCOMPARE(view.grid()->colorValueLower(), -view.grid()->colorValueUpper());
    // |A|, min–max per map: the cell holds |A| and each map scales to its own range.
    view.setScale(AttentionView::Scale::kAbsoluteMinMax);
    QVERIFY(!view.grid()->sharedScale());
    QCOMPARE(view.grid()->cellMatrix(0, 0).values.front(), 0.04f);
    QVERIFY(view.caption().contains("|A|, from its min to its max"));
    // A softmax record stays sequential on one range.
    view.setScale(AttentionView::Scale::kSigned);
    r.model = "transformer";
    r.layers[0].heads[0].attention = filled(3, 3, 0.1f);
    view.setRecord(5, r, SampleInput{});
    QVERIFY(view.caption().contains("each row sums to 1"));
    QVERIFY(view.caption().contains("from the smallest weight to the largest"));
  }
  void decayViewReadsEveryDecayAsAHorizon() {
    InspectionRecord r = rsaRecord();  // head 0: regular REM λ = 0.8
    LayerInspection layer;
    HeadInspection fixed, token;
    fixed.decay = {0.96875f};                        // RetNet's γ_0 = 1 − 2^−5: horizon 32
    token.decay = {0.5f, 0.75f, 0.9f, 0.6f, 0.75f};  // Mamba-2's a_t over 5 tokens
    layer.heads = {fixed, token};
    r.layers.push_back(layer);
    DecayView view;
    GroundTruth truth;
    truth.components.push_back({RemKind::Regular, 0.8, 0.0});
    view.setGroundTruth(truth);
    view.setRecord(12, r, "mix run");
    QCOMPARE(view.decays().size(), size_t{3});  // head 1 of layer 0 has no decay
    QCOMPARE(view.table()->rowCount(), 3);
    QCOMPARE(view.table()->item(0, DecayView::kHorizon)->text(), QString("5"));  // 1/(1−0.8)
    QCOMPARE(view.table()->item(0, DecayView::kTruth)->text(), QString("true λ = 0.8"));
    QCOMPARE(view.table()->item(0, DecayView::kDelta)->text(), QString("0"));
    QCOMPARE(view.table()->item(1, DecayView::kHorizon)->text(), QString("32"));
    QCOMPARE(view.table()->item(1, DecayView::kHead)->text(), QString("L1 H0"));
    QCOMPARE(view.table()->item(2, DecayView::kHorizon)->text(), QString("4"));  // median 0.75
    QVERIFY(view.table()->item(2, DecayView::kSource)->text().contains("5 tokens"));
    QCOMPARE(view.truthLineCount(), 1);
    // One point per fixed decay, one box for the per-token decay.
    QCOMPARE(view.plot()->graph(0)->dataCount(), 2);
    auto* box = qobject_cast<QCPStatisticalBox*>(view.plot()->plottable(1));
    QVERIFY(box && box->dataCount() == 1);
    QVERIFY(std::fabs(box->data()->at(0)->median - 4.0) < 1e-9);
    QVERIFY(std::fabs(box->data()->at(0)->maximum - 10.0) < 1e-5);  // a = 0.9
    r.model = "lstm";
    r.layers.clear();
    view.setRecord(13, r);
    QVERIFY(view.caption().contains("no decaying heads"));
    QCOMPARE(view.table()->rowCount(), 0);
  }
  void recurrentModelHasNoAttention() {
    InspectionRecord r;
    r.model = "lstm";
    AttentionView view;
    view.setRecord(3, r, SampleInput{});
    QCOMPARE(view.grid()->layerCount(), 0);
    QVERIFY(view.caption().contains("no attention (its gates are in the Gates tab)"));
    r.model = "informer";  // attention, but no views of it yet: said so, not "no attention"
    view.setRecord(4, r, SampleInput{});
    QVERIFY(view.caption().contains("its attention is not recorded"));
    r.model = "dlinear";  // neither attention nor gates
    view.setRecord(5, r, SampleInput{});
    QVERIFY(view.caption().contains("no attention matrix"));
  }
  void gateViewShowsTheRecordsGatesBesideTheInput() {
    InspectionRecord r;
    r.model = "lstm";
    r.sample = 2;
    for (int64_t l = 0; l < 2; ++l) {
      int k = 0;
      for (const char* g : {"i", "f", "g", "o"})
        r.gates.push_back({l, g, filled(4, 3, 0.1f * float(++k + 4 * l))});
    }
    GateView view;
    view.resize(800, 700);
    view.setRecord(12, r, seriesInput());
    HeatMapGrid* grid = view.grid();
    QCOMPARE(grid->layerCount(), 2);
    QCOMPARE(grid->headCount(), 3);  // i, f, o; the candidate g is not a gate
    // Drawn unit × time (time left to right under the input): cell (u, t) is the record's (t, u).
    auto same = [&](int layer, int col, const GateTrace& g) {
      const Matrix& m = grid->cellMatrix(layer, col);
      if (m.rows != g.values.cols || m.cols != g.values.rows) return false;
      for (int64_t t = 0; t < g.values.rows; ++t)
        for (int64_t u = 0; u < g.values.cols; ++u)
          if (m.at(u, t) != g.values.at(t, u)) return false;
      return true;
    };
    QVERIFY(same(0, 0, r.gates[0]));  // L0 i
    QVERIFY(same(0, 2, r.gates[3]));  // L0 o
    QVERIFY(same(1, 1, r.gates[5]));  // L1 f
    QVERIFY(grid->cellTitle(1, 1).contains("forget"));
    QCOMPARE(grid->tooltipFor(0, 1, 0, 2).section(':', 0, 0),
             QString("L0 forget gate f — row 0, col 2 (x=2)"));
    // The input strip holds the sample's values at the gate maps' time steps.
    QCPGraph* input = view.inputPlot()->graph(0);
    QVERIFY(input);
    QCOMPARE(input->data()->size(), 4);
    QCOMPARE(input->data()->at(2)->value, 2.0);
    QVERIFY(view.caption().contains("sample 2"));
    view.show();
    view.flush();
  }
  void gateViewPlotsStarSaberAlphaAndResidualOverSteps() {
    std::map<qint64, InspectionRecord> history;
    for (int s = 0; s < 3; ++s) {
      InspectionRecord r;
      r.model = "starsaber";
      for (int l = 0; l < 2; ++l) {
        LayerInspection layer;
        layer.has_alpha = true;
        layer.alpha = 0.1 * (s + 1) + l;
        layer.residual = 0.5 / (s + 1) / (l + 1);
        r.layers.push_back(layer);
      }
      history[10 * (s + 1)] = r;
    }
    GateView view;
    view.setHistory(history);
    view.setRecord(30, history[30], SampleInput{});
    QCPGraph* alpha1 = view.fixedPointGraph(1, /*residual=*/false);
    QCPGraph* residual0 = view.fixedPointGraph(0, /*residual=*/true);
    QVERIFY(alpha1 && residual0);
    QCOMPARE(alpha1->data()->size(), 3);
    QCOMPARE(alpha1->data()->at(1)->key, 20.0);
    QCOMPARE(alpha1->data()->at(1)->value, history[20].layers[1].alpha);
    QCOMPARE(residual0->data()->at(2)->value, history[30].layers[0].residual);
    QCOMPARE(view.grid()->layerCount(), 0);  // no gates
    view.appendHistory(40, history[30]);
    QCOMPARE(alpha1->data()->size(), 4);
  }
};

RSALAB_REGISTER_TEST(TestAttentionView, QTEST_MAIN)
#include "test_widget_attention_view.moc"
