// SPDX-License-Identifier: GPL-3.0-or-later
// The forecaster family on the long-horizon protocol (engine/models/informer.h): the windows'
// calendar marks against a literal reading of ETTh1's date column, a run of each model that
// trains and forecasts through the trainer, Informer's budget (the learning rate halved every
// epoch), what validation refuses, the paper size's lengths, and the paper table's section with
// the pair's verdict. (The model's own math, ProbSparse against loops, causality over the
// placeholders, gradients and overfitting: the self-test's forms/, causality/, gradients/ and
// overfit/ checks of informer and rsa-informer, tests/test_selftest.cpp.)
#include <QtTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/config/run_config.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/sweep/paper_table_run.h"
#include "engine/tasks/long_horizon_task.h"
#include "engine/tasks/text_tasks.h"  // resourcePath
#include "engine/training/trainer.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;

namespace {

struct Stamp {
  int month, day, weekday, hour;  // weekday 0 = Monday
};

// "2016-07-01 00:00:00" read by hand; the weekday from the days since 1970-01-01 (a Thursday)
// by the civil-from-days inverse (H. Hinnant's days_from_civil).
Stamp stampOf(const std::string& cell) {
  const int y = std::stoi(cell.substr(0, 4)), m = std::stoi(cell.substr(5, 2)),
            d = std::stoi(cell.substr(8, 2)), h = std::stoi(cell.substr(11, 2));
  const int yy = m <= 2 ? y - 1 : y;
  const int era = yy / 400, yoe = yy - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long days = era * 146097L + doe - 719468L;
  return {m, d, static_cast<int>((days % 7 + 7 + 3) % 7), h};
}

std::vector<std::string> ettDates() {
  std::ifstream in(resourcePath("series/ett/ETTh1.csv"));
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::string> dates;
  while (std::getline(in, line)) dates.push_back(line.substr(0, line.find(',')));
  return dates;
}

PaperRun run(const std::string& model, int64_t horizon, uint64_t seed, double mse) {
  PaperRun r;
  r.model = model;
  r.features = "M";
  r.horizon = horizon;
  r.seed = seed;
  r.mse = r.mae = r.ot_mse = r.validation = mse;
  r.epochs = 6;
  r.seconds = 60;
  r.train_windows = 8521;
  return r;
}

}  // namespace

class TestInformer : public QObject {
  Q_OBJECT

 private slots:
  void marksAreTheCalendar() {
    const auto dates = ettDates();
    QCOMPARE(dates.front(), std::string("2016-07-01 00:00:00"));
    const auto first = stampOf(dates.front());
    QCOMPARE(first.weekday, 4);  // a Friday
    LongHorizonTaskOptions o;
    o.horizon = 24;
    const auto t = makeLongHorizonTask(o);
    const auto& d = *t.data;
    QCOMPARE(d.test.marks.sizes(), (torch::IntArrayRef{d.test.size(), 96 + 24, 4}));
    QCOMPARE(d.train.marks.size(0), d.train.size());
    QCOMPARE(d.validation.marks.size(0), d.validation.size());
    // Test window n starts at row 11424 + n; its marks cover rows s .. s + L + H − 1.
    for (int64_t n : {int64_t{0}, int64_t{1000}, d.test.size() - 1})
      for (int64_t k : {int64_t{0}, int64_t{95}, int64_t{96}, int64_t{119}}) {
        const auto want = stampOf(dates[static_cast<size_t>(11424 + n + k)]);
        const auto m = d.test.marks[n][k];
        QCOMPARE(m[0].item<int>(), want.month);
        QCOMPARE(m[1].item<int>(), want.day);
        QCOMPARE(m[2].item<int>(), want.weekday);
        QCOMPARE(m[3].item<int>(), want.hour);
      }
    QCOMPARE(d.train.marks[0][0][3].item<int>(), 0);  // row 0: hour 0
    QCOMPARE(d.train.marks[0][5][3].item<int>(), 5);
  }

