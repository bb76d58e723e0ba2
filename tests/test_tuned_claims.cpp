// SPDX-License-Identifier: GPL-3.0-or-later
// Claims run at tuned configurations (`--tuned`, engine/core/sweep/tuned_set.h): a sweep's cells
// train at each model's chosen knobs with the sweep's own steps, N and seeds; a file of another
// task or a missing model is refused; plans, sweep.json and session bundles keep the set; a tuned
// preset record says so and gives each verdict at the shared defaults beside the tuned one; a
// figure1 corner swept alone is judged over all its cells; the paper table refuses a file tuned
// at another horizon and renders its tuned rows beside the shared defaults.
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "engine/core/session/session_bundle.h"
#include "engine/core/session/session_recorder.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/sweep/tuned_set.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/paper_table.h"
#include "engine/core/verdicts/preset_record.h"
#include "engine/core/verdicts/regime_map.h"
#include "engine/sweep/paper_table_run.h"
#include "engine/sweep/paper_table_tune.h"
#include "engine/sweep/sweep.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;

namespace {

RunConfig smallTask() {
  RunConfig c;
  c.task.name = "seasonal";
  c.task.length = 16;
  c.task.validation_size = 32;
  c.task.test_size = 32;
  c.model.model = "rnn";
  c.model.d_model = 16;
  c.model.layers = 1;
  c.trainer.batch_size = 8;
  c.trainer.max_steps = 6;
  c.trainer.eval_every = 3;
  c.trainer.learning_rate = 1e-6;
  return c;
}

// A tuned file as `rsalab-cli tune` writes it, its chosen trial's knobs given.
TunedModel tunedOn(const RunConfig& base, const std::string& model,
                   std::map<std::string, double> knobs) {
  TunedModel t;
  t.model = model;
  RunConfig b = base;
  b.model.model = model;
  b.train_size = 32;
  t.base_config = toJson(b);
  t.trials = 3;
  t.budget = 9;
  t.rungs = successiveHalvingRungs(3, 9, 3);
  t.default_parameters = 100;
  t.default_validation = 0.5;
  TunedTrial tr;
  tr.index = 2;
  tr.knobs = std::move(knobs);
  tr.parameters = 120;
  tr.losses = {0.6, 0.4};
  t.trial_list = {TunedTrial{0, {}, 90, 0, {0.9}, ""}, TunedTrial{1, {}, 95, 0, {0.8}, ""}, tr};
  t.chosen = 2;
  t.seconds = 12;
  return t;
}

SweepRow modelRow(const std::string& model, int64_t n, double a, uint64_t seed, double loss) {
  SweepRow row;
  row.model = model;
  row.size = n;
  row.seed = seed;
  row.axis_value = a;
  row.steps = 10;
  row.bayes_floor = 0;
  row.test_loss = loss;
  return row;
}

}  // namespace

class TestTunedClaims : public QObject {
  Q_OBJECT

 private slots:
  // Each cell trains at its model's tuned knobs, with the sweep's own steps, N and seed; the
  // plan's hash covers the set and plan.json and sweep.json give it back.
  void sweepCellsTrainAtTheTunedKnobs() {
    SweepOptions o;
    o.base = smallTask();
    o.models = {"rnn", "gru"};
    o.sizes = {16, 32};
    o.seeds = 2;
    o.tuned.models = {
        tunedOn(o.base, "rnn", {{"trainer.learning_rate", 0.01}, {"model.d_model", 24}}),
        tunedOn(o.base, "gru", {{"trainer.learning_rate", 0.003}})};
    const SweepPlan plan = makeSweepPlan(o);
    for (const auto& cell : plan.cells) {
      const RunConfig c = cellConfig(plan, cell);
      QCOMPARE(c.train_size, cell.size);
      QCOMPARE(c.trainer.seed, cell.seed);
      QCOMPARE(c.trainer.max_steps, int64_t{6});
      QCOMPARE(c.trainer.learning_rate, cell.model == "rnn" ? 0.01 : 0.003);
      QCOMPARE(c.model.d_model, cell.model == "rnn" ? int64_t{24} : int64_t{16});
    }
    SweepOptions plain = o;
    plain.tuned = {};
    QVERIFY(makeSweepPlan(plain).hash != plan.hash);
    const SweepPlan back = sweepPlanFromJson(sweepPlanJson(plan));
    QCOMPARE(back.hash, plan.hash);
    QCOMPARE(back.tuned.models.size(), size_t{2});
    QCOMPARE(cellConfig(back, back.cells[0]).trainer.learning_rate, 0.01);

    o.sizes = {16};
    o.seeds = 1;
    o.models = {"rnn"};
    const SweepResult result = runSweep(o);
    QCOMPARE(result.tuned.models.size(), size_t{2});
    int64_t rnn_rows = 0;
    for (const auto& row : result.rows) {
      if (row.reference) continue;
      ++rnn_rows;
      QVERIFY2(row.ok(), row.error.c_str());
    }
    QCOMPARE(rnn_rows, int64_t{1});
    const SweepResult reread = sweepResultFromJson(sweepJson(result));
    QCOMPARE(tunedLabel(reread.tuned, &reread.base), tunedLabel(result.tuned, &result.base));
  }

