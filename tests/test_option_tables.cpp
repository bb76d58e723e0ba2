// SPDX-License-Identifier: GPL-3.0-or-later
// The option tables (engine/core/config/option_table.h) of the trainer, model and task settings:
// every JSON key is a row and round-trips, config files of older versions (enums as names) still
// load, a bad enum name is refused naming the field, each numeric row's range is the one validate
// checks, no CLI flag is declared twice, and the registries carry what was a name chain (the
// recurrent cell, the task that reads csv_path). Core library only: no LibTorch.
#include <QtTest>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "engine/core/config/run_config.h"
#include "engine/core/registry/model_registry.h"
#include "engine/core/registry/task_registry.h"
#include "support/test_registry.h"
#include "support/throws.h"

using namespace rsalab;
using nlohmann::json;
using rsalab::test::contains;
using rsalab::test::errorOf;

namespace {

template <typename S>
std::set<std::string> rowNames(const std::vector<OptionInfo<S>>& rows) {
  std::set<std::string> out;
  for (const auto& row : rows) out.insert(row.name);
  return out;
}

std::set<std::string> keysOf(const json& object, std::set<std::string> leave_out = {}) {
  std::set<std::string> out;
  for (const auto& [key, value] : object.items())
    if (!leave_out.count(key)) out.insert(key);
  return out;
}

// A config in which every field of every table differs from its default, and is valid.
RunConfig everyFieldChanged() {
  RunConfig c;
  TaskOptions& t = c.task;
  t.length = 40;
  t.validation_size = 100;
  t.test_size = 200;
  t.ar_poles = {0.5, -0.3};
  t.periods = {7, 24};
  t.dampings = {0.9, 0.8};
  t.noise = 0.25;
  t.horizon = 3;
  t.teacher_kinds = {TeacherKind::Cos, TeacherKind::Regular};
  t.teacher_bases = {0.7, 0.6};
  t.teacher_thetas = {0.5, 0.0};
  t.mix_share = 0.25;
  t.mix_keys = 12;
  t.min_length = 3;
  t.max_length = 20;
  t.test_max_length = 40;
  t.symbols = 12;
  t.text_path = "text.txt";
  t.csv_path = "series.csv";
  t.norm = NormMode::Window;
  t.target = "OT";
  t.seasonal_period = 12;
  t.anchors = AnchorMode::Fast;
  t.protocol = SeriesProtocol::LongHorizon;
  t.features = forecast::LongHorizonFeatures::Univariate;
  t.epochs = 5;
  t.teacher_process = TeacherProcess::Selective;
  t.teacher_seed = 7;
  t.teacher_alpha = 1.5;
  t.teacher_lambda = 0.7;
  t.teacher_hidden = 4;
  t.teacher_gain = 0.9;
  t.teacher_input_scale = 1.5;
  t.teacher_decay_min = 0.6;
  t.teacher_decay_max = 0.95;
  t.teacher_gate_weight = -1;
  t.teacher_gate_bias = 0.5;
  t.series_d = 0.3;
  t.series_lambda = 0.6;
  t.series_phi_high = 0.7;
  t.series_phi_low = -0.3;
  t.series_decay_min = 0.2;
  t.series_decay_max = 0.9;
  ModelOptions& m = c.model;
  m.model = "encdec";
  m.d_model = 48;
  m.heads = 8;
  m.layers = 3;
  m.ff_mult = 2;
  m.causal = false;
  m.rem = {2, 2, 0, 1, 1, 1};
  m.dilations = {2, 4};
  m.rem_init.eta_min = 0.5;
  m.rem_init.eta_max = 1.5;
  m.rem_init.eta_sign = -1;
  m.rem_init.nu_min = 0.5;
  m.rem_init.nu_max = 1.5;
  m.rem_init.mu = 2;
  m.rem_init.learn_gate = false;
  m.rem_init.theta = {0.3};
  m.starsaber_gated = true;
  m.encoder_attention = attentionKind("rsa");
  m.decoder_layers = 1;
  m.linear_cumulative = false;
  m.linear_value_path = true;
  m.skip_lags = 5;
  m.lookback = 48;
  m.retnet_learnable_decay = true;
  m.retnet_rotation = true;
  m.alibi_code_slopes = true;
  m.informer_factor = 3;
  m.label_length = 24;
  TrainerOptions& r = c.trainer;
  r.optimizer = OptimizerKind::Adam;
  r.learning_rate = 0.01;
  r.weight_decay = 0.1;
  r.grad_clip = 2;
  r.snapshot_every = 7;
  r.batch_size = 16;
  r.max_steps = 123;
  r.warmup_steps = 10;
  r.cosine = true;
  r.lr_halve_every = 11;
  r.eval_every = 9;
  r.patience = 4;
  r.restore_best = true;
  r.max_seconds = 60;
  r.seed = 42;
  t.name = "copy";  // seq2seq: encdec's task (the other task fields are kept and saved)
  return c;
}

}  // namespace

