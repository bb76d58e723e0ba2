// SPDX-License-Identifier: GPL-3.0-or-later
// `rsalab-cli tune` (engine/training/tune_run.h): the successive-halving rungs and survivors, the
// search spaces read from the option tables, and on a task whose shared learning rate is
// deliberately wrong (1e-6): tuning finds a lower validation loss than the shared default, the
// same seed gives the same choice on 1 and 2 workers, a poisoned test split changes nothing, and
// a run resumed from its folder ends as the run that was not interrupted.
#include <QTemporaryDir>
#include <cmath>
#include <filesystem>

#include "engine/core/config/search_space.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/sweep/tuning.h"
#include "engine/training/tune_run.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

RunConfig wrongLearningRate() {
  RunConfig c;
  c.task.name = "seasonal";
  c.task.length = 16;
  c.task.validation_size = 64;
  c.task.test_size = 64;
  c.model.model = "rnn";
  c.model.d_model = 16;
  c.model.layers = 1;
  c.train_size = 128;
  c.trainer.batch_size = 8;
  c.trainer.eval_every = 10;
  c.trainer.learning_rate = 1e-6;  // deliberately wrong: 90 steps at it barely move the weights
  c.trainer.seed = 3;
  return c;
}

TuneRequest request(const std::string& dir, int64_t workers) {
  TuneRequest q;
  q.base = wrongLearningRate();
  q.models = {"rnn"};
  q.trials = 9;
  q.budget = 90;
  q.workers = workers;
  q.out_dir = dir;
  return q;
}

// Same trials, same losses, same choice.
void requireSame(const TunedModel& a, const TunedModel& b) {
  QCOMPARE(a.chosen, b.chosen);
  QCOMPARE(a.trial_list.size(), b.trial_list.size());
  for (size_t i = 0; i < a.trial_list.size(); ++i) {
    QVERIFY(a.trial_list[i].knobs == b.trial_list[i].knobs);
    QCOMPARE(a.trial_list[i].losses.size(), b.trial_list[i].losses.size());
    for (size_t k = 0; k < a.trial_list[i].losses.size(); ++k) {
      const double x = a.trial_list[i].losses[k], y = b.trial_list[i].losses[k];
      QVERIFY((std::isnan(x) && std::isnan(y)) || x == y);
    }
  }
  QCOMPARE(a.default_validation, b.default_validation);
}

}  // namespace

