// SPDX-License-Identifier: GPL-3.0-or-later
// The trainer: bit-for-bit determinism, checkpoint resume, hot parameters, configs as JSON, the
// weights exported as safetensors, and "REM learns the truth" on the linear-recurrence teacher
// task.
#include <QTemporaryDir>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/core/config/run_config.h"
#include "engine/core/io/atomic_file.h"
#include "engine/core/io/safetensors.h"
#include "engine/core/registry/model_registry.h"
#include "engine/device.h"
#include "engine/training/model_export.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

RunConfig smallRun(const std::string& model, uint64_t seed) {
  RunConfig c;
  c.task.name = "seasonal";
  c.task.length = 32;
  c.task.validation_size = 64;
  c.task.test_size = 64;
  c.model.model = model;
  c.model.d_model = 16;
  c.model.heads = 4;
  c.model.layers = 1;
  c.train_size = 128;
  c.trainer.max_steps = 20;
  c.trainer.batch_size = 8;
  c.trainer.eval_every = 10;
  c.trainer.seed = seed;
  return c;
}

std::vector<double> losses(Trainer& trainer, int steps) {
  std::vector<double> out;
  for (int i = 0; i < steps; ++i) out.push_back(trainer.step().train_loss);
  return out;
}

// RSA with one REM head whose gate is held open (σ(µ) = σ(20) ≈ 1): attention = the REM.
RunConfig teacherRun(TeacherKind kind, double base, double theta) {
  RunConfig c;
  c.task.name = "teacher";
  c.task.length = 48;
  c.task.teacher_kinds = {kind};
  c.task.teacher_bases = {base};
  c.task.teacher_thetas = {theta};
  c.model.model = "rsa";
  c.model.d_model = 8;
  c.model.heads = 1;
  c.model.layers = 1;
  c.model.rem = RemHeadCounts{
      kind == TeacherKind::Regular ? 1 : 0, kind == TeacherKind::Cos ? 1 : 0, 0, 0, 0, 0};
  c.model.rem_init.mu = 20;
  c.model.rem_init.learn_gate = false;
  c.model.rem_init.eta_min = 0.2;  // start away from the truth: λ ≈ ±0.2..0.4
  c.model.rem_init.eta_max = 0.4;
  c.model.rem_init.nu_min = 0.0;  // γ ≈ 0.5..0.6
  c.model.rem_init.nu_max = 0.4;
  c.model.rem_init.theta = {1.0};  // θ starts at 1.0 (truth 0.524)
  c.train_size = 2048;
  c.trainer.max_steps = 1500;
  c.trainer.learning_rate = 1e-2;
  c.trainer.batch_size = 32;
  c.trainer.eval_every = 500;
  c.trainer.cosine = true;
  c.trainer.seed = 1;
  return c;
}

HeadInspection remHead(Trainer& trainer) {
  auto record = trainer.inspect(0);
  return record.layers.at(0).heads.at(0);
}

}  // namespace

class TestTrainer : public QObject {
  Q_OBJECT
 private slots:
  void sameSeedGivesIdenticalLossCurve() {
    for (const char* model : {"rsa", "lstm"}) {
      Trainer a(smallRun(model, 3)), b(smallRun(model, 3)), c(smallRun(model, 4));
      auto la = losses(a, 15), lb = losses(b, 15), lc = losses(c, 15);
      QVERIFY2(la == lb, model);  // bit for bit
      QVERIFY2(la != lc, model);
    }
  }
  // A run's numbers depend only on its own config and seed: trained alone, or while three other
  // runs (other seeds) are built and trained in other threads, it ends with the same test loss.
  // Model initialisation draws from LibTorch's process-wide generator, so without the lock
  // around seeding + building, the neighbours' draws interleave with this run's.
  void aRunBesideOtherThreadsEqualsTheRunAlone() {
    const int previous_threads = torch::get_num_threads();
    torch::set_num_threads(1);  // the same reduction order alone and beside the others
    auto config = [](uint64_t seed) {
      auto c = smallRun("rsa", seed);
      c.model.d_model = 64;
      c.model.layers = 3;
      c.trainer.max_steps = 2;
      return c;
    };
    const auto data = std::make_shared<const TaskData>(
        makeTask(config(1).task, config(1).train_size, config(1).trainer.seed));
    auto testLoss = [&](uint64_t seed) {
      Trainer t(config(seed), data);
      t.run();
      return t.evaluate("test").loss;
    };
    const double alone = testLoss(1);
    std::atomic<bool> done{false};
    std::vector<std::thread> others;
    for (uint64_t seed : {uint64_t{2}, uint64_t{3}, uint64_t{4}}) {
      others.emplace_back([&, seed] {
        while (!done.load()) {
          Trainer t(config(seed), data);  // seeding + initialisation draws, again and again
        }
      });
    }
    std::vector<double> beside;
    for (int k = 0; k < 20; ++k) beside.push_back(testLoss(1));
    done = true;
    for (auto& t : others) t.join();
    torch::set_num_threads(previous_threads);
    for (double loss : beside) QCOMPARE(loss, alone);
  }

