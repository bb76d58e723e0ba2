// SPDX-License-Identifier: GPL-3.0-or-later
// Validation of every config value (one table of bad values, each with the exact message), and
// hostile config / CSV inputs: truncated, huge, binary, wrong-typed and deeply nested. Also
// replays the fuzzers' regression inputs (tests/fuzz/regressions/) through the plain readers.
#include <QDir>
#include <QFile>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/config/run_config.h"
#include "engine/core/io/csv_reader.h"
#include "engine/core/io/json_limits.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/verdicts/first_minute_table.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::errorOf;

namespace {

struct BadValue {
  const char* what;
  std::function<void(RunConfig&)> edit;
  std::string message;  // exact
};

}  // namespace

class TestConfigValidation : public QObject {
  Q_OBJECT
 private slots:
  // The first-minute table belongs to the default launch it was measured on: a config key added
  // since, at its default, is the same launch; a changed value is not.
  void firstMinuteLaunchReadsNewKeysAsDefaults() {
    auto table = firstMinuteTableForLaunch(1, 10);
    QVERIFY(firstMinuteTableMatchesLaunch(table));
    auto config = nlohmann::json::parse(table.config);
    config["task"].erase("anchors");  // measured before the key existed
    table.config = config.dump();
    QVERIFY(firstMinuteTableMatchesLaunch(table));
    config["task"]["length"] = config["task"]["length"].get<int64_t>() + 1;
    table.config = config.dump();
    QVERIFY(!firstMinuteTableMatchesLaunch(table));
  }
  // The first minute compares RSA with the others on the test loss, not on the validation loss
  // that chose when each run stopped: here RSA is lower on validation for every seed and higher on
  // test, so it loses; the block shows both numbers, and a record without test losses reads back
  // with none (no comparison) instead of failing.
  void firstMinuteComparesOnTheTestLoss() {
    auto table = firstMinuteTableForLaunch(6, 10);
    table.models = {"transformer", "rsa"};
    for (uint64_t seed = 0; seed < 6; ++seed) {
      const double noise = 0.001 * static_cast<double>(seed);
      table.runs.push_back({"transformer", seed, 10, "", 0.20 + noise, 0.20, 0.10 + noise});
      table.runs.push_back({"rsa", seed, 10, "", 0.10 + noise, 0.10, 0.30 + noise});
    }
    const std::string block = firstMinuteBlock(table);
    QVERIFY2(block.find("RSA loses to transformer (RSA lower on 0 of 6 seeds, transformer on 6") !=
                 std::string::npos,
             block.c_str());
    QVERIFY2(block.find("| rsa | 0.1 / 0.3 |") != std::string::npos, block.c_str());
    QVERIFY(firstMinuteSummary(table).find("test loss: transformer 0.10") != std::string::npos);
    auto json = nlohmann::json::parse(firstMinuteTableJson(table));
    for (auto& run : json["runs"]) run.erase("test");
    const auto old = firstMinuteTableFromJson(json.dump(), "old record");
    QVERIFY(!std::isfinite(old.runs.front().test));
    QVERIFY(firstMinuteBlock(old).find("RSA ") == std::string::npos);
  }
  void defaultsAreValid() {
    QCOMPARE(QString::fromStdString(errorOf([] { validate(RunConfig{}); })), QString());
  }

  // The defaults are the members' initialisers: defaultRunConfig() is RunConfig{}, and a
  // ModelOptions on its own (what `rsalab-cli models` counts) is the model `train` builds.
  void defaultsLiveInTheInitialisers() {
    QCOMPARE(toJson(defaultRunConfig()), toJson(RunConfig{}));
    const ModelOptions alone;
    QCOMPARE(alone.d_model, defaultRunConfig().model.d_model);
    QCOMPARE(alone.heads, defaultRunConfig().model.heads);
    QCOMPARE(alone.layers, defaultRunConfig().model.layers);
    const RemHeadCounts rems = defaultRemHeads(alone.heads);
    QVERIFY(alone.rem.regular == rems.regular && alone.rem.cos == rems.cos &&
            alone.rem.sin == rems.sin);
  }

