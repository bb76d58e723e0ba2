// SPDX-License-Identifier: GPL-3.0-or-later
// Session bundles (engine/core/session/session_bundle): round trip, interrupted saves, hostile
// manifests, and the inspection JSON reader.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/core/io/atomic_file.h"
#include "engine/core/io/enums.h"
#include "engine/core/io/inspection_io.h"
#include "engine/core/session/run_record.h"
#include "engine/core/session/session_bundle.h"
#include "engine/core/sweep/sweep_io.h"
#include "engine/sweep/sweep.h"
#include "support/test_registry.h"

using namespace rsalab;
namespace fs = std::filesystem;

namespace {

Matrix matrix(int64_t rows, int64_t cols, float scale) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  for (int64_t i = 0; i < rows * cols; ++i)
    m.values.push_back(scale * static_cast<float>(i) / 7.0f - 0.3f);
  return m;
}

InspectionRecord rsaRecord(float scale) {
  InspectionRecord r;
  r.model = "rsa";
  r.sample = 2;
  LayerInspection layer;
  HeadInspection h;
  h.attention = matrix(5, 5, scale);
  h.softmax_part = matrix(5, 5, scale * 0.5f);
  h.rem = matrix(5, 5, -scale);
  h.has_rem = true;
  h.rem_kind = RemKind::Cos;
  h.dilation = 2;
  h.gamma = 0.91;
  h.theta = 0.5235987755982988;
  h.gate = 0.25;
  layer.heads.push_back(h);
  HeadInspection plain;
  plain.attention = matrix(5, 5, 2 * scale);
  layer.heads.push_back(plain);
  r.layers.push_back(layer);
  GateTrace g;
  g.layer = 0;
  g.gate = "f";
  g.values = matrix(5, 3, scale);
  r.gates.push_back(g);
  return r;
}

SessionBundle sampleBundle() {
  SessionBundle b;
  b.config.task.name = "teacher";
  b.config.task.length = 40;
  b.config.model.d_model = 48;
  b.config.trainer.learning_rate = 0.0123;
  b.config.train_size = 333;
  b.models = {"rsa", "gru"};
  b.seeds = 1;
  for (int id = 0; id < 2; ++id) {
    SessionRun run;
    run.id = id;
    run.model = b.models[static_cast<size_t>(id)];
    run.seed = 7;
    run.train_size = 16 << id;
    run.state = id == 0 ? RunState::Finished : RunState::Stopped;
    run.parameters = 1234 + id;
    for (int s = 1; s <= 20; ++s) {
      StepMetrics m;
      m.step = s;
      m.samples_seen = 32 * s;
      m.train_loss = 1.0 / (s + id) + 1e-13;
      m.learning_rate = 0.0123 * s / 20.0;
      m.grad_norm = 0.1 * s;
      m.seconds = 0.01 * s;
      run.steps.push_back(m);
    }
    EvalMetrics e;
    e.step = 10;
    e.samples_seen = 320;  // the loss view places validation points at it
    e.split = Split::Validation;
    e.loss = 0.321;
    e.values = {{"mse", 0.321}, {"mae", 0.45}};
    run.evals.push_back(e);
    e.split = Split::Test;
    e.values = {{"accuracy", 0.875}};
    run.evals.push_back(e);
    run.snapshots = {{1, rsaRecord(1.0f)}, {20, rsaRecord(3.0f)}};
    b.runs.push_back(run);
  }
  b.sweep_json =
      R"({"runs": [{"model": "rsa", "size": 16, "seed": 7, "test_loss": 0.5}], "fits": []})";
  b.layout = std::string("\x00\x01layout\xff", 9);
  return b;
}