  void resumeFromCheckpointContinuesTheSameCurve() {
    const QString path = QDir::temp().filePath("rsalab_test_checkpoint.pt");
    Trainer straight(smallRun("transformer", 5));
    auto all = losses(straight, 16);
    Trainer first(smallRun("transformer", 5));
    losses(first, 8);
    first.saveCheckpoint(path.toStdString());
    Trainer resumed(smallRun("transformer", 5));
    resumed.loadCheckpoint(path.toStdString());
    QCOMPARE(resumed.stepsDone(), int64_t{8});
    auto rest = losses(resumed, 8);
    QVERIFY(std::equal(rest.begin(), rest.end(), all.begin() + 8));
    QFile::remove(path);
  }
  // A NaN loss stops the run as Diverged without touching the weights; restoreLastGood() rolls
  // back to the last evaluation and the same curve continues from there.
  void divergencePausesAndRestoreResumesFromTheLastGoodState() {
    Trainer straight(smallRun("rsa", 6));
    auto all = losses(straight, 16);
    Trainer t(smallRun("rsa", 6));  // eval_every = 10
    t.faults.nan_loss_at_step = 14;
    for (int i = 0; i < 14 && !t.done(); ++i) t.advance();
    QCOMPARE(static_cast<int>(t.stopReason()), static_cast<int>(StopReason::Diverged));
    QCOMPARE(t.stepsDone(), int64_t{14});
    QCOMPARE(t.lastGoodStep(), int64_t{10});
    t.restoreLastGood();
    QVERIFY(!t.done());
    QCOMPARE(t.stepsDone(), int64_t{10});
    auto rest = losses(t, 6);  // the fault fired once: steps 11..16 replay the straight run
    QVERIFY(std::equal(rest.begin(), rest.end(), all.begin() + 10));
    // Without any evaluation yet, the last good state is the initial one.
    Trainer early(smallRun("gru", 6));
    early.faults.nan_loss_at_step = 3;
    QCOMPARE(static_cast<int>(early.run()), static_cast<int>(StopReason::Diverged));
    QCOMPARE(early.lastGoodStep(), int64_t{0});
    early.restoreLastGood();
    QCOMPARE(early.stepsDone(), int64_t{0});
  }
  void faultsInAStepThrowTheEngineErrors() {
    Trainer t(smallRun("lstm", 1));
    t.faults.throw_at_step = 2;
    t.step();
    QVERIFY_THROWS_EXCEPTION(c10::Error, t.step());
    QCOMPARE(t.stepsDone(), int64_t{1});  // the failed step did not count
    t.step();                             // fired once: step 2 now runs
    QCOMPARE(t.stepsDone(), int64_t{2});
    t.faults.throw_at_step = 3;
    t.faults.throw_kind = "bad_alloc";
    QVERIFY_THROWS_EXCEPTION(std::bad_alloc, t.step());
    t.faults.throw_at_step = 3;
    t.faults.throw_kind = "shape";
    try {
      t.step();
      QFAIL("no shape error");
    } catch (const c10::Error& e) {
      QVERIFY2(
          QString(e.what()).contains("cannot be multiplied") || QString(e.what()).contains("size"),
          e.what());
    }
  }
  void truncatedOrForeignCheckpointIsAClearError() {
    const QString path = QDir::temp().filePath("rsalab_test_bad_checkpoint.pt");
    Trainer t(smallRun("gru", 1));
    t.saveCheckpoint(path.toStdString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.resize(f.size() / 2));
    f.close();
    auto message = [&](Trainer& trainer) {
      try {
        trainer.loadCheckpoint(path.toStdString());
      } catch (const std::runtime_error& e) {
        return QString(e.what());
      }
      return QString();
    };
    QVERIFY(message(t).contains("not a RSA Lab checkpoint or truncated"));
    Trainer other(smallRun("rsa", 1));  // a whole checkpoint of another model
    Trainer gru(smallRun("gru", 1));
    gru.saveCheckpoint(path.toStdString());
    QVERIFY2(
        message(other).contains("does not fit this model") || message(other).contains("checkpoint"),
        qPrintable(message(other)));
    QFile::remove(path);
  }
  void runStopsAtMaxStepsAndEvaluates() {
    Trainer t(smallRun("gru", 2));
    int evals = 0;
    t.onEval = [&](const EvalMetrics& m) {
      ++evals;
      QVERIFY(m.split == Split::Validation);
      QVERIFY(m.values.count("mse") && m.values.count("mae"));
    };
    QCOMPARE(static_cast<int>(t.run()), static_cast<int>(StopReason::MaxSteps));
    QCOMPARE(t.stepsDone(), int64_t{20});
    QCOMPARE(evals, 2);
    t.onEval = nullptr;
    auto test = t.evaluate("test");
    QVERIFY(std::isfinite(test.loss) && test.loss > 0);
  }
  // Patience alone ends a run, with no minimum step: at the largest learning rate the validation
  // loss stops improving within a few evaluations, and patience 1 ends the run at the first
  // evaluation that did not improve, however early in the budget (it failed while patience waited
  // for a quarter of max_steps).
  void earlyStopFollowsPatienceAlone() {
    auto c = smallRun("gru", 3);
    c.trainer.learning_rate = 1;
    c.trainer.weight_decay = 0;
    c.trainer.max_steps = 80;
    c.trainer.eval_every = 2;
    c.trainer.patience = 1;
    Trainer t(c);
    std::vector<std::pair<int64_t, double>> evals;
    t.onEval = [&](const EvalMetrics& m) { evals.push_back({m.step, m.loss}); };
    QCOMPARE(static_cast<int>(t.run()), static_cast<int>(StopReason::EarlyStop));
    // The first evaluation that did not improve on the best before it.
    double best = 1e300;
    int64_t expected = 0;
    for (const auto& [step, loss] : evals) {
      if (loss < best - 1e-12)
        best = loss;
      else if (!expected)
        expected = step;
    }
    QVERIFY2(expected > 0 && expected < 20, qPrintable(QString::number(expected)));
    QCOMPARE(t.stepsDone(), expected);
    QCOMPARE(evals.back().first, expected);  // nothing evaluated after the stop
    c.trainer.patience = 0;                  // off: the whole budget
    Trainer off(c);
    QCOMPARE(static_cast<int>(off.run()), static_cast<int>(StopReason::MaxSteps));
  }
  void hotParametersApplyAtTheNextStepAndStopIsCooperative() {
    Trainer t(smallRun("rsa", 2));
    TrainingControl control;
    std::vector<double> rates;
    HotParameters hot = t.hot();
    QVERIFY(applyHotEdit(hot, "learning_rate", 1e-4));
    QVERIFY(applyHotEdit(hot, "weight_decay", 0.0));
    QVERIFY(applyHotEdit(hot, "grad_clip", 0.5));
    QVERIFY(!applyHotEdit(hot, "batch_size", 7));  // cold: not a hot edit
    QCOMPARE(hot.batch_size, t.hot().batch_size);
    t.onStep = [&](const StepMetrics& m) {
      rates.push_back(m.learning_rate);
      if (m.step == 5) control.setHot(hot);
      if (m.step == 9) control.stop = true;
    };
    QCOMPARE(static_cast<int>(t.run(&control)), static_cast<int>(StopReason::Requested));
    QCOMPARE(t.stepsDone(), int64_t{9});
    QCOMPARE(rates[4], 3e-3);
    QCOMPARE(rates[5], 1e-4);
    QCOMPARE(t.hot().grad_clip, 0.5);
    hot.learning_rate = -1.0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.applyHot(hot));
  }
  void warmupAndCosineSchedule() {
    auto c = smallRun("linear", 1);
    c.trainer.warmup_steps = 4;
    c.trainer.cosine = true;
    Trainer t(c);
    std::vector<double> rates;
    for (int i = 0; i < 20; ++i) rates.push_back(t.step().learning_rate);
    QCOMPARE(rates[0], 3e-3 / 4);
    QCOMPARE(rates[3], 3e-3);
    QVERIFY(rates[10] < rates[4] && rates[19] < rates[10]);
    QVERIFY(std::abs(rates[19] - 3e-4) < 1e-4);  // decays to 10%
  }
  void configJsonRoundTripsAndRejectsBadInput() {
    auto c = smallRun("rsa", 9);
    c.model.rem.dilated_cos = 1;
    c.task.periods = {7, 24};
    auto back = runConfigFromJson(toJson(c));
    QCOMPARE(toJson(back), toJson(c));
    auto message = [](const std::string& text) {
      try {
        runConfigFromJson(text);
      } catch (const std::invalid_argument& e) {
        return QString(e.what());
      }
      return QString();
    };
    QVERIFY(message(R"({"model": {"d_modle": 3}})").contains("model.d_modle"));
    QVERIFY(message(R"({"trainer": {"learning_rate": "fast"}})").contains("trainer.learning_rate"));
    QVERIFY(message(R"({"model": {"d_model": 30, "heads": 4}})").contains("not divisible"));
    QVERIFY(message(R"({"trainer": {"learning_rate": 0}})").contains("learning_rate"));
    QVERIFY(message("{not json").contains("not valid JSON"));
  }
  void deviceSelectionResolvesOrExplains() {
    QVERIFY(resolveDevice("cpu").is_cpu());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveDevice("tpu"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolveDevice("cuda:x"));
    if (!torch::cuda::is_available()) {
      QVERIFY(resolveDevice("auto").is_cpu());
      try {
        resolveDevice("cuda");
        QFAIL("cuda without a GPU must throw");
      } catch (const std::invalid_argument& e) {
        QVERIFY(QString(e.what()).contains("no CUDA"));
      }
    }
    auto c = smallRun("rsa", 1);
    c.device = "auto";
    Trainer t(c);
    t.step();
    QCOMPARE(QString::fromStdString(t.deviceName()),
             QString(torch::cuda::is_available() ? "CUDA:0" : "CPU"));
  }
  void seq2seqNeedsTheEncoderDecoder() {
    auto c = smallRun("transformer", 1);
    c.task.name = "copy";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Trainer{c});
    c.model.model = "encdec";
    Trainer t(c);
    t.step();
    QVERIFY(t.evaluate("test").values.count("exact_match"));
  }
  // rsalab-cli export: the weights of each model whose card says HasPeer written as safetensors
  // and read back: under the peer's names (tensor_names "peer": the engine names its parameters as
  // bench/peer/models.py does, which bench/peer/check_export.py checks against the peer itself),
  // every parameter once, file layout, shapes, values and metadata checked; the sample's outputs
  // are the model's on its inputs.
  void exportedWeightsReadBackUnderThePeersNames() {
    QTemporaryDir dir;
    int peers = 0;
    for (const auto& card : modelRegistry()) {
      if (!card.has(HasPeer)) continue;
      const std::string model = card.name;
      ++peers;
      Trainer trainer(smallRun(model, 3));
      losses(trainer, 2);  // trained weights, not the initialisation
      const auto exported = exportModel(trainer);
      const std::string path =
          dir.filePath(QString::fromStdString(model + ".safetensors")).toStdString();
      writeSafetensors(path, exported.weights);

      const std::string bytes = readTextFile(path, size_t{1} << 30);
      uint64_t n = 0;
      for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
      QCOMPARE(n % 8, uint64_t{0});  // the data start 8-byte aligned
      const auto header = nlohmann::json::parse(bytes.substr(8, n));
      QCOMPARE(header.at("__metadata__").at("tensor_names").get<std::string>(),
               std::string("peer"));

      const auto back = readSafetensors(path);
      std::vector<std::string> names, parameter_names;
      for (const auto& t : back.tensors) names.push_back(t.name);
      std::sort(names.begin(), names.end());
      std::map<std::string, torch::Tensor> params;
      for (const auto& [name, value] : trainer.namedParameters()) {
        params[name] = value;
        parameter_names.push_back(name);
      }
      std::sort(parameter_names.begin(), parameter_names.end());
      QVERIFY2(names == parameter_names, model.c_str());  // every parameter once, by its name
      size_t data = 0;
      for (const auto& t : back.tensors) {
        const auto& p = params.at(t.name);
        QCOMPARE(t.dtype, std::string("F32"));
        QCOMPARE(t.shape, std::vector<int64_t>(p.sizes().begin(), p.sizes().end()));
        QCOMPARE(t.bytes.size(), static_cast<size_t>(p.numel()) * sizeof(float));
        QVERIFY(std::memcmp(t.bytes.data(), p.contiguous().data_ptr<float>(), t.bytes.size()) == 0);
        QCOMPARE(header.at(t.name).at("data_offsets").at(0).get<size_t>(), data);
        data += t.bytes.size();
      }
      QCOMPARE(bytes.size(), 8 + n + data);
      QCOMPARE(back.metadata.at("model"), model);
      QCOMPARE(back.metadata.at("peer"),
               std::string("yes"));  // the peer's names, for every HasPeer
      QCOMPARE(runConfigFromJson(back.metadata.at("config")).model.d_model, int64_t{16});

      const auto& sample = exported.sample.tensors;
      QCOMPARE(sample.size(), size_t{2});
      QCOMPARE(sample[0].shape, (std::vector<int64_t>{4, 32, 1}));
      const auto x = torch::from_blob(const_cast<char*>(sample[0].bytes.data()), {4, 32, 1});
      const auto y = trainer.forwardModel(x.clone());
      QCOMPARE(sample[1].shape, std::vector<int64_t>(y.sizes().begin(), y.sizes().end()));
      QVERIFY(std::memcmp(sample[1].bytes.data(), y.contiguous().data_ptr<float>(),
                          sample[1].bytes.size()) == 0);
    }
    QVERIFY(peers > 0);
  }
  // A model the peer cannot build (a linear skip path beside it) keeps LibTorch's names and says
  // why; a truncated file names itself and what is wrong.
  void exportThePeerCannotBuildKeepsLibTorchNames() {
    // Not the peer's: a linear skip path beside the model.
    RunConfig skip = smallRun("transformer", 3);
    skip.model.skip_lags = 4;
    Trainer trainer(skip);
    const auto back =
        parseSafetensors(safetensorsBytes(exportModel(trainer).weights), "the skip export");
    QCOMPARE(back.metadata.at("tensor_names"), std::string("libtorch"));
    QVERIFY(back.metadata.at("peer").find("skip") != std::string::npos);
    QVERIFY(std::any_of(back.tensors.begin(), back.tensors.end(),
                        [](const auto& t) { return t.name == "linear_skip.weight"; }));
    // A truncated file names itself and what is wrong.
    const std::string bytes = safetensorsBytes(exportModel(trainer).weights);
    try {
      parseSafetensors(bytes.substr(0, bytes.size() - 4), "cut.safetensors");
      QFAIL("a truncated file was read");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("cut.safetensors") != std::string::npos, e.what());
    }
  }
  void remLearnsTheTrueLambda() {
    Trainer t(teacherRun(TeacherKind::Regular, 0.8, 0.0));
    const double before = remHead(t).lambda;
    t.run();
    const auto head = remHead(t);
    qInfo("regular REM: lambda %.4f -> %.4f (truth 0.8), gate %.6f, test mse %.3g", before,
          head.lambda, head.gate, t.evaluate("test").loss);
    QVERIFY(head.gate > 0.999);
    QVERIFY(std::abs(head.lambda - 0.8) < 0.05);
  }
  void cyclicalRemLearnsTrueGammaAndTheta() {
    const double theta = 2 * M_PI / 12;
    Trainer t(teacherRun(TeacherKind::Cos, 0.9, theta));
    t.run();
    const auto head = remHead(t);
    qInfo("cos REM: gamma %.4f (truth 0.9), theta %.4f (truth %.4f), test mse %.3g", head.gamma,
          head.theta, theta, t.evaluate("test").loss);
    QVERIFY(std::abs(head.gamma - 0.9) < 0.05 * 0.9);
    QVERIFY(std::abs(std::abs(head.theta) - theta) < 0.05 * theta);
  }
};

RSALAB_TEST_MAIN(TestTrainer)
#include "test_trainer.moc"
