// SPDX-License-Identifier: GPL-3.0-or-later
// The model registry (engine/core/registry/model_registry.h) is the one model table: the factory,
// the option check, the sweep's defaults, the FLOP counts and `rsalab-cli models` all read it. Also
// the names of splits and stop reasons that the trainer and the sweep rows use.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/core/config/flops.h"
#include "engine/core/config/run_config.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/text.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/sweep/sweep_types.h"
#include "engine/models/mamba2.h"
#include "engine/models/model_factory.h"
#include "engine/models/transformer.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

ModelOptions smallOptions(const std::string& model) {
  ModelOptions o;
  o.model = model;
  o.d_model = 8;
  o.heads = 2;
  o.layers = 1;
  o.rem = defaultRemHeads(o.heads);
  return o;
}

ModelIO smallIo() {
  ModelIO io;
  io.input_dim = 3;
  io.output_dim = 2;
  return io;
}

// A series forecast: 2 steps of the 3 columns (what series-only models take).
ModelIO seriesIo() {
  ModelIO io = smallIo();
  io.output_dim = 6;
  return io;
}

// The error message of f(), empty when it does not throw.
template <typename F>
QString errorOf(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestModelRegistry : public QObject {
  Q_OBJECT
 private slots:
  // Every row builds through the factory's family switch; the seq2seq family is refused by
  // makeSequenceModel with a message that says what to use instead.
  void everyRowBuilds() {
    for (const auto& row : modelRegistry()) {
      const ModelOptions o = smallOptions(row.name);
      if (row.family == ModelFamily::Seq2Seq) {
        const QString message = errorOf([&] { makeSequenceModel(o, smallIo()); });
        QVERIFY2(message.contains("seq2seq"), qPrintable(message));
        QVERIFY(makeEncoderDecoder(o, 8, 8)->parameterCount() > 0);
        continue;
      }
      ModelOptions built = o;
      built.label_length = 3;  // the forecasters' start token: at most the 5 inputs
      SequenceModel model = makeSequenceModel(built, row.has(SeriesOnly) ? seriesIo() : smallIo());
      QVERIFY2(model->parameterCount() > 0, row.name);
      // The forecaster family reads each window's calendar marks (L + H = 5 + 2 rows).
      const auto marks = torch::stack(
          {torch::full({2, 7}, 7, torch::kInt64), torch::full({2, 7}, 15, torch::kInt64),
           torch::full({2, 7}, 2, torch::kInt64), torch::arange(7).repeat({2, 1})},
          2);
      QCOMPARE(model->readsMarks(), row.has(LongHorizonOnly));
      const auto forward = [&](InspectionRecord* record) {
        return row.has(LongHorizonOnly)
                   ? model->forwardMarked(torch::randn({2, 5, 3}), marks, record)
                   : model->forward(torch::randn({2, 5, 3}), record);
      };
      QCOMPARE(forward(nullptr).size(0), int64_t{2});
      // With a record: nothing breaks for models without attention or gates.
      InspectionRecord record;
      forward(&record);
      QCOMPARE(record.model, std::string(row.name));
    }
  }

  // Series-only models (the linear and forecaster families) forecast real-valued series: the
  // factory refuses token inputs, pooled outputs and outputs that are no H steps × the input's
  // columns, naming the model; the registry says which objectives every row trains on.
  void seriesOnlyModelsRefuseOtherTasks() {
    int series_only = 0;
    for (const auto& row : modelRegistry()) {
      QCOMPARE(row.has(SeriesOnly),
               row.family == ModelFamily::Linear || row.family == ModelFamily::Forecaster);
      QCOMPARE(row.has(LongHorizonOnly), row.family == ModelFamily::Forecaster);
      QVERIFY2(!row.has(SeriesOnly) || !row.has(DefaultLaunch), row.name);
      for (Objective objective : {Objective::Regression, Objective::Classification,
                                  Objective::LanguageModel, Objective::Seq2Seq}) {
        const bool seq2seq = objective == Objective::Seq2Seq;
        const bool fits =
            row.family == ModelFamily::Seq2Seq
                ? seq2seq
                : !seq2seq && (!row.has(SeriesOnly) || objective == Objective::Regression);
        QVERIFY2(modelFitsObjective(row, objective) == fits,
                 qPrintable(QString(row.name) + " / " +
                            QString::fromStdString(objectiveName(objective))));
      }
      if (!row.has(SeriesOnly)) continue;
      ++series_only;
      ModelIO tokens = seriesIo(), pooled = seriesIo();
      tokens.vocab = 10;
      pooled.pooled = true;
      for (const ModelIO& io : {smallIo(), tokens, pooled}) {
        const QString message = errorOf([&] { makeSequenceModel(smallOptions(row.name), io); });
        QVERIFY2(message.startsWith(QString(row.name) + " needs real inputs") &&
                     message.contains("(a series task)"),
                 qPrintable(message));
      }
    }
    QCOMPARE(series_only, 4);  // dlinear, nlinear, informer, rsa-informer
  }

  // The attention family's transformer uses the attention kind of its registry row.
  void attentionKindComesFromTheRow() {
    int checked = 0;
    for (const auto& row : modelRegistry()) {
      if (row.family != ModelFamily::Attention) continue;
      SequenceModel model = makeSequenceModel(smallOptions(row.name), smallIo());
      auto* transformer = dynamic_cast<TransformerModelImpl*>(model.get());
      QVERIFY2(transformer != nullptr, row.name);
      for (const auto& block : transformer->blocks()) {
        QVERIFY2(row.attention.has_value(), row.name);
        QCOMPARE(std::string(attentionKindName(block->attention()->kind())),
                 std::string(attentionKindName(*row.attention)));
      }
      ++checked;
    }
    QVERIFY(checked >= 3);
  }

  // The attention kinds come from the cards: every attention card's name parses back to its kind,
  // the kinds are distinct and in registry order, only the attention family's cards carry one,
  // and each builds through the maker its .cpp registered (the class it builds reports the kind).
  void attentionKindNamesRoundTripAndBuild() {
    QVERIFY(!parseAttentionKind("x"));
    QVERIFY(!parseAttentionKind("Softmax"));
    QVERIFY(!parseAttentionKind(""));
    QVERIFY(errorOf([] { attentionKind("x"); }).contains("attention 'x' is unknown: use softmax"));
    // ModelOptions' encoder_attention starts as the first attention card's kind: softmax.
    QCOMPARE(std::string(attentionKindName(ModelOptions{}.encoder_attention)),
             std::string("softmax"));
    // The encoder is bidirectional: a causal-only kind is no encoder_attention.
    const auto encoder_kinds = encoderAttentionKinds();
    QVERIFY(!encoder_kinds.empty());
    for (AttentionKind kind : attentionKinds()) {
      const bool encoder = !findAttention(kind)->causalOnly();
      QCOMPARE(std::count(encoder_kinds.begin(), encoder_kinds.end(), kind) == 1, encoder);
    }

    int built = 0;
    std::set<std::string> names;
    std::vector<std::string> ordered;  // the kinds' names in registry order
    for (const auto& row : modelRegistry()) {
      QCOMPARE(row.attention.has_value(), row.family == ModelFamily::Attention);
      QCOMPARE(row.attention_name != nullptr, row.attention.has_value());
      if (!row.attention) continue;
      const AttentionKind kind = *row.attention;
      QCOMPARE(static_cast<size_t>(kind), names.size());  // registry order
      QVERIFY2(names.insert(row.attention_name).second, row.attention_name);
      ordered.emplace_back(row.attention_name);
      QCOMPARE(std::string(attentionKindName(kind)), std::string(row.attention_name));
      QVERIFY2(parseAttentionKind(row.attention_name) == kind, row.name);
      QCOMPARE(findAttention(kind), &row);
      QVERIFY2(hasAttentionMaker(kind), row.name);
      SelfAttention attention = makeSelfAttention(kind, smallOptions(row.name), /*causal=*/true);
      QVERIFY2(attention->kind() == kind, row.name);
      QVERIFY2(attention->causal(), row.name);
      // A causal-only kind refuses its bidirectional form; the others build it.
      const QString bidirectional =
          errorOf([&] { makeSelfAttention(kind, smallOptions(row.name), /*causal=*/false); });
      QCOMPARE(bidirectional.contains("is causal only"), row.causalOnly());
      // The decaying kinds carry position by their decays, are causal only and record decays.
      if (row.has(NoPositionalEncoding)) {
        QVERIFY2(row.causalOnly() && row.has(RecordsDecays), row.name);
      }
      QCOMPARE(row.has(RecordsDecays), row.has(NoPositionalEncoding) || row.has(HasRems));
      ++built;
    }
    QCOMPARE(static_cast<size_t>(built), attentionKinds().size());
    QCOMPARE(attentionKindList(), joined(ordered));

    // The seq2seq option is an AttentionKind; configs keep its name, and a name that is no kind
    // is refused when the config is read.
    ModelOptions o = smallOptions("encdec");
    o.encoder_attention = attentionKind("linear");
    QVERIFY(encoderAttention(o) == attentionKind("linear"));
    QVERIFY(errorOf([] { runConfigFromJson(R"({"model": {"encoder_attention": "x"}})"); })
                .contains(QString::fromStdString("model.encoder_attention = 'x' is unknown: use " +
                                                 enumChoices<AttentionKind>())));
    o.encoder_attention = attentionKind("retention");
    const QString causal_only = errorOf([&] { validate(o); });
    QVERIFY2(causal_only.contains("encoder_attention 'retention' is causal only and the encoder "
                                  "is bidirectional: use softmax, rsa, linear"),
             qPrintable(causal_only));
    QVERIFY(errorOf([] {
              runConfigFromJson(
                  R"({"model": {"model": "encdec", "encoder_attention": "retention"}})");
            }).contains("causal only"));
  }

  // `rsalab-cli models`: one line per registry row, in its order, with its title and equation.
  void describeModelsFollowsTheRegistry() {
    const auto rows = describeModels(smallOptions(modelNames().front()), smallIo());
    const auto& registry = modelRegistry();
    QCOMPARE(rows.size(), registry.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      QCOMPARE(rows[i].name, std::string(registry[i].name));
      QCOMPARE(rows[i].title, std::string(registry[i].title));
      QCOMPARE(rows[i].equation, std::string(registry[i].equation));
      QVERIFY(rows[i].parameters > 0);
    }
  }

  void unknownModelListsTheRegistry() {
    const QString message = errorOf([] { validate(smallOptions("nosuchmodel")); });
    QVERIFY2(message.contains("nosuchmodel"), qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(modelNameList())), qPrintable(message));
    QVERIFY(errorOf([] {
              makeSequenceModel(smallOptions("nosuchmodel"), smallIo());
            }).contains("nosuchmodel"));
  }

  // REM head counts are checked for the models whose attention has REMs, and only for those.
  void remCheckFollowsHasRems() {
    for (const auto& row : modelRegistry()) {
      ModelOptions o = smallOptions(row.name);
      o.rem = RemHeadCounts{3, 0, 0, 0, 0, 0};  // 3 REM heads > 2 heads
      const QString message = errorOf([&] { validate(o); });
      if (row.has(HasRems)) {
        QVERIFY2(message.contains("REM head counts"), row.name);
      } else {
        QVERIFY2(message.isEmpty(), qPrintable(QString(row.name) + ": " + message));
      }
    }
  }

  void sweepDefaultsAreTheSequenceModels() {
    QCOMPARE(SweepOptions{}.models, modelNames(/*sequence_only=*/true));
  }

  // FLOPs per token: every sequence model has a count; recurrent cells scale with their gate
  // blocks (LSTM = 4 × RNN); the seq2seq family is not covered (0).
  void flopsFollowTheFamily() {
    ModelIO io = smallIo();
    double rnn = 0, lstm = 0;
    for (const auto& row : modelRegistry()) {
      if (row.family == ModelFamily::Linear) {
        // 2·K·F_out per position; DLinear adds its fold of the two maps, 2·K²·H per forward.
        ModelOptions o = smallOptions(row.name);
        o.lookback = 10;
        const double f = forwardFlopsPerToken(o, seriesIo(), 16);
        const double fold = row.name == std::string("dlinear") ? 2.0 * 10 * 10 * 2 / 16 : 0.0;
        QCOMPARE(f, 2.0 * 10 * 6 + fold);
        continue;
      }
      const double f = forwardFlopsPerToken(smallOptions(row.name), io, 16);
      if (row.family == ModelFamily::Seq2Seq || row.family == ModelFamily::Forecaster) {
        QCOMPARE(f, 0.0);  // not counted (the forecasters: ProbSparse's work is no function of T)
        continue;
      }
      QVERIFY2(f > 0, row.name);
      if (row.family == ModelFamily::Recurrent) {
        const double io_part = 2.0 * 8 * (3 + 2);
        QCOMPARE(f - io_part, 4.0 * row.gate_blocks * 8 * 8);
        if (row.gate_blocks == 1) rnn = f - io_part;
        if (row.gate_blocks == 4) lstm = f - io_part;
      }
    }
    QCOMPARE(lstm, 4 * rnn);
  }

  // The state-space family: mamba2 builds as Mamba2ModelImpl, causal whatever `causal` says, with
  // no REMs, attention kind or cell; its FLOPs are flops.h's count of the chunked SSD scan.
  void stateSpaceFamilyIsMamba2() {
    int rows = 0;
    for (const auto& row : modelRegistry()) rows += row.family == ModelFamily::StateSpace;
    QCOMPARE(rows, 1);
    const ModelCard& row = modelInfo("mamba2");
    QVERIFY(row.family == ModelFamily::StateSpace);
    QCOMPARE(std::string(modelFamilyName(row.family)), std::string("state-space"));
    QCOMPARE(std::string(row.title), std::string("Mamba-2 (SSD)"));
    QVERIFY(row.causalOnly());
    QVERIFY(!row.has(HasRems) && !row.has(HasGates) && !row.attention && !row.cell &&
            !row.has(SeriesOnly));
    ModelOptions o = smallOptions("mamba2");
    o.causal = false;
    SequenceModel model = makeSequenceModel(o, smallIo());
    QVERIFY(dynamic_cast<Mamba2ModelImpl*>(model.get()) != nullptr);
    QVERIFY(model->causal());
    // D = 8 (E = 16), H = 2, L = 1, S = 16, K = 4, F_in = 3, F_out = 2; blocks of Q = min(64, T).
    const double D = 8, E = 16, S = 16, H = 2, K = 4;
    for (const auto& [T, Q, n] : {std::tuple<double, double, double>{16, 16, 1}, {200, 64, 4}}) {
      const double layer = 2 * T * D * (3 * E + 2 * S + H) + 2 * T * K * (E + 2 * S) +
                           2 * T * Q * (S + E) + 4 * T * E * S + 2 * (n + 1) * (n + 1) * E * S;
      const double expected = (2 * T * D * (3 + 2) + layer) / T;
      QCOMPARE(forwardFlopsPerToken(o, smallIo(), static_cast<int64_t>(T)), expected);
    }
  }

  void splitNamesAndStopReasons() {
    RunConfig c;
    c.task.name = "seasonal";
    c.task.length = 8;
    c.task.validation_size = 4;
    c.task.test_size = 4;
    for (const auto& r : modelRegistry()) {
      if (r.family == ModelFamily::Recurrent) c.model = smallOptions(r.name);
    }
    c.train_size = 8;
    c.trainer.batch_size = 4;
    Trainer trainer(c);
    QVERIFY(trainer.evaluate(splitName(Split::Test)).split == Split::Test);
    QVERIFY(trainer.evaluate(splitName(Split::Validation)).split == Split::Validation);
    const QString message = errorOf([&] { trainer.evaluate("tset"); });
    QVERIFY2(message.contains("tset") && message.contains("validation"), qPrintable(message));

    SweepRow row;
    row.steps = 3;
    row.stop_reason = StopReason::MaxSteps;
    QVERIFY(row.ok());
    row.stop_reason = StopReason::Requested;
    QVERIFY(!row.ok());
  }
};

RSALAB_TEST_MAIN(TestModelRegistry)
#include "test_model_registry.moc"