  // Every model needs a file, tuned on the sweep's task; the sweep's axis key may differ.
  void filesOfAnotherTaskOrMissingAreRefused() {
    SweepOptions o;
    o.base = smallTask();
    o.models = {"rnn", "gru"};
    o.sizes = {16};
    o.seeds = 1;
    o.tuned.models = {tunedOn(o.base, "rnn", {{"trainer.learning_rate", 0.01}})};
    QVERIFY(test::contains(test::errorOf([&] { makeSweepPlan(o); }), "no file for gru"));
    RunConfig other = o.base;
    other.task.length = 32;
    o.tuned.models.push_back(tunedOn(other, "gru", {}));
    const std::string error = test::errorOf([&] { makeSweepPlan(o); });
    QVERIFY2(test::contains(error, "task.length 32, this run's 16"), error.c_str());

    RunConfig mix = smallTask();
    mix.task.name = "mix";
    RunConfig tuned_at = mix;
    tuned_at.task.mix_share = 0.875;  // tuned in the middle of a corner
    SweepOptions corner;
    corner.base = mix;
    corner.models = {"rnn"};
    corner.sizes = {16};
    corner.seeds = 1;
    corner.axis = {"mix_share", {0.75, 1}};
    corner.tuned.models = {tunedOn(tuned_at, "rnn", {{"trainer.learning_rate", 0.01}})};
    const SweepPlan plan = makeSweepPlan(corner);
    QVERIFY(test::contains(tunedLabel(plan.tuned, &plan.base), "mix_share 0.875"));
    QVERIFY(test::contains(tunedLabel(plan.tuned, &plan.base), "N = 32"));
    QCOMPARE(tunedLabel(TunedSet{}), std::string("shared defaults"));
  }

  // A session bundle keeps the tuned set, and a reopened bundle has it.
  void sessionBundlesKeepTheTunedSet() {
    QTemporaryDir dir;
    SessionRecorder recorder;
    recorder.start(smallTask(), {"rnn"}, 1);
    recorder.setTuned(TunedSet{{tunedOn(smallTask(), "rnn", {{"trainer.learning_rate", 0.02}})}});
    recorder.addRun(0, "rnn", 0, 100);
    const std::string path = saveSession(recorder.bundle(), dir.filePath("s").toStdString());
    const SessionBundle back = loadSession(path);
    QCOMPARE(back.tuned.models.size(), size_t{1});
    QCOMPARE(back.tuned.models[0].chosenTrial().knobs.at("trainer.learning_rate"), 0.02);
    SessionRecorder reopened;
    reopened.load(back);
    QCOMPARE(reopened.bundle().tuned.models.size(), size_t{1});
    // A bundle without one stays without (older bundles have no key).
    recorder.setTuned({});
    QVERIFY(loadSession(saveSession(recorder.bundle(), path)).tuned.empty());
  }

  // A corner of figure1 swept alone is judged over its own cells (the whole-map rule would see a
  // single cell of a 2 × 2 map); a tuned record says so and gives each verdict beside the shared
  // defaults' on the same cells and seeds.
  void aTunedCornerRecordStandsBesideItsDefaults() {
    PresetRecord defaults;
    defaults.preset = "figure1";
    defaults.measured = "2026-11-27 on 2 cores";
    defaults.command = "rsalab-cli sweep --preset figure1";
    defaults.sweep.axis = {"mix_share", {0.5, 0.75, 1}};
    PresetRecord tuned = defaults;
    tuned.corner = "recurrent";
    tuned.label = "tuned-recurrent-corner";
    tuned.sweep.axis = {"mix_share", {0.75, 1}};
    tuned.sweep.tuned.models = {tunedOn(defaults.sweep.base, "rnn", {}),
                                tunedOn(defaults.sweep.base, "rsa", {})};
    for (double a : {0.5, 0.75, 1.0})
      for (int64_t n : {16, 64, 256})
        for (uint64_t seed = 0; seed < 3; ++seed) {
          // At the shared defaults rsa wins everywhere; tuned, the rnn wins the corner.
          defaults.sweep.rows.push_back(modelRow("rnn", n, a, seed, 0.3 + 0.001 * seed));
          defaults.sweep.rows.push_back(modelRow("rsa", n, a, seed, 0.1 + 0.002 * seed));
          if (a < 0.75 || n > 64) continue;
          tuned.sweep.rows.push_back(modelRow("rnn", n, a, seed, 0.05 + 0.001 * seed));
          tuned.sweep.rows.push_back(modelRow("rsa", n, a, seed, 0.2 + 0.002 * seed));
        }
    const auto verdicts = presetRecordVerdicts(tuned, tuned.sweep);
    QCOMPARE(verdicts.size(), size_t{2});
    QVERIFY2(test::contains(verdicts[0].detail, "4 of 4 cells won outright"),
             verdicts[0].detail.c_str());
    QVERIFY(verdicts[0].decided && verdicts[0].holds);
    const auto whole = figure1Verdicts(buildRegimeMap(regimePoints(tuned.sweep.rows)));
    QVERIFY2(test::contains(whole[0].detail, "1 of 1 cells"), whole[0].detail.c_str());

    const PresetRecord both = presetRecordWithDefaults(tuned, defaults, "docs/data/figure1.json");
    int64_t kept = 0;
    for (const auto& r : both.defaults.rows) kept += !r.reference;
    QCOMPARE(kept, int64_t{2 * 2 * 2 * 3});  // models × shares × sizes × seeds of the corner
    const std::string block = presetRecordBlock(both);
    QVERIFY2(test::contains(block, "Configurations: tuned (budget: 3 trials"), block.c_str());
    QVERIFY2(test::contains(block, "Shared defaults: does not hold"), block.c_str());
    QVERIFY2(test::contains(block, "tuned: holds"), block.c_str());
    QVERIFY2(test::contains(block, "changed by tuning"), block.c_str());
    QVERIFY2(test::contains(block, "preset figure1-tuned-recurrent-corner: begin"), block.c_str());
    const PresetRecord back = presetRecordFromJson(presetRecordJson(both), "record");
    QCOMPARE(presetRecordBlock(back), block);
    QVERIFY(test::contains(presetRecordBlock(defaults), "Configurations: shared defaults"));

    PresetRecord elsewhere = defaults;
    elsewhere.sweep.base.task.length = 99;
    QVERIFY(test::contains(test::errorOf([&] { presetRecordWithDefaults(tuned, elsewhere, "x"); }),
                           "another task"));
  }