  // One table of trainer settings: validate checks every numeric row's range by name, the JSON
  // trainer section has exactly the table's keys, and only hot rows take hot edits.
  void hyperParameterTableDrivesValidateJsonAndHotEdits() {
    const auto trainer = nlohmann::json::parse(toJson(RunConfig{}))["trainer"];
    QCOMPARE(trainer.size(), trainerHyperParameters().size());
    for (const auto& p : trainerHyperParameters()) {
      const char* n = p.name.c_str();
      QVERIFY2(trainer.contains(p.name), n);
      QVERIFY2(findHyperParameter(p.name) == &p, n);
      HotParameters hot;
      const double before = p.get(hot);
      const auto replaced = applyHotEdit(hot, p.name, p.numeric() ? p.maximum : 0);
      QVERIFY2(replaced.has_value() == p.hot, n);
      if (!p.numeric()) continue;
      if (replaced) QVERIFY2(*replaced == before && p.get(hot) == p.maximum, n);
      RunConfig c;
      p.set(c.trainer, p.maximum * 2 + 1);
      const std::string message = errorOf([&] { validate(c); });
      QVERIFY2(message.rfind(p.name + " = ", 0) == 0 &&
                   message.find("out of range") != std::string::npos,
               message.c_str());
    }
    HotParameters hot;
    QVERIFY(!applyHotEdit(hot, "no_such_parameter", 1));
  }