  void eachModelTrainsAndForecasts() {
    for (const char* model : {"informer", "rsa-informer"}) {
      LongHorizonTaskOptions t;
      t.horizon = 24;
      t.train_fraction = 0.01;  // 86 windows: three batches an epoch
      const auto task = makeLongHorizonTask(t);
      PaperTableOptions o;
      o.d_model = 16;
      o.heads = 4;
      RunConfig c = paperRunConfig(o, model, 24, task.data->train.size(), 3);
      c.trainer.max_steps = 4;
      c.trainer.eval_every = 2;
      c.trainer.lr_halve_every = 2;
      Trainer trainer(c, task.data);
      std::vector<double> rates;
      trainer.onStep = [&](const StepMetrics& s) { rates.push_back(s.learning_rate); };
      trainer.run();
      QCOMPARE(trainer.stepsDone(), int64_t{4});
      QCOMPARE(rates.size(), size_t{4});
      QCOMPARE(rates[1], 1e-4);
      QCOMPARE(rates[2], 5e-5);  // halved after two steps
      QCOMPARE(rates[3], 5e-5);
      const auto f = trainer.forecasts("test");
      QCOMPARE(static_cast<int64_t>(f.size()), task.data->test.size() * 24 * 7);
      for (float v : f) QVERIFY(std::isfinite(v));
      const auto s = scoreLongHorizonTest(*task.data, f);
      QVERIFY(std::isfinite(s.mse) && s.mse > 0);
    }
  }

  void theBudgetIsInformers() {
    PaperTableOptions o;
    const auto c = paperRunConfig(o, "informer", 48, 8521, 0);
    QCOMPARE(c.trainer.optimizer, OptimizerKind::Adam);
    QCOMPARE(c.trainer.weight_decay, 0.0);
    QCOMPARE(c.trainer.grad_clip, 0.0);
    QCOMPARE(c.trainer.learning_rate, 1e-4);
    QCOMPARE(c.trainer.patience, int64_t{3});
    QCOMPARE(c.trainer.batch_size, int64_t{32});
    QCOMPARE(c.trainer.eval_every, int64_t{(8521 + 31) / 32});
    QCOMPARE(c.trainer.lr_halve_every, c.trainer.eval_every);
    QCOMPARE(c.trainer.max_steps, 6 * c.trainer.eval_every);
    QCOMPARE(c.model.layers, int64_t{2});
    QCOMPARE(c.model.decoder_layers, int64_t{1});
    QCOMPARE(c.model.d_model, o.d_model);
    QCOMPARE(c.task.length, o.input_length);
    QCOMPARE(c.model.label_length, o.input_length / 2);
    validate(c);
    // The paper size: Informer's width and its ETTh1 lengths per horizon.
    const auto p24 = informerSetting(o, 24, "paper");
    QCOMPARE(p24.d_model, int64_t{512});
    QCOMPARE(p24.heads, int64_t{8});
    QCOMPARE(p24.ff_mult * p24.d_model, int64_t{2048});
    QCOMPARE(p24.input_length, int64_t{48});
    QCOMPARE(p24.label_length, int64_t{48});
    QCOMPARE(p24.factor, int64_t{3});
    QCOMPARE(informerSetting(o, 48, "paper").input_length, int64_t{96});
    QCOMPARE(informerSetting(o, 336, "paper").label_length, int64_t{168});
    QVERIFY(test::contains(test::errorOf([&] { (void)informerSetting(o, 96, "paper"); }),
                           "H = 24, 48, 168 and 336"));
    QVERIFY(test::contains(test::errorOf([&] { (void)informerSetting(o, 24, "huge"); }),
                           "reduced or paper"));
  }