class TestOptionTables : public QObject {
  Q_OBJECT
 private slots:
  // Each JSON section has exactly its table's keys (and model its rem / rem_init objects), and
  // the keys are the ones configs have always had.
  void jsonSectionsAreTheTables() {
    const json j = json::parse(toJson(RunConfig{}));
    QVERIFY(keysOf(j["task"]) == rowNames(taskOptionTable()));
    QVERIFY(keysOf(j["model"], {"rem", "rem_init"}) == rowNames(modelOptionTable()));
    QVERIFY(keysOf(j["model"]["rem"]) == rowNames(remHeadTable()));
    QVERIFY(keysOf(j["model"]["rem_init"]) == rowNames(remInitTable()));
    QVERIFY(keysOf(j["trainer"]) == rowNames(trainerHyperParameters()));
    const std::set<std::string> task_keys = {"name",
                                             "length",
                                             "validation_size",
                                             "test_size",
                                             "ar_poles",
                                             "periods",
                                             "dampings",
                                             "noise",
                                             "horizon",
                                             "teacher_kinds",
                                             "teacher_bases",
                                             "teacher_thetas",
                                             "min_length",
                                             "max_length",
                                             "test_max_length",
                                             "symbols",
                                             "text_path",
                                             "csv_path",
                                             "norm",
                                             "target",
                                             "seasonal_period",
                                             "mix_share",
                                             "mix_keys",
                                             "anchors",
                                             "teacher_process",
                                             "teacher_seed",
                                             "teacher_alpha",
                                             "teacher_lambda",
                                             "teacher_hidden",
                                             "teacher_gain",
                                             "teacher_input_scale",
                                             "teacher_decay_min",
                                             "teacher_decay_max",
                                             "teacher_gate_weight",
                                             "teacher_gate_bias",
                                             "series_d",
                                             "series_lambda",
                                             "series_phi_high",
                                             "series_phi_low",
                                             "series_decay_min",
                                             "series_decay_max",
                                             "protocol",
                                             "features",
                                             "epochs"};
    QVERIFY(keysOf(j["task"]) == task_keys);
    const std::set<std::string> model_keys = {"model",
                                              "d_model",
                                              "heads",
                                              "layers",
                                              "ff_mult",
                                              "causal",
                                              "dilations",
                                              "starsaber_gated",
                                              "encoder_attention",
                                              "decoder_layers",
                                              "linear_cumulative",
                                              "linear_value_path",
                                              "skip_lags",
                                              "lookback",
                                              "retnet_learnable_decay",
                                              "retnet_rotation",
                                              "alibi_code_slopes",
                                              "informer_factor",
                                              "label_length",
                                              "rem",
                                              "rem_init"};
    QVERIFY(keysOf(j["model"]) == model_keys);
  }

  // Every key of every section round-trips: a config with every field changed reads back equal,
  // and each changed field shows in its key (so no key is read into another field).
  void everyKeyRoundTrips() {
    const RunConfig changed = everyFieldChanged();
    QCOMPARE(QString::fromStdString(errorOf([&] { validate(changed); })), QString());
    const std::string text = toJson(changed);
    QCOMPARE(toJson(runConfigFromJson(text)), text);
    const json a = json::parse(text), d = json::parse(toJson(RunConfig{}));
    for (const char* section : {"task", "model", "trainer"}) {
      for (const auto& [key, value] : a[section].items()) {
        if (key == "rem" || key == "rem_init") {
          for (const auto& [k, v] : value.items())
            QVERIFY2(v != d[section][key][k], (std::string(section) + "." + key + "." + k).c_str());
          continue;
        }
        QVERIFY2(value != d[section][key], (std::string(section) + "." + key).c_str());
      }
    }
    // One key at a time reads into its own field only.
    for (const auto& row : modelOptionTable()) {
      json one = json::object();
      one["model"][row.name] = a["model"][row.name];
      json expected = d;
      expected["model"][row.name] = a["model"][row.name];
      if (row.name == "model") continue;  // encdec alone needs a seq2seq task
      std::string read;
      const std::string got =
          errorOf([&] { read = toJson(mergeRunConfigJson(RunConfig{}, one.dump())); });
      if (!got.empty()) QVERIFY2(!contains(got, "out of range"), got.c_str());
      if (got.empty()) QCOMPARE(json::parse(read).dump(), expected.dump());
    }
  }