  void everyBadValueNamesTheFieldAndItsRange() {
    const std::vector<BadValue> table = {
        {"model", [](RunConfig& c) { c.model.model = "mamba"; },
         "model 'mamba' is unknown: use " + modelNameList()},
        {"lookback", [](RunConfig& c) { c.model.lookback = 0; },
         "lookback = 0 is out of range: 1..4096"},
        {"d_model 0", [](RunConfig& c) { c.model.d_model = 0; },
         "d_model = 0 is out of range: 1..8192"},
        {"d_model huge", [](RunConfig& c) { c.model.d_model = 100000; },
         "d_model = 100000 is out of range: 1..8192"},
        {"heads 0", [](RunConfig& c) { c.model.heads = 0; }, "heads = 0 is out of range: 1..256"},
        {"d_model % heads", [](RunConfig& c) { c.model.d_model = 30; },
         "d_model = 30 is not divisible by heads = 4"},
        {"layers", [](RunConfig& c) { c.model.layers = 0; }, "layers = 0 is out of range: 1..64"},
        {"ff_mult", [](RunConfig& c) { c.model.ff_mult = 17; },
         "ff_mult = 17 is out of range: 1..16"},
        {"decoder_layers", [](RunConfig& c) { c.model.decoder_layers = -1; },
         "decoder_layers = -1 is out of range: 0..64"},
        {"rem count", [](RunConfig& c) { c.model.rem.cos = -1; },
         "rem.cos = -1 is out of range: 0..256"},
        {"rem sum", [](RunConfig& c) { c.model.rem.regular = 4; },
         "REM head counts sum to 6 but there are only heads = 4"},
        {"dilation", [](RunConfig& c) { c.model.dilations = {0}; },
         "dilation = 0 is out of range: 1..1024"},
        {"eta nan", [](RunConfig& c) { c.model.rem_init.eta_min = NAN; },
         "rem_init.eta_min = nan is out of range: -20..20"},
        {"eta order", [](RunConfig& c) { c.model.rem_init.eta_min = 3; },
         "rem_init.eta_min = 3 is out of range: <= eta_max"},
        {"mu", [](RunConfig& c) { c.model.rem_init.mu = 1e9; },
         "rem_init.mu = 1e+09 is out of range: -50..50"},
        {"theta inf", [](RunConfig& c) { c.model.rem_init.theta = {INFINITY}; },
         "rem_init.theta = inf is out of range: a finite angle"},
        {"lr 0", [](RunConfig& c) { c.trainer.learning_rate = 0; },
         "learning_rate = 0 must be > 0"},
        {"lr -1", [](RunConfig& c) { c.trainer.learning_rate = -1; },
         "learning_rate = -1 must be > 0"},
        {"lr nan", [](RunConfig& c) { c.trainer.learning_rate = NAN; },
         "learning_rate = nan must be > 0"},
        {"lr huge", [](RunConfig& c) { c.trainer.learning_rate = 5; },
         "learning_rate = 5 is out of range: 1e-06..1"},
        {"weight_decay", [](RunConfig& c) { c.trainer.weight_decay = -0.1; },
         "weight_decay = -0.1 is out of range: 0..1"},
        {"grad_clip", [](RunConfig& c) { c.trainer.grad_clip = INFINITY; },
         "grad_clip = inf is out of range: 0..1000"},
        {"batch 0", [](RunConfig& c) { c.trainer.batch_size = 0; },
         "batch_size = 0 is out of range: 1..4096"},
        {"batch huge", [](RunConfig& c) { c.trainer.batch_size = 5000; },
         "batch_size = 5000 is out of range: 1..4096"},
        {"steps", [](RunConfig& c) { c.trainer.max_steps = 0; },
         "max_steps = 0 is out of range: 1..100000000"},
        {"warmup", [](RunConfig& c) { c.trainer.warmup_steps = -5; },
         "warmup_steps = -5 is out of range: 0..10000000"},
        {"eval_every", [](RunConfig& c) { c.trainer.eval_every = 0; },
         "eval_every = 0 is out of range: 1..1000000"},
        {"patience", [](RunConfig& c) { c.trainer.patience = -1; },
         "patience = -1 is out of range: 0..10000"},
        {"max_seconds", [](RunConfig& c) { c.trainer.max_seconds = -1; },
         "max_seconds = -1 is out of range: 0..1e+07"},
        {"snapshot_every", [](RunConfig& c) { c.trainer.snapshot_every = -1; },
         "snapshot_every = -1 is out of range: 0..1000000"},
        {"train_size 0", [](RunConfig& c) { c.train_size = 0; },
         "train_size = 0 is out of range: 1..1000000"},
        {"train_size huge", [](RunConfig& c) { c.train_size = 2'000'000; },
         "train_size = 2000000 is out of range: 1..1000000"},
        {"length 0", [](RunConfig& c) { c.task.length = 0; },
         "task.length = 0 is out of range: 1..100000"},
        {"length huge", [](RunConfig& c) { c.task.length = 200000; },
         "task.length = 200000 is out of range: 1..100000"},
        {"too many values",
         [](RunConfig& c) {
           c.task.length = 100000;
           c.train_size = 1000;
         },
         "train_size + validation_size + test_size = 1768 sequences of 100000 steps exceed "
         "67108864 values: use fewer or shorter sequences"},
        {"validation_size", [](RunConfig& c) { c.task.validation_size = 0; },
         "task.validation_size = 0 is out of range: 1..1000000"},
        {"test_size", [](RunConfig& c) { c.task.test_size = -3; },
         "task.test_size = -3 is out of range: 1..1000000"},
        {"horizon", [](RunConfig& c) { c.task.horizon = 0; },
         "task.horizon = 0 is out of range: 1..1024"},
        {"symbols", [](RunConfig& c) { c.task.symbols = 0; },
         "task.symbols = 0 is out of range: 1..65536"},
        {"noise", [](RunConfig& c) { c.task.noise = -1; },
         "task.noise = -1 is out of range: 0..1000"},
        {"ar pole",
         [](RunConfig& c) {
           c.task.ar_poles = {0.5, 1.0};
         },
         "task.ar_poles[1] = 1 is out of range: (-1, 1)"},
        {"period", [](RunConfig& c) { c.task.periods = {1}; },
         "task.periods[0] = 1 is out of range: [2, 1000000]"},
        {"damping", [](RunConfig& c) { c.task.dampings = {NAN}; },
         "task.dampings[0] = nan is out of range: [0, 1)"},
        {"teacher base", [](RunConfig& c) { c.task.teacher_bases = {-2}; },
         "task.teacher_bases[0] = -2 is out of range: (-1, 1)"},
        {"language min",
         [](RunConfig& c) {
           c.task.name = "parity";
           c.task.min_length = 0;
         },
         "task.min_length = 0 is out of range: 1..999"},
        {"language max",
         [](RunConfig& c) {
           c.task.name = "tomita3";
           c.task.max_length = 1;
         },
         "task.max_length = 1 is out of range: 2..999"},
        {"language test",
         [](RunConfig& c) {
           c.task.name = "dyck1";
           c.task.test_max_length = 16;
         },
         "task.test_max_length = 16 is out of range: 17..1000"},
        {"csv path", [](RunConfig& c) { c.task.name = "csv"; },
         "task.csv_path is empty: the csv task needs a CSV file"},
        {"device", [](RunConfig& c) { c.device = "tpu"; },
         "device 'tpu' is unknown: use cpu, cuda, cuda:N or auto"},
        {"device cuda:x", [](RunConfig& c) { c.device = "cudax"; },
         "device 'cudax' is unknown: use cpu, cuda, cuda:N or auto"},
    };
    for (const auto& bad : table) {
      RunConfig c;
      bad.edit(c);
      const auto message = errorOf([&] { validate(c); });
      if (message != bad.message) {
        qWarning("%s: got \"%s\"\n  expected \"%s\"", bad.what, message.c_str(),
                 bad.message.c_str());
      }
      QCOMPARE(QString::fromStdString(message), QString::fromStdString(bad.message));
      // The config loader says the same for the same value in a file (JSON has no NaN or
      // infinity: those are written as null and rejected as the wrong type).
      if (message.find("nan") != std::string::npos || message.find("inf") != std::string::npos)
        continue;
      const auto from_json = errorOf([&] { runConfigFromJson(toJson(c)); });
      QCOMPARE(QString::fromStdString(from_json), QString::fromStdString(bad.message));
    }
  }