  void validationRefusesOtherTasks() {
    RunConfig c = defaultRunConfig();
    c.model.model = "informer";
    c.task.name = "seasonal";
    QVERIFY(test::contains(test::errorOf([&] { (void)validate(c); }), "long-horizon protocol"));
    PaperTableOptions o;
    RunConfig lh = paperRunConfig(o, "rsa-informer", 24, 8521, 0);
    lh.model.label_length = 200;
    QVERIFY(test::contains(test::errorOf([&] { (void)validate(lh); }), "label_length 200"));
    o.models = {"transformer", "informer"};
    QVERIFY(test::contains(test::errorOf([&] { (void)runPaperTable(o); }), "--informer"));
  }

  void theTableHasThePairAndItsVerdict() {
    std::vector<PaperRun> runs;
    for (uint64_t s = 0; s < 6; ++s) {
      runs.push_back(run("informer", 24, s, 0.9 + 0.01 * static_cast<double>(s)));
      runs.push_back(run("rsa-informer", 24, s, 0.7 + 0.01 * static_cast<double>(s)));
    }
    auto persistence = run("persistence", 24, 0, 1.5);
    runs.push_back(persistence);
    const auto v = horizonVerdict(runs, "rsa-informer", "informer", 24);
    QVERIFY(v.decided && v.holds);
    nlohmann::ordered_json j;
    j["settings"] = {{"series", "etth1"}, {"features", "M"},      {"input_length", 96},
                     {"horizons", {24}},  {"seeds", 3},           {"d_model", 32},
                     {"heads", 4},        {"layers", 2},          {"epochs", 3},
                     {"patience", 2},     {"batch_size", 32},     {"learning_rate", 1e-3},
                     {"parallel", 2},     {"threads_per_run", 1}, {"machine", "test"}};
    j["settings"]["informer"] = {
        {"size", "reduced"},
        {"models", {"informer", "rsa-informer"}},
        {"horizons", {24}},
        {"seeds", 6},
        {"d_model", 32},
        {"heads", 4},
        {"d_ff", 128},
        {"encoder_layers", 2},
        {"decoder_layers", 1},
        {"factor", 5},
        {"lengths", {{{"horizon", 24}, {"input_length", 96}, {"label_length", 48}}}},
        {"epochs", 6},
        {"patience", 3},
        {"batch_size", 32},
        {"learning_rate", 1e-4},
        {"seconds", 600}};
    j["seconds"] = 700;
    j["rows"] = nlohmann::ordered_json::parse(paperRowsJson(runs, {}));
    j["verdicts"] = nlohmann::ordered_json::array();
    j["informer_verdicts"] = {
        {{"horizon", 24}, {"claim", v.claim}, {"verdict", verdictWord(v)}, {"detail", v.detail}}};
    QCOMPARE(j["rows"][0]["kind"].get<std::string>(), std::string("forecaster"));
    const auto md = paperTableMarkdown(j.dump());
    const auto at = md.find("The RSA paper's own pair");
    QVERIFY(at != std::string::npos);
    const auto section = md.substr(at);
    QVERIFY(section.find("| informer | 0.925 [") != std::string::npos);
    QVERIFY(section.find("| rsa-informer | 0.725 [") != std::string::npos);
    QVERIFY(section.find("| persistence (reference, L = 96) | 1.500 |") != std::string::npos);
    QVERIFY(section.find("Informer paper") != std::string::npos);
    QVERIFY(section.find("| 0.577 |") != std::string::npos);  // its own table, H = 24
    QVERIFY(section.find("| 0.414 |") != std::string::npos);  // the RSA paper's, transcribed
    QVERIFY(section.find("holds: rsa-informer's test MSE is below informer's at horizon 24") !=
            std::string::npos);
    QVERIFY(section.find("(the table's shared L)") != std::string::npos);
    // The pair is not among the table's shared-budget rows.
    QVERIFY(md.substr(0, at).find("| informer |") == std::string::npos);
  }
};

RSALAB_TEST_MAIN(TestInformer)
#include "test_informer.moc"