class TestTune : public QObject {
  Q_OBJECT
 private slots:
  void rungsFollowHyperbandsBracket() {
    const auto r = successiveHalvingRungs(27, 2700, 3);
    QCOMPARE(r.size(), size_t{4});
    const int64_t trials[] = {27, 9, 3, 1}, steps[] = {100, 300, 900, 2700};
    for (size_t k = 0; k < 4; ++k) {
      QCOMPARE(r[k].trials, trials[k]);
      QCOMPARE(r[k].steps, steps[k]);
    }
    const auto ten = successiveHalvingRungs(10, 90, 3);  // 10, 3, 1 at 10, 30, 90
    QCOMPARE(ten.size(), size_t{3});
    QCOMPARE(ten[0].trials, int64_t{10});
    QCOMPARE(ten[1].trials, int64_t{3});
    QCOMPARE(ten[0].steps, int64_t{10});
    QCOMPARE(successiveHalvingRungs(1, 50).size(), size_t{1});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, successiveHalvingRungs(0, 50));
    // Lowest losses survive; NaN and inf (diverged) last; ties to the lower index.
    const auto s = survivors({4, 7, 9, 12}, {0.5, NAN, 0.2, 0.5}, 2);
    QCOMPARE(s, (std::vector<int64_t>{4, 9}));
    QCOMPARE(survivors({1, 2}, {HUGE_VAL, NAN}, 1), (std::vector<int64_t>{1}));
  }

  void searchSpacesComeFromTheOptionTables() {
    for (const auto& model : modelNames()) {
      for (const auto& k : searchKnobs(model)) {
        SearchRng rng(7);
        for (int i = 0; i < 200; ++i) {
          const double v = drawKnob(k, rng);
          QVERIFY2(v >= k.range.low && v <= k.range.high, k.key.c_str());
          if (k.integral || k.flag) QCOMPARE(v, std::round(v));
        }
      }
    }
    auto keys = [](const std::string& m) {
      std::vector<std::string> out;
      for (const auto& k : searchKnobs(m)) out.push_back(k.key);
      return out;
    };
    auto has = [](const std::vector<std::string>& v, const std::string& k) {
      return std::find(v.begin(), v.end(), k) != v.end();
    };
    for (const auto& m : {"rnn", "transformer", "rsa", "retnet"})
      for (const auto& k : {"trainer.learning_rate", "trainer.weight_decay", "trainer.warmup_steps",
                            "model.d_model", "model.layers"})
        QVERIFY2(has(keys(m), k), (std::string(m) + " " + k).c_str());
    QVERIFY(has(keys("rsa"), "model.rem_init.mu"));
    QVERIFY(has(keys("rsa"), "model.rem.cos"));
    QVERIFY(has(keys("rsa"), "model.rem_init.nu_max"));
    QVERIFY(has(keys("rsa"), "model.heads"));
    QVERIFY(!has(keys("transformer"), "model.rem_init.mu"));
    QVERIFY(!has(keys("rnn"), "model.heads"));  // an RNN has none
    QVERIFY(has(keys("retnet"), "model.retnet_learnable_decay"));
    QVERIFY(has(keys("retnet"), "model.retnet_rotation"));
    QVERIFY(!has(keys("rsa"), "model.retnet_rotation"));
    QVERIFY(!has(keys("dlinear"), "model.d_model"));  // a map of its window: no width
    QVERIFY(has(keys("dlinear"), "trainer.learning_rate"));
    // A draw validates, keeps a REM head and stays within the cap; one seed, one stream.
    const RunConfig base = wrongLearningRate();
    SearchRng a(11), b(11);
    const auto count = [](const RunConfig& c) { return c.model.d_model * c.model.layers; };
    for (int i = 0; i < 20; ++i) {
      const RunConfig x = drawConfig(base, "rsa", a, count, 128);
      const RunConfig y = drawConfig(base, "rsa", b, count, 128);
      QCOMPARE(toJson(x), toJson(y));
      QVERIFY(x.model.rem.total() >= 1 && x.model.rem.total() <= x.model.heads);
      QVERIFY(count(x) <= 128);
    }
    SearchRng c(1);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, drawConfig(base, "rsa", c, count, 1, 50));
    QVERIFY(searchSpaceText({"rnn", "rsa"}).find("rsa: trainer.learning_rate log") !=
            std::string::npos);
  }

  void tuningBeatsAWrongDefaultOnValidationOnly() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    const TunedModel one = runTune(request(root + "/one", 1)).front();
    // A lower validation loss than the shared default's at the same budget.
    const TunedTrial& chosen = one.chosenTrial();
    QVERIFY2(
        chosen.losses.back() < 0.8 * one.default_validation,
        (std::to_string(chosen.losses.back()) + " vs " + std::to_string(one.default_validation))
            .c_str());
    QVERIFY(chosen.knobs.at("trainer.learning_rate") > 1e-4);
    QCOMPARE(one.rungs.size(), size_t{3});  // 9, 3, 1 trials at 10, 30, 90 steps
    QCOMPARE(chosen.losses.size(), size_t{3});
    QVERIFY(chosen.parameters <= one.parameter_cap);
    QCOMPARE(one.parameter_cap, 4 * one.default_parameters);
    QVERIFY(one.total_flops > 0 && one.default_flops_per_step > 0);
    // The file reads back, and train --tuned's configuration is the chosen trial's.
    const std::string file = root + "/one/rnn.tuned.json";
    const TunedModel back = tunedModelFromJson(readTextFile(file, 1 << 24), file);
    requireSame(one, back);
    QCOMPARE(tunedConfig(back).trainer.learning_rate, chosen.knobs.at("trainer.learning_rate"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, tunedModelFromJson("{}", "x.json"));

    // Two workers: the same choice.
    requireSame(one, runTune(request(root + "/two", 2)).front());

    // A poisoned test split (NaN inputs, huge targets) changes nothing: the test is never read.
    RunConfig b = wrongLearningRate();
    auto clean = std::make_shared<TaskData>(makeTask(b.task, b.train_size, b.trainer.seed));
    clean->test.x = torch::full_like(clean->test.x, NAN);
    clean->test.y = torch::full_like(clean->test.y, 1e30);
    TuneRequest poisoned = request(root + "/poisoned", 2);
    poisoned.data = clean;
    requireSame(one, runTune(poisoned).front());

    // Resumed: the last rung's result removed, the run again finishes it from the checkpoint.
    const std::string trial = root + "/one/rnn/trial-" +
                              std::string(chosen.index < 10 ? "00" : "0") +
                              std::to_string(chosen.index);
    QVERIFY(std::filesystem::remove(trial + "/rung-2.json"));
    requireSame(one, runTune(request(root + "/one", 1)).front());
    // Other settings in the same folder are refused.
    TuneRequest other = request(root + "/one", 1);
    other.trials = 5;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runTune(other));
  }
};

RSALAB_TEST_MAIN(TestTune)
#include "test_tune.moc"