void compareRecords(const InspectionRecord& a, const InspectionRecord& b) {
  QCOMPARE(a.model, b.model);
  QCOMPARE(a.sample, b.sample);
  QCOMPARE(a.layers.size(), b.layers.size());
  for (size_t l = 0; l < a.layers.size(); ++l) {
    QCOMPARE(a.layers[l].heads.size(), b.layers[l].heads.size());
    for (size_t h = 0; h < a.layers[l].heads.size(); ++h) {
      const auto &x = a.layers[l].heads[h], &y = b.layers[l].heads[h];
      QCOMPARE(x.attention.values, y.attention.values);
      QCOMPARE(x.attention.rows, y.attention.rows);
      QCOMPARE(x.has_rem, y.has_rem);
      QCOMPARE(x.rem.values, y.rem.values);
      QCOMPARE(x.softmax_part.values, y.softmax_part.values);
      QVERIFY(x.rem_kind == y.rem_kind);
      QCOMPARE(x.dilation, y.dilation);
      QCOMPARE(x.gamma, y.gamma);
      QCOMPARE(x.theta, y.theta);
      QCOMPARE(x.gate, y.gate);
    }
  }
  QCOMPARE(a.gates.size(), b.gates.size());
  for (size_t g = 0; g < a.gates.size(); ++g) {
    QCOMPARE(a.gates[g].gate, b.gates[g].gate);
    QCOMPARE(a.gates[g].values.values, b.gates[g].values.values);
  }
}

void expectError(const std::string& manifest, const QString& expected) {
  try {
    parseSessionManifest(manifest);
  } catch (const SessionError& e) {
    const QString message = QString::fromStdString(e.what());
    if (!message.contains(expected)) qWarning() << "message was:" << message;
    QVERIFY2(message.contains("manifest.json"), qPrintable(message));
    QVERIFY2(message.contains(expected), qPrintable(message));
    return;
  }
  QFAIL(qPrintable("no error for a manifest that should give: " + expected));
}

}  // namespace