  // The paper table: a file tuned at another horizon is refused; a tuned table renders its
  // configurations and its verdicts beside the shared defaults'.
  void paperTableTunedBesideItsDefaults() {
    PaperTableOptions o;
    o.horizons = {24};
    o.models = {"transformer", "rsa"};
    o.univariate_horizon = 0;
    PaperTableOptions at48 = o;
    at48.horizons = {48};
    for (const auto& m : o.models)
      o.tuned.models.push_back(
          tunedOn(paperRunConfig(at48, m, 48, 100, 0), m, {{"trainer.learning_rate", 0.002}}));
    const std::string error = test::errorOf([&] { requirePaperTuned(o); });
    QVERIFY2(test::contains(error, "task.horizon 48, this run's 24"), error.c_str());
    o.horizons = {48};
    requirePaperTuned(o);
    QCOMPARE(paperRunConfig(o, "rsa", 48, 100, 1).trainer.learning_rate, 0.002);
    o.univariate_horizon = 96;
    QVERIFY(test::contains(test::errorOf([&] { requirePaperTuned(o); }), "M rows only"));

    std::vector<PaperRun> tuned_runs, shared_runs;
    for (uint64_t seed = 0; seed < 6; ++seed)
      for (const char* model : {"transformer", "rsa"}) {
        PaperRun r;
        r.model = model;
        r.features = "M";
        r.horizon = 48;
        r.seed = seed;
        r.mse = (std::string(model) == "rsa" ? 0.5 : 0.6) + 0.01 * seed;
        tuned_runs.push_back(r);
        r.mse = (std::string(model) == "rsa" ? 0.7 : 0.6) + 0.01 * seed;
        shared_runs.push_back(r);
      }
    o.univariate_horizon = 0;
    o.beside = shared_runs;
    o.beside_sources = {"docs/data/paper_table.json"};
    nlohmann::json j = nlohmann::json::parse(
        R"({"settings": {"series": "etth1", "input_length": 96, "horizons": [48], "seeds": 6,
            "univariate_horizon": 0, "d_model": 32, "heads": 4, "layers": 2, "epochs": 3,
            "patience": 2, "batch_size": 32, "learning_rate": 0.001, "parallel": 2,
            "threads_per_run": 1, "machine": "2 cores"}, "seconds": 60})");
    j["settings"]["tuned"] = nlohmann::json::parse(tunedSetJson(o.tuned));
    j["rows"] = nlohmann::json::parse(paperRowsJson(tuned_runs, {}));
    const auto v = horizonVerdict(tuned_runs, "rsa", "transformer", 48);
    j["verdicts"] = {
        {{"horizon", 48}, {"claim", v.claim}, {"verdict", verdictWord(v)}, {"detail", v.detail}}};
    j["shared_defaults"] = nlohmann::json::parse(sharedDefaultsJson(o));
    const std::string md = paperTableMarkdown(j.dump());
    QVERIFY2(test::contains(md, "Configurations: tuned (budget: 3 trials"), md.c_str());
    QVERIFY2(test::contains(md, "shared defaults does not hold, tuned holds (changed by tuning)"),
             md.c_str());
    j.erase("shared_defaults");
    j["settings"].erase("tuned");
    QVERIFY(test::contains(paperTableMarkdown(j.dump()), "Configurations: shared defaults"));
  }
};

RSALAB_TEST_MAIN(TestTunedClaims)
#include "test_tuned_claims.moc"