  // A bidirectional model on a next-step task sees the value it must predict (its test loss
  // would fall below the noise floor): the config check refuses it, naming the task.
  void bidirectionalModelsAreRefusedOnNextStepTasks() {
    std::vector<std::string> next_step;
    for (const auto& t : taskRegistry())
      if (t.next_step) next_step.emplace_back(t.name);
    QCOMPARE(next_step, (std::vector<std::string>{
                            "seasonal", "ar", "teacher", "mix", "charlm", "csv", "airpassengers",
                            "lynx", "lakehuron", "nottem", "ukgas", "treering", "etth1", "etth2"}));
    for (const auto& task : taskRegistry()) {
      for (const auto& model : modelRegistry()) {
        // The forecasters' own check (seriesOnlyModelsNeedARegressionTask) comes after this one.
        if (model.causalOnly() || model.has(LongHorizonOnly)) continue;
        RunConfig c;
        c.task.name = task.name;
        if (task.name == std::string("csv")) c.task.csv_path = "series.csv";
        c.model.model = model.name;
        c.model.causal = false;
        const auto message = errorOf([&] { validate(c); });
        const std::string expected =
            task.next_step ? "task '" + std::string(task.name) +
                                 "' predicts the next value: a bidirectional model would see it; "
                                 "use a causal model"
                           : "";
        QVERIFY2(message == expected,
                 (std::string(task.name) + " / " + model.name + ": '" + message + "'").c_str());
        c.model.causal = true;
        QCOMPARE(QString::fromStdString(errorOf([&] { validate(c); })), QString());
      }
    }
    RunConfig rnn;  // recurrent models are causal whatever the flag says
    rnn.model.model = "lstm";
    rnn.model.causal = false;
    QCOMPARE(QString::fromStdString(errorOf([&] { validate(rnn); })), QString());
  }