class TestSessionBundle : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir tmp_;
  std::string path(const char* name) const {
    return (fs::path(tmp_.path().toStdString()) / name).string();
  }

 private slots:
  void roundTripKeepsEverything() {
    const SessionBundle saved = sampleBundle();
    const std::string dir = saveSession(saved, path("round"));
    QVERIFY(QString::fromStdString(dir).endsWith(".rsalab"));
    QVERIFY(fs::exists(fs::path(dir) / "manifest.json"));
    QVERIFY(fs::exists(fs::path(dir) / "metrics/run-1.csv"));
    QVERIFY(fs::exists(fs::path(dir) / "inspection/run-0.json"));
    const SessionBundle loaded = loadSession(path("round"));  // the suffix is optional
    QCOMPARE(toJson(loaded.config), toJson(saved.config));
    QCOMPARE(loaded.models, saved.models);
    QCOMPARE(loaded.seeds, saved.seeds);
    QVERIFY(!loaded.created.empty());
    QCOMPARE(loaded.runs.size(), saved.runs.size());
    for (size_t i = 0; i < saved.runs.size(); ++i) {
      const auto &a = saved.runs[i], &b = loaded.runs[i];
      QCOMPARE(b.id, a.id);
      QCOMPARE(b.model, a.model);
      QCOMPARE(b.seed, a.seed);
      QCOMPARE(b.train_size, a.train_size);
      QVERIFY(b.state == a.state);
      QCOMPARE(b.parameters, a.parameters);
      QCOMPARE(b.steps.size(), a.steps.size());
      for (size_t s = 0; s < a.steps.size(); ++s) {
        QCOMPARE(b.steps[s].step, a.steps[s].step);
        QCOMPARE(b.steps[s].samples_seen, a.steps[s].samples_seen);
        QCOMPARE(b.steps[s].train_loss, a.steps[s].train_loss);  // exact, not fuzzy
        QCOMPARE(b.steps[s].learning_rate, a.steps[s].learning_rate);
        QCOMPARE(b.steps[s].grad_norm, a.steps[s].grad_norm);
        QCOMPARE(b.steps[s].seconds, a.steps[s].seconds);
      }
      QCOMPARE(b.evals.size(), a.evals.size());
      for (size_t e = 0; e < a.evals.size(); ++e) {
        QVERIFY(b.evals[e].split == a.evals[e].split);
        QCOMPARE(b.evals[e].samples_seen, a.evals[e].samples_seen);
        QCOMPARE(b.evals[e].loss, a.evals[e].loss);
        QCOMPARE(b.evals[e].values, a.evals[e].values);
      }
      QCOMPARE(b.snapshots.size(), a.snapshots.size());
      for (size_t s = 0; s < a.snapshots.size(); ++s) {
        QCOMPARE(b.snapshots[s].first, a.snapshots[s].first);
        compareRecords(b.snapshots[s].second, a.snapshots[s].second);
      }
    }
    QCOMPARE(loaded.sweep_json, saved.sweep_json);
    const auto sweep_rows = parseSessionSweepRows(loaded.sweep_json);
    QCOMPARE(sweep_rows.size(), size_t{1});
    QCOMPARE(sweep_rows[0].size, int64_t{16});
    QCOMPARE(sweep_rows[0].test_loss, 0.5);
    QCOMPARE(loaded.layout, saved.layout);
  }

  // A bundle's runs and a sweep's run become Runs at the boundary with what their task knew: the
  // REM truth, T, the references, N and state. Bundles written before 2026-11-27 had no truth.
  void runsKeepTheirTruthAndReferencesAcrossTheBoundary() {
    SessionBundle saved = sampleBundle();
    saved.truth.components = {{RemKind::Regular, 0.8, 0}, {RemKind::Cos, 0.97, 0.5236}};
    saved.truth.description = "AR(1) λ=0.8 + season P=12";
    saved.truth.bayes_floor = 0.01;
    saved.length = 48;
    saved.references = {{"persistence", "persistence", 0.4, 0.5}};
    saveSession(saved, path("truth"));
    const SessionBundle loaded = loadSession(path("truth"));
    const std::vector<Run> runs = runsOfSession(loaded);
    QCOMPARE(runs.size(), saved.runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      QVERIFY(runs[i].id == RunId(RunSource::Session, saved.runs[i].id));
      QVERIFY(!(runs[i].id == RunId(saved.runs[i].id)));  // never a live run's id
      QCOMPARE(runs[i].what.model, saved.runs[i].model);
      QCOMPARE(runs[i].what.truth.components.size(), size_t{2});
      QCOMPARE(runs[i].what.truth.components[1].theta, 0.5236);
      QVERIFY(runs[i].what.truth.components[1].kind == RemKind::Cos);
      QCOMPARE(runs[i].what.truth.description, saved.truth.description);
      QCOMPARE(runs[i].what.truth.bayes_floor, 0.01);
      QCOMPARE(runs[i].what.length, int64_t{48});
      QCOMPARE(runs[i].what.references.size(), size_t{1});
      QVERIFY(runs[i].now.state == saved.runs[i].state);
    }
    // A sweep's run: its truth and T travel in sweep.json; its references are the sweep's
    // reference rows of the same N and seed (not those of another N).
    SweepRow row;
    row.run = 7;
    row.model = "rsa";
    row.size = 64;
    row.seed = 2;
    row.steps = 300;
    row.test_loss = 0.2;
    row.bayes_floor = 0.01;
    row.truth = saved.truth;
    row.length = 48;
    SweepRow same = row, other = row;
    same.reference = other.reference = true;
    same.model = "persistence";
    same.test_loss = 0.3;
    same.best_validation = 0.35;
    other.model = "persistence";
    other.size = 256;
    SweepResult result;
    result.rows = {row, same, other};
    const SweepResult back = sweepResultFromJson(sweepJson(result));
    const Run run = runOfSweepRow(back.rows[0], back.rows);
    QVERIFY(run.id == RunId(RunSource::Sweep, 7));
    QCOMPARE(run.what.truth.components.size(), size_t{2});
    QCOMPARE(run.what.length, int64_t{48});
    QCOMPARE(run.what.train_size, int64_t{64});
    QCOMPARE(run.what.references.size(), size_t{1});
    QCOMPARE(run.what.references[0].validation_loss, 0.35);
    QCOMPARE(run.now.test_loss, 0.2);
    QVERIFY(run.now.state == RunState::Finished);
  }

  void checkpointsAreWrittenAndCarriedOver() {
    SessionBundle b = sampleBundle();
    const std::string dir =
        saveSession(b, path("ckpt"),
                    {[](int64_t id, const std::string& p) {
                       writeFileAtomically(p, "checkpoint of run " + std::to_string(id));
                       return true;
                     },
                     {}});
    SessionBundle loaded = loadSession(dir);
    QVERIFY(!loaded.runs[1].checkpoint_file.empty());
    // Saved again without a checkpoint writer (an offline session): the files are copied over.
    const std::string again = saveSession(loaded, path("ckpt"));
    const SessionBundle reloaded = loadSession(again);
    QCOMPARE(readTextFile(reloaded.runs[1].checkpoint_file, 100),
             std::string("checkpoint of run 1"));
  }

  void interruptedSaveLeavesPreviousBundle() {
    SessionBundle first = sampleBundle();
    const std::string dir = saveSession(first, path("crash"));
    SessionBundle second = sampleBundle();
    second.models = {"transformer"};
    second.runs[0].steps.resize(3);
    int written = 0;
    SessionSaveHooks hooks;
    hooks.after_file = [&](const std::string& file) {
      if (++written == 3) throw std::runtime_error("simulated crash after " + file);
    };
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, saveSession(second, path("crash"), hooks));
    QVERIFY(written == 3);
    const SessionBundle loaded = loadSession(dir);
    QCOMPARE(loaded.models, first.models);
    QCOMPARE(loaded.runs[0].steps.size(), first.runs[0].steps.size());
    for (const auto& entry : fs::directory_iterator(tmp_.path().toStdString())) {
      QVERIFY2(entry.path().filename().string().find(".tmp-") == std::string::npos,
               "temporary folder left behind");
    }
  }

  void crashBetweenRenamesOpensTheBackup() {
    const std::string dir = saveSession(sampleBundle(), path("swap"));
    fs::rename(dir, dir + ".bak-1234abcd");  // what a kill between the two renames leaves
    const SessionBundle loaded = loadSession(dir);
    QCOMPARE(loaded.runs.size(), size_t{2});
    QVERIFY(QString::fromStdString(loaded.loaded_from).endsWith(".bak-1234abcd"));
  }

  void malformedManifestsNameFileAndKey() {
    expectError("{not json", "not valid JSON");
    expectError("[1, 2]", "must be a JSON object");
    expectError(R"({"format": "zip"})", "\"format\"");
    const std::string good =
        R"({"format": "rsalab-session", "format_version": 1, "app_version": "0.1.0",
      "created": "x", "updated": "y", "config": {}, "models": ["rsa"], "seeds": 1,
      "runs": [{"id": 0, "model": "rsa", "seed": 1, "status": "finished"}]})";
    QCOMPARE(parseSessionManifest(good).runs.size(), size_t{1});
    auto with = [&](const std::string& from, const std::string& to) {
      std::string s = good;
      s.replace(s.find(from), from.size(), to);
      return s;
    };
    expectError(with("\"format_version\": 1", "\"format_version\": 99"),
                "format_version 99 is not supported");
    expectError(with("\"format_version\": 1", "\"format_version\": \"1\""),
                "\"format_version\" must be an integer");
    expectError(with("\"seeds\": 1", "\"seedz\": 1"), "missing key \"seeds\"");
    expectError(with("\"models\": [\"rsa\"]", "\"models\": [3]"),
                "\"models\" must be an array of strings");
    expectError(with("\"id\": 0", "\"id\": \"zero\""), "\"runs[0].id\" must be an integer");
    expectError(with("\"status\": \"finished\"", "\"status\": \"exploded\""), "runs[0].status");
    expectError(with("\"config\": {}", "\"config\": {\"trainer\": {\"learning_rate\": \"fast\"}}"),
                "trainer.learning_rate has the wrong type");
    expectError(with("\"config\": {}", "\"config\": {\"model\": {\"d_model\": 30, \"heads\": 4}}"),
                "config");
    std::string many = "[";
    for (int i = 0; i < 5000; ++i) many += std::string(i ? "," : "") + "{}";
    expectError(with("[{\"id\": 0, \"model\": \"rsa\", \"seed\": 1, \"status\": \"finished\"}]",
                     many + "]"),
                "the limit is 4096");
  }

  void badMetricsAndSnapshotsNameTheirFile() {
    const std::string dir = saveSession(sampleBundle(), path("bad"));
    const auto metrics = (fs::path(dir) / "metrics/run-1.csv").string();
    std::string text = readTextFile(metrics, 1 << 20);
    writeFileAtomically(metrics, text + "train,21,abc,1,1,1,1,,,,,\n");
    try {
      loadSession(dir);
      QFAIL("a bad metrics row was accepted");
    } catch (const SessionError& e) {
      QVERIFY2(QString(e.what()).contains("metrics/run-1.csv"), e.what());
      QVERIFY2(QString(e.what()).contains("samples_seen"), e.what());
    }
    writeFileAtomically(metrics, text);
    const auto inspection = (fs::path(dir) / "inspection/run-0.json").string();
    std::string snap = readTextFile(inspection, 1 << 24);
    snap.replace(snap.find("\"rows\":5"), 8, "\"rows\":6");
    writeFileAtomically(inspection, snap);
    try {
      loadSession(dir);
      QFAIL("a matrix with the wrong size was accepted");
    } catch (const SessionError& e) {
      QVERIFY2(QString(e.what()).contains("inspection/run-0.json"), e.what());
      QVERIFY2(QString(e.what()).contains("rows x cols"), e.what());
    }
  }

  // Every state any writer writes (the GUI worker writes "diverged" for a run paused on a
  // non-finite loss, the CLI "interrupted" after Ctrl+C) is saved and read back: a bundle holding
  // such a run must reopen.
  void runsInEveryStateRoundTrip() {
    SessionBundle b = sampleBundle();
    const SessionRun model_run = b.runs[0];
    b.runs.clear();
    int64_t id = 0;
    for (RunState state : allRunStates()) {
      SessionRun run = model_run;
      run.id = id++;
      run.state = state;
      b.runs.push_back(run);
    }
    const std::string folder = saveSession(b, path("states"));
    const SessionBundle loaded = loadSession(folder);
    QCOMPARE(loaded.runs.size(), allRunStates().size());
    for (size_t i = 0; i < loaded.runs.size(); ++i)
      QVERIFY(loaded.runs[i].state == allRunStates()[i]);
    // The manifest keeps the names bundles have always had ("status": "interrupted", …).
    const std::string manifest = readTextFile(folder + "/manifest.json", 1 << 20);
    for (RunState state : allRunStates()) {
      const std::string key = std::string("\"status\": \"") + runStateName(state) + "\"";
      QVERIFY2(manifest.find(key) != std::string::npos, key.c_str());
    }
  }

  // An eval row of the metrics CSV names its split with splitName(); anything else is an error
  // naming the file and line.
  void metricsSplitIsParsed() {
    SessionRun run;
    run.id = 3;
    EvalMetrics e;
    e.step = 4;
    e.loss = 0.5;
    for (Split split : {Split::Validation, Split::Test}) {
      e.split = split;
      run.evals.push_back(e);
    }
    SessionRun back;
    parseSessionMetricsCsv(sessionMetricsCsv(run), "metrics/run-3.csv", back);
    QCOMPARE(back.evals.size(), size_t{2});
    QVERIFY(back.evals[1].split == Split::Test);
    std::string csv = sessionMetricsCsv(run);
    csv.replace(csv.find(",test,"), 6, ",tset,");
    try {
      SessionRun bad;
      parseSessionMetricsCsv(csv, "metrics/run-3.csv", bad);
      QFAIL("an unknown split was accepted");
    } catch (const SessionError& e) {
      QVERIFY2(QString(e.what()).contains("metrics/run-3.csv"), e.what());
      QVERIFY2(QString(e.what()).contains("tset"), e.what());
    }
  }

  // sweep.json: one parser (sweepResultFromJson) behind every reader. sweepJson writes a NaN
  // test loss (a failed or diverged run) as null: it reads back as NaN, in both readers.
  void sweepJsonNullNumberAndMissingKey() {
    const std::string text = R"({"runs": [
      {"model": "rsa", "size": 16, "seed": 7, "test_loss": 0.25, "steps": 9},
      {"model": "gru", "size": 16, "seed": 7, "test_loss": null, "steps": 3,
       "error": "diverged"}], "fits": []})";
    const SweepResult result = sweepResultFromJson(text);
    QCOMPARE(result.rows.size(), size_t{2});
    QCOMPARE(result.rows[0].test_loss, 0.25);
    QVERIFY(std::isnan(result.rows[1].test_loss));
    QCOMPARE(result.rows[1].error, std::string("diverged"));
    const auto rows = parseSessionSweepRows(text);
    QCOMPARE(rows.size(), size_t{2});
    QCOMPARE(rows[0].test_loss, 0.25);
    QCOMPARE(rows[0].steps, int64_t{9});
    QVERIFY(std::isnan(rows[1].test_loss));
    // A missing key or a wrong type is an error naming sweep.json and the key.
    auto errorOf = [](const std::string& json) -> QString {
      try {
        sweepResultFromJson(json);
      } catch (const std::runtime_error& e) {
        return e.what();
      }
      return {};
    };
    const QString missing = errorOf(R"({"runs": [{"model": "rsa", "size": 16, "seed": 7}]})");
    QVERIFY2(missing.contains("sweep.json") && missing.contains("runs[0].test_loss"),
             qPrintable(missing));
    const QString wrong =
        errorOf(R"({"runs": [{"model": "rsa", "size": 16, "seed": 7, "test_loss": "low"}]})");
    QVERIFY2(wrong.contains("sweep.json") && wrong.contains("runs[0].test_loss"),
             qPrintable(wrong));
    QVERIFY_THROWS_EXCEPTION(SessionError, parseSessionSweepRows(R"({"runs": [{"model": 3}]})"));
  }

  // stop_reason is a StopReason in memory; the texts sweep files have always held read back
  // ("reference" rows, "" for a run that never trained, any other text as None) and are written
  // again unchanged.
  void sweepStopReasonsOfOlderFilesRead() {
    const std::string text = R"json({"runs": [
      {"model": "rsa", "size": 16, "test_loss": 0.2, "steps": 9, "stop_reason": "max steps"},
      {"model": "gru", "size": 16, "test_loss": 0.3, "steps": 4, "stop_reason": "stopped"},
      {"model": "lstm", "size": 16, "test_loss": 0.3, "steps": 5,
       "stop_reason": "early stop (validation plateau)"},
      {"model": "ar_lsq", "size": 16, "test_loss": 0.4, "reference": true,
       "stop_reason": "reference"},
      {"model": "rnn", "size": 16, "test_loss": null, "stop_reason": "", "error": "oom"},
      {"model": "rwkv", "size": 16, "test_loss": 0.5, "steps": 2, "stop_reason": "whatever"}],
      "fits": []})json";
    const auto rows = parseSessionSweepRows(text);
    QCOMPARE(rows.size(), size_t{6});
    QVERIFY(rows[0].stop_reason == StopReason::MaxSteps && rows[0].ok());
    QVERIFY(rows[1].stop_reason == StopReason::Requested && !rows[1].ok());
    QVERIFY(rows[2].stop_reason == StopReason::EarlyStop);
    QVERIFY(rows[3].stop_reason == StopReason::None && rows[3].reference);
    QVERIFY(rows[4].stop_reason == StopReason::None);
    QVERIFY(rows[5].stop_reason == StopReason::None);
    const char* written[] = {"max steps", "stopped", "early stop (validation plateau)", "reference",
                             ""};
    for (size_t i = 0; i < 5; ++i) QCOMPARE(sweepStopReasonText(rows[i]), std::string(written[i]));
  }

  void inspectionJsonReadsBothMatrixForms() {
    const InspectionRecord r = rsaRecord(1.5f);
    compareRecords(inspectionFromJson(inspectionJson(r)), r);  // decimal arrays (CLI inspect)
    compareRecords(inspectionFromJsonValue(inspectionJsonValue(r, /*compact=*/true), "x"), r);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, inspectionFromJson(R"({"model": "rsa", "sample": 0,
        "layers": [{"heads": [{"attention": {"rows": 2, "cols": 2, "values": [1, 2, 3]}}]}]})"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, inspectionFromJson(R"({"model": "rsa", "sample": 0,
        "layers": [{"heads": [{"attention": {"rows": 100000, "cols": 100000, "values": []}}]}]})"));
  }
};

RSALAB_REGISTER_TEST(TestSessionBundle, QTEST_GUILESS_MAIN)
#include "test_session_bundle.moc"
