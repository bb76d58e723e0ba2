// SPDX-License-Identifier: GPL-3.0-or-later
// Numbers that must not flatter a model: MLM is scored on corrupted validation/test inputs,
// padded batches give the same outputs at real tokens as each sequence alone (key-padding mask
// in every attention), and StarSaber scales its scores the way its seed does (1/√D) and reports
// no α in its gated variant.
#include <cmath>

#include "engine/models/model_factory.h"
#include "engine/models/starsaber.h"
#include "engine/tasks/task.h"
#include "engine/tasks/text_tasks.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

TaskOptions mlmTask() {
  TaskOptions o;
  o.name = "mlm";
  o.length = 64;
  o.validation_size = 256;
  o.test_size = 512;
  return o;
}

}  // namespace

class TestScoringRules : public QObject {
  Q_OBJECT
 private slots:
  // A "model" that copies its input: it restores only the positions that were not redrawn (and
  // the 1/V of redrawn ones whose redraw kept the token). Scored on the redrawn positions it gets
  // about 1/V; over all positions about 1 − p + p/V — never 1, as it did on clean inputs.
  void copyingTheInputScoresChanceOnCorruptedPositions() {
    const auto data = makeTask(mlmTask(), 16, 3);
    const int64_t V = data.io.vocab;
    const double p = kMlmProbability;
    for (const DataSplit* split : {&data.validation, &data.test}) {
      QVERIFY(split->corrupted.defined());
      QVERIFY(split->corrupted.sizes() == split->x.sizes());
      const auto copy = torch::one_hot(split->x, V).to(torch::kFloat64);  // (N, T, V) logits
      const auto hits = tokenHits(copy, split->y, split->corrupted);
      const double redrawn = hits.count_scored / hits.count;
      qInfo("V = %lld: redrawn %.4f, copy accuracy on redrawn %.4f (1/V = %.4f), on all %.4f",
            static_cast<long long>(V), redrawn, hits.scoredOnly(), 1.0 / V, hits.all());
      QVERIFY(std::abs(redrawn - p) < 0.01);
      QVERIFY(std::abs(hits.scoredOnly() - 1.0 / V) < 0.01);
      QVERIFY(std::abs(hits.all() - (1 - p + p / V)) < 0.015);
    }
    // Fixed per split: the same seed gives the same corruption whatever the training size,
    // and validation and test are corrupted with different streams.
    const auto again = makeTask(mlmTask(), 64, 3);
    QVERIFY(torch::equal(again.test.x, data.test.x));
    QVERIFY(torch::equal(again.validation.corrupted, data.validation.corrupted));
    QVERIFY(!torch::equal(data.validation.corrupted.narrow(0, 0, 256),
                          data.test.corrupted.narrow(0, 0, 256)));
  }

  // The trainer reports both accuracies for MLM: "accuracy" on the redrawn positions,
  // "accuracy_all" on every position; plain language models keep "accuracy" only.
  void trainerReportsBothMlmAccuracies() {
    RunConfig c;
    c.task = mlmTask();
    c.task.validation_size = 16;
    c.task.test_size = 16;
    c.model.model = "starsaber";
    c.model.d_model = 16;
    c.model.layers = 1;
    c.train_size = 16;
    Trainer trainer(c);
    const auto m = trainer.evaluate("test");
    QVERIFY(m.values.count("accuracy") && m.values.count("accuracy_all"));
    QVERIFY(m.values.at("accuracy") >= 0 && m.values.at("accuracy") <= 1);
    c.task.name = "charlm";
    Trainer lm(c);
    QVERIFY(!lm.evaluate("test").values.count("accuracy_all"));
  }