  // Series-only models (dlinear, nlinear) need a regression task; the config check refuses the
  // others, naming the model and the task. Their lookback is saved and read back with the config.
  void seriesOnlyModelsNeedARegressionTask() {
    int checked = 0;
    for (const auto& task : taskRegistry()) {
      for (const auto& model : modelRegistry()) {
        if (!model.has(SeriesOnly)) continue;
        RunConfig c;
        c.task.name = task.name;
        if (task.name == std::string("csv")) c.task.csv_path = "series.csv";
        c.model.model = model.name;
        const auto message = errorOf([&] { validate(c); });
        std::string expected =
            task.objective == Objective::Regression
                ? ""
                : "model '" + std::string(model.name) + "' forecasts a real-valued series: task '" +
                      task.name + "' is " + objectiveName(task.objective) +
                      "; use a series task (seasonal, ar, csv or a bundled series)";
        // The forecaster family: a regression task on the long-horizon protocol only.
        if (expected.empty() && model.has(LongHorizonOnly) && !usesLongHorizonProtocol(c.task))
          expected = "model '" + std::string(model.name) +
                     "' forecasts a dated window's H steps at once: use the long-horizon "
                     "protocol (--series etth1 or etth2 --protocol long-horizon, or rsalab-cli "
                     "paper-table)";
        QVERIFY2(message == expected,
                 (std::string(task.name) + " / " + model.name + ": '" + message + "'").c_str());
        ++checked;
      }
    }
    QVERIFY(checked >= 2 * 10);
    RunConfig c;
    c.model.model = "dlinear";
    c.model.lookback = 336;
    const RunConfig back = runConfigFromJson(toJson(c));
    QCOMPARE(back.model.lookback, int64_t{336});
    QCOMPARE(back.model.model, std::string("dlinear"));
    QCOMPARE(mergeRunConfigJson(RunConfig{}, R"({"model": {"lookback": 48}})").model.lookback,
             int64_t{48});
    QCOMPARE(RunConfig{}.model.lookback, int64_t{24});
  }

  void hostileConfigFilesAreRejectedWithAClearError() {
    auto message = [](const std::string& text) {
      return QString::fromStdString(errorOf([&] { runConfigFromJson(text); }));
    };
    const std::string good = toJson(RunConfig{});
    struct Case {
      const char* what;
      std::string text;
      const char* expected;  // substring
    };
    const std::vector<Case> cases = {
        {"truncated", good.substr(0, good.size() / 2),
         "config is not valid JSON: [json.exception.parse_error.101]"},
        {"empty", "", "config is not valid JSON"},
        {"binary", std::string("\x00\xff\xfe{\x01", 5), "config is not valid JSON"},
        {"invalid UTF-8 key", "{\"\xff\": 1}", "config is not valid JSON"},
        {"huge", std::string(size_t{1} << 21, ' '),
         "config is 2097152 bytes; the limit is 1048576"},
        {"deep arrays", std::string(100000, '[') + std::string(100000, ']'),
         "config nests deeper than 32 levels"},
        {"deep objects",
         [] {
           std::string s;
           for (int i = 0; i < 40; ++i) s += "{\"a\":";
           s += "1";
           s += std::string(40, '}');
           return s;
         }(),
         "config nests deeper than 32 levels"},
        {"top-level array", "[1, 2]", "config must be an object"},
        {"section not object", R"({"model": 3})", "model must be an object"},
        {"string for int", R"({"model": {"d_model": "64"}})",
         "model.d_model has the wrong type (string): it must be an integer"},
        {"float for int", R"({"model": {"d_model": 64.5}})",
         "model.d_model has the wrong type (number): it must be an integer"},
        {"negative seed", R"({"trainer": {"seed": -1}})",
         "trainer.seed has the wrong type (number): it must be an integer >= 0"},
        {"int overflow", R"({"train_size": 99999999999999999999})",
         "train_size has the wrong type (number): it must be an integer"},
        {"number overflow", R"({"trainer": {"learning_rate": 1e999}})", "config is not valid JSON"},
        {"bool for number", R"({"trainer": {"learning_rate": true}})",
         "trainer.learning_rate has the wrong type (boolean): it must be a number"},
        {"string list", R"({"task": {"periods": [12, "x"]}})",
         "task.periods has the wrong type (array): it must be an array of numbers"},
        {"null", R"({"device": null})", "device has the wrong type (null): it must be a string"},
        {"unknown key", R"({"trainer": {"lr": 1}})", "unknown key trainer.lr"},
        {"NaN literal", R"({"trainer": {"learning_rate": NaN}})", "config is not valid JSON"},
    };
    for (const auto& c : cases) {
      const QString got = message(c.text);
      if (!got.contains(c.expected)) qWarning("%s: got \"%s\"", c.what, qPrintable(got));
      QVERIFY2(got.contains(c.expected), c.what);
    }
    // The limits are parameters of the parser: a smaller depth bound applies.
    JsonLimits shallow;
    shallow.max_depth = 2;
    QVERIFY(QString::fromStdString(errorOf([&] {
              parseJsonLimited("[[[1]]]", "x", shallow);
            })).contains("x nests deeper than 2 levels"));
    QCOMPARE(parseJsonLimited("[[1]]", "x", shallow).dump(), std::string("[[1]]"));
  }