  // Enums are written as the names configs have always had, and files of older versions (these
  // names as strings) load.
  void enumsKeepTheirNames() {
    RunConfig c;
    c.trainer.optimizer = OptimizerKind::Adam;
    c.task.norm = NormMode::None;
    c.task.anchors = AnchorMode::Fast;
    c.task.teacher_kinds = {TeacherKind::Regular, TeacherKind::Cos};
    c.task.teacher_bases = {0.5, 0.5};
    c.task.teacher_thetas = {0.0, 1.0};
    c.model.encoder_attention = attentionKind("linear");
    const json j = json::parse(toJson(c));
    QCOMPARE(j["trainer"]["optimizer"].get<std::string>(), std::string("adam"));
    QCOMPARE(j["task"]["norm"].get<std::string>(), std::string("none"));
    QCOMPARE(j["task"]["anchors"].get<std::string>(), std::string("fast"));
    QCOMPARE(j["task"]["teacher_kinds"].dump(), std::string(R"(["regular","cos"])"));
    QCOMPARE(j["model"]["encoder_attention"].get<std::string>(), std::string("linear"));
    QCOMPARE(json::parse(toJson(RunConfig{}))["trainer"]["optimizer"].get<std::string>(),
             std::string("adamw"));
    QCOMPARE(json::parse(toJson(RunConfig{}))["task"]["norm"].get<std::string>(),
             std::string("global"));
    // A file of the version before the tables (its enums were strings).
    const RunConfig old = runConfigFromJson(R"({
      "task": {"name": "teacher", "norm": "window", "anchors": "none",
               "teacher_kinds": ["cos", "regular"], "teacher_bases": [0.9, 0.8],
               "teacher_thetas": [0.5, 0.0]},
      "model": {"model": "encdec", "encoder_attention": "rsa"},
      "trainer": {"optimizer": "adam"}})");
    QVERIFY(old.task.norm == NormMode::Window);
    QVERIFY(old.task.anchors == AnchorMode::None);
    QVERIFY((old.task.teacher_kinds ==
             std::vector<TeacherKind>{TeacherKind::Cos, TeacherKind::Regular}));
    QVERIFY(old.model.encoder_attention == attentionKind("rsa"));
    QVERIFY(old.trainer.optimizer == OptimizerKind::Adam);
  }

  // A name an enum does not have is a std::invalid_argument naming the field and the names.
  void badEnumNamesNameTheField() {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"trainer": {"optimizer": "sgd"}})",
         "trainer.optimizer = 'sgd' is unknown: use adam or adamw"},
        {R"({"task": {"norm": "minmax"}})",
         "task.norm = 'minmax' is unknown: use window, global, none or revin"},
        {R"({"task": {"anchors": "some"}})",
         "task.anchors = 'some' is unknown: use all, fast or none"},
        {R"({"task": {"teacher_kinds": ["regular", "sin"]}})",
         "task.teacher_kinds[1] = 'sin' is unknown: use regular or cos"},
        {R"({"model": {"encoder_attention": "x"}})",  // the attention cards' names
         "model.encoder_attention = 'x' is unknown: use " + enumChoices<AttentionKind>()},
        {R"({"task": {"norm": 1}})",
         "task.norm has the wrong type (number): it must be a string: window, global, none or "
         "revin"},
        {R"({"task": {"teacher_kinds": "cos"}})",
         "task.teacher_kinds has the wrong type (string): it must be an array of strings"},
    };
    for (const auto& [text, expected] : cases) {
      std::string message;
      try {
        runConfigFromJson(text);
      } catch (const std::invalid_argument& e) {
        message = e.what();
      }
      QCOMPARE(QString::fromStdString(message), QString::fromStdString(expected));
    }
  }

  // A numeric row's range is the one validate checks: one past either end is refused with the
  // row's range in the message.
  void validateChecksEachRowsRange() {
    auto outside = [](auto& section, const auto& row, const std::string& prefix, RunConfig& c,
                      double value) {
      row.set(section, value);
      const std::string message = errorOf([&] { validate(c); });
      const std::string expected =
          prefix + row.name + " = " + row.text(value) + " is out of range: ";
      QVERIFY2(message.rfind(expected, 0) == 0, (message + " / " + expected).c_str());
    };
    int rows = 0;
    for (const auto& row : modelOptionTable()) {
      if (!row.numeric()) continue;
      for (double v : {row.minimum - 1, row.maximum + 1}) {
        RunConfig c;
        outside(c.model, row, "", c, v);
      }
      ++rows;
    }
    for (const auto& row : remInitTable()) {
      if (!row.numeric()) continue;
      RunConfig c;
      c.model.rem_init.eta_max = c.model.rem_init.nu_max = 20;  // keep min <= max
      outside(c.model.rem_init, row, "rem_init.", c, row.maximum + 1);
      ++rows;
    }
    for (const auto& row : taskOptionTable()) {
      if (!row.numeric()) continue;
      RunConfig c;
      c.task.name = "lynx";  // a real series: length 0 (auto) is in range
      outside(c.task, row, "task.", c, row.maximum + 1);
      ++rows;
    }
    for (const auto& row : trainerHyperParameters()) {
      if (!row.numeric()) continue;
      RunConfig c;
      outside(c.trainer, row, "", c, row.maximum + 1);
      ++rows;
    }
    QVERIFY(rows >= 30);
    // The ranges the GUI and the CLI took on their own before: D 1..8192, H 1..256, L 1..64.
    QCOMPARE(QString::fromStdString(findModelOption("d_model")->rangeText()), QString("1..8192"));
    QCOMPARE(QString::fromStdString(findModelOption("heads")->rangeText()), QString("1..256"));
    QCOMPARE(QString::fromStdString(findModelOption("layers")->rangeText()), QString("1..64"));
  }

  // Each CLI flag is one row's, in one table.
  void eachFlagIsOneRows() {
    std::map<std::string, std::string> owner;
    auto collect = [&](const auto& rows, const char* table) {
      for (const auto& row : rows) {
        if (!row.flag) continue;
        const auto [it, added] = owner.emplace(row.flag, std::string(table) + "." + row.name);
        QVERIFY2(added, (std::string(row.flag) + ": " + it->second + " and " + row.name).c_str());
        QVERIFY2(!row.help.empty(), row.flag);
      }
    };
    collect(taskOptionTable(), "task");
    collect(modelOptionTable(), "model");
    collect(trainerHyperParameters(), "trainer");
    for (const char* flag : {"--d-model", "--heads", "--layers", "--norm", "--optimizer", "--csv"})
      QVERIFY2(owner.count(flag), flag);
  }

  // The registries carry what was a chain of names: the recurrent cell of each model, and the
  // task whose series is the user's CSV file.
  void registriesCarryTheCellAndTheCsvTask() {
    for (const auto& row : modelRegistry()) {
      QVERIFY2(row.cell.has_value() == (row.family == ModelFamily::Recurrent), row.name);
      if (row.cell) QCOMPARE(QString(enumName(*row.cell)), QString(row.name));
    }
    QVERIFY(recurrentCell("lstm") == RecurrentCell::Lstm);
    QVERIFY(!recurrentCell("rsa"));
    QVERIFY(!recurrentCell("nosuchmodel"));
    int reading = 0;
    for (const auto& row : taskRegistry()) {
      if (!row.reads_csv_path) continue;
      ++reading;
      QVERIFY(row.family == TaskFamily::Csv && !row.series_file);
      QCOMPARE(csvPathTaskName(), std::string(row.name));
    }
    QCOMPARE(reading, 1);
    QVERIFY(readsCsvPath("csv") && !readsCsvPath("lynx") && !readsCsvPath("nosuchtask"));
    RunConfig c;
    c.task.name = csvPathTaskName();
    QCOMPARE(QString::fromStdString(errorOf([&] { validate(c); })),
             QString("task.csv_path is empty: the csv task needs a CSV file"));
  }
};

RSALAB_REGISTER_TEST(TestOptionTables, QTEST_GUILESS_MAIN)
#include "test_option_tables.moc"