  // G = softmax(h_nᵀ W h_i / √D) with D the hidden size (the seed: "d here is the hidden size").
  void starSaberScalesScoresByTheHiddenSize() {
    torch::manual_seed(2);
    const int64_t D = 16, H = 4, T = 6;
    StarSaberLayerImpl layer(D, H, /*causal=*/false, /*gated=*/false);
    layer.to(torch::kFloat64);
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    auto h = torch::randn({1, T, D}, f64), x = torch::randn({1, T, D}, f64);
    LayerInspection record;
    torch::NoGradGuard no_grad;
    layer.forward(h, x, {}, LayerObserver(&record, 0));
    const auto W = layer.named_parameters()["W.weight"];
    auto split = [&](const torch::Tensor& t) { return t.view({1, T, H, D / H}).transpose(1, 2); };
    auto scores = torch::matmul(split(h.matmul(W.t())), split(h).transpose(-2, -1));
    auto G = torch::softmax(scores / std::sqrt(static_cast<double>(D)), -1);  // (1, H, T, T)
    QCOMPARE(record.heads.size(), static_cast<size_t>(H));
    for (int64_t k = 0; k < H; ++k) {
      const auto& m = record.heads[static_cast<size_t>(k)].attention;
      auto got = torch::tensor(m.values, torch::kFloat32).view({T, T});
      QVERIFY(test::checkClose(got, G[0][k], 1e-5, "head " + std::to_string(k)));
    }
    QVERIFY(record.has_alpha);
    QCOMPARE(record.alpha, 1.0);
  }

  // The gated variant replaces α with the gate z: it has no α parameter, reports none, and every
  // parameter it has takes part in the output.
  void gatedStarSaberHasNoAlpha() {
    torch::manual_seed(3);
    StarSaberLayerImpl layer(16, 4, /*causal=*/false, /*gated=*/true);
    for (const auto& p : layer.named_parameters()) QVERIFY(p.key() != "alpha");
    auto h = torch::randn({2, 5, 16}), x = torch::randn({2, 5, 16});
    LayerInspection record;
    layer.forward(h, x, {}, LayerObserver(&record, 0)).pow(2).sum().backward();
    QVERIFY(!record.has_alpha);
    for (const auto& p : layer.named_parameters()) {
      QVERIFY2(p.value().grad().defined() && p.value().grad().abs().sum().item<double>() > 0,
               p.key().c_str());
    }
  }

  // Right-padded token batches (the regular-language tasks): outputs at real positions, and
  // the pooled outputs, equal those of each sequence run alone, for every attention model,
  // causal and bidirectional.
  void paddingDoesNotChangeRealPositions_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("cumulative");
    for (const char* m : {"transformer", "rsa", "linear", "starsaber"}) {
      for (bool causal : {false, true}) {
        const QString name = QString("%1 %2").arg(m, causal ? "causal" : "bidirectional");
        QTest::newRow(qPrintable(name)) << QString(m) << causal << true;
        if (QString(m) == "linear" && causal)
          QTest::newRow(qPrintable(name + " parallel")) << QString(m) << causal << false;
      }
    }
  }
  void paddingDoesNotChangeRealPositions() {
    QFETCH(QString, model);
    QFETCH(bool, causal);
    QFETCH(bool, cumulative);
    const int64_t pad = 4, T = 12;
    const std::vector<int64_t> lengths = {5, 12, 3, 9};
    for (bool pooled : {false, true}) {
      ModelOptions o;
      o.model = model.toStdString();
      o.d_model = 16;
      o.heads = 4;
      o.layers = 2;
      o.causal = causal;
      o.linear_cumulative = cumulative;
      ModelIO io;
      io.vocab = 5;
      io.pad_token = pad;
      io.output_dim = 3;
      io.pooled = pooled;
      torch::manual_seed(11);
      auto net = makeSequenceModel(o, io);
      net->to(torch::kFloat64);
      net->eval();
      torch::NoGradGuard no_grad;
      const auto B = static_cast<int64_t>(lengths.size());
      auto x = torch::full({B, T}, pad, torch::kInt64);
      for (int64_t b = 0; b < B; ++b)
        x[b].narrow(0, 0, lengths[static_cast<size_t>(b)])
            .copy_(torch::randint(0, 4, {lengths[static_cast<size_t>(b)]}, torch::kInt64));
      const auto batched = net->forward(x);
      for (int64_t b = 0; b < B; ++b) {
        const int64_t n = lengths[static_cast<size_t>(b)];
        const auto alone = net->forward(x[b].narrow(0, 0, n).unsqueeze(0))[0];
        const auto got = pooled ? batched[b] : batched[b].narrow(0, 0, n);
        const std::string what = model.toStdString() + (pooled ? " pooled" : " per position") +
                                 ", sequence " + std::to_string(b);
        QVERIFY2(test::checkClose(got, alone, 1e-6, what), what.c_str());
      }
    }
  }
};

RSALAB_TEST_MAIN(TestScoringRules)
#include "test_scoring_rules.moc"