  void hostileCsvIsRejectedWithAClearError() {
    struct Case {
      const char* what;
      std::string text;
      const char* expected;
    };
    const std::vector<Case> cases = {
        {"binary", std::string("\x00\x01\x02\xff\n\x03\x04", 7), "CSV"},
        {"open quote", "a,b\n1,\"2\n3,4\n", "CSV"},
        {"ragged", "a,b\n1,2\n3\n", "fields"},
        {"text cell", "a\n1\nfoo\n", "line 3"},
        {"only header", "a,b\n", "no data rows"},
        {"inf", "a\n1\ninf\n", "line 3"},
        {"huge number", "a\n1\n1e999\n", "line 3"},
    };
    for (const auto& c : cases) {
      const auto got = errorOf([&] { parseCsv(c.text); });
      if (got.find(c.expected) == std::string::npos)
        qWarning("%s: got \"%s\"", c.what, got.c_str());
      QVERIFY2(!got.empty() && got.find(c.expected) != std::string::npos, c.what);
    }
    CsvLimits small;
    small.max_columns = 3;
    QVERIFY(errorOf([&] {
              parseCsv(std::string(100, ',') + "\n", "x", small);
            }).find("limit is 3") != std::string::npos);
  }

  // Every input a fuzzer once crashed on, through the plain readers: any error is fine, a crash
  // (or a sanitizer report, in the sanitizer builds) is not.
  void fuzzRegressionInputsAreHandled() {
    const QDir root(QStringLiteral(RSALAB_FUZZ_DIR));
    int replayed = 0;
    for (const QString& harness : {QStringLiteral("csv_reader"), QStringLiteral("config_loader"),
                                   QStringLiteral("bundle_manifest")}) {
      for (const QString& sub : {QStringLiteral("corpus/"), QStringLiteral("regressions/")}) {
        const QDir dir(root.filePath(sub + harness));
        for (const auto& info : dir.entryInfoList(QDir::Files)) {
          QFile f(info.filePath());
          QVERIFY(f.open(QIODevice::ReadOnly));
          const QByteArray bytes = f.readAll();
          const std::string text(bytes.constData(), static_cast<size_t>(bytes.size()));
          if (harness == "csv_reader") {
            errorOf([&] { parseCsv(text, info.fileName().toStdString()); });
          } else if (harness == "bundle_manifest") {
            errorOf([&] { parseSessionSweepRows(text); });
            errorOf([&] { parseSessionManifest(text, info.fileName().toStdString()); });
          } else {
            errorOf([&] { runConfigFromJson(text); });
          }
          ++replayed;
        }
      }
    }
    QVERIFY2(replayed > 0, "no seed corpus found under tests/fuzz");
  }
};

RSALAB_TEST_MAIN(TestConfigValidation)
#include "test_config_validation.moc"
