// SPDX-License-Identifier: GPL-3.0-or-later
// Planned sweeps without training (core library only: no LibTorch): the plan's cells and content
// hash, plan.json and cell files round-trip exactly, edits and foreign cells are refused with a
// message naming the file, the merge equals the rows, and the Slurm pieces (array specs, the
// batch script, squeue's output, cell states) say what they should.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/core/io/atomic_file.h"
#include "engine/core/sweep/slurm.h"
#include "engine/core/sweep/sweep_cell.h"
#include "engine/core/sweep/sweep_plan.h"
#include "engine/core/sweep/sweep_status.h"
#include "support/test_registry.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::errorOf;

namespace {

SweepOptions tinySweep() {
  SweepOptions o;
  o.base = defaultSweepConfig();
  o.base.task.length = 16;
  o.base.trainer.max_steps = 20;
  o.models = {"gru", "rsa"};
  o.sizes = {16, 32, 64};
  o.seeds = 2;
  return o;
}

SweepCellResult sampleCell(const SweepPlan& plan, int64_t index) {
  SweepCellResult c;
  c.plan_hash = plan.hash;
  c.index = index;
  const SweepCell& cell = plan.cells[static_cast<size_t>(index)];
  c.row.run = index;
  c.row.model = cell.model;
  c.row.size = cell.size;
  c.row.seed = cell.seed;
  c.row.test_loss = 1.0 / (3.0 + static_cast<double>(index));  // not exact in decimal
  c.row.test_metrics = {{"mse", c.row.test_loss}, {"mae", NAN}};
  c.row.best_validation = 0.1 + 1e-17;
  c.row.steps = 20;
  c.row.seconds = 0.25;
  c.row.parameters = 457;
  c.row.flops_per_token = 1234.5;
  c.row.stop_reason = StopReason::MaxSteps;
  for (int64_t k = 1; k <= 3; ++k)
    c.row.train_curve.push_back({k, 4 * k, 1.0 / 7.0 / double(k), 1e-3, k == 2 ? NAN : 0.5, 0.01});
  EvalMetrics e;
  e.step = 2;
  e.samples_seen = 8;
  e.split = Split::Validation;
  e.loss = 0.123456789012345678;
  e.values = {{"mse", 0.123456789012345678}};
  c.row.validation_curve.push_back(e);
  c.host = "node-7";
  c.device = "CPU";
  c.threads = 2;
  c.started_at = 1000.0 + static_cast<double>(index);
  c.finished_at = c.started_at + 2.5;
  c.slurm_job = "42_" + std::to_string(index);
  return c;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
}  // namespace

class TestSweepPlan : public QObject {
  Q_OBJECT
 private slots:
  void cellsAreSeedsBySizesByModels() {
    const SweepPlan plan = makeSweepPlan(tinySweep());
    QCOMPARE(plan.cellCount(), int64_t{12});
    QCOMPARE(plan.cells[0].model, std::string("gru"));
    QCOMPARE(plan.cells[1].model, std::string("rsa"));
    QCOMPARE(plan.cells[2].size, int64_t{32});
    QCOMPARE(plan.cells[6].seed, plan.base.trainer.seed + 1);
    for (int64_t i = 0; i < plan.cellCount(); ++i) QCOMPARE(plan.cells[i].index, i);
    const RunConfig c = cellConfig(plan, plan.cells[7]);
    QCOMPARE(c.model.model, std::string("rsa"));
    QCOMPARE(c.train_size, int64_t{16});
    QCOMPARE(c.trainer.seed, plan.base.trainer.seed + 1);
  }
  void hashIsStableAndCoversTheContent() {
    const SweepPlan a = makeSweepPlan(tinySweep());
    QCOMPARE(makeSweepPlan(tinySweep()).hash, a.hash);
    QVERIFY(a.hash.rfind("fnv1a64:", 0) == 0 && a.hash.size() == 8 + 16);
    auto steps = tinySweep();
    steps.base.trainer.max_steps = 21;
    QVERIFY(makeSweepPlan(steps).hash != a.hash);
    auto sizes = tinySweep();
    sizes.sizes = {16, 32, 65};
    QVERIFY(makeSweepPlan(sizes).hash != a.hash);
    auto models = tinySweep();
    models.models = {"rsa", "gru"};  // the same runs in another order: other indices
    QVERIFY(makeSweepPlan(models).hash != a.hash);
  }
  void planJsonRoundTrips() {
    const SweepPlan a = makeSweepPlan(tinySweep());
    const SweepPlan b = sweepPlanFromJson(sweepPlanJson(a));
    QCOMPARE(b.hash, a.hash);
    QCOMPARE(b.models, a.models);
    QCOMPARE(b.sizes, a.sizes);
    QCOMPARE(b.seeds, a.seeds);
    QCOMPARE(b.cellCount(), a.cellCount());
    QCOMPARE(toJson(b.base), toJson(a.base));
    QCOMPARE(sweepPlanJson(b), sweepPlanJson(a));
  }
  void anEditedPlanIsRefused() {
    const SweepPlan a = makeSweepPlan(tinySweep());
    std::string text = sweepPlanJson(a);
    const auto at = text.find("\"max_steps\": 20");
    QVERIFY(at != std::string::npos);
    text.replace(at, 15, "\"max_steps\": 30");
    const std::string message = errorOf([&] { sweepPlanFromJson(text, "DIR/plan.json"); });
    QVERIFY2(message.find("DIR/plan.json") == 0 && message.find("edited") != std::string::npos,
             message.c_str());
    // Damaged or foreign input: a message naming the file and the key, never a crash.
    for (const std::string bad :
         {"", "[]", "{\"format\": \"other\"}", "{\"format\": \"rsalab-sweep-plan\"}",
          "{\"format\": \"rsalab-sweep-plan\", \"format_version\": 9, \"hash\": \"x\"}"}) {
      const std::string m = errorOf([&] { sweepPlanFromJson(bad, "p.json"); });
      QVERIFY2(m.find("p.json") == 0, m.c_str());
    }
  }
  void cellJsonRoundTripsExactly() {
    const SweepPlan plan = makeSweepPlan(tinySweep());
    const SweepCellResult a = sampleCell(plan, 5);
    const SweepCellResult b = sweepCellFromJson(sweepCellJson(a), "5.json");
    QCOMPARE(b.plan_hash, a.plan_hash);
    QCOMPARE(b.index, a.index);
    QCOMPARE(b.row.run, int64_t{5});
    QCOMPARE(b.row.model, a.row.model);
    QCOMPARE(b.row.size, a.row.size);
    QCOMPARE(b.row.seed, a.row.seed);
    QVERIFY(b.row.test_loss == a.row.test_loss);  // bit for bit
    QVERIFY(b.row.test_metrics.at("mse") == a.row.test_metrics.at("mse"));
    QVERIFY(std::isnan(b.row.test_metrics.at("mae")));
    QVERIFY(b.row.best_validation == a.row.best_validation);
    QCOMPARE(b.row.steps, a.row.steps);
    QCOMPARE(b.row.parameters, a.row.parameters);
    QVERIFY(b.row.stop_reason == a.row.stop_reason);
    QCOMPARE(b.row.train_curve.size(), a.row.train_curve.size());
    for (size_t k = 0; k < a.row.train_curve.size(); ++k) {
      QCOMPARE(b.row.train_curve[k].step, a.row.train_curve[k].step);
      QCOMPARE(b.row.train_curve[k].samples_seen, a.row.train_curve[k].samples_seen);
      QVERIFY(same(b.row.train_curve[k].train_loss, a.row.train_curve[k].train_loss));
      QVERIFY(same(b.row.train_curve[k].grad_norm, a.row.train_curve[k].grad_norm));
    }
    QCOMPARE(b.row.validation_curve.size(), size_t{1});
    QVERIFY(b.row.validation_curve[0].loss == a.row.validation_curve[0].loss);
    QVERIFY(b.row.validation_curve[0].split == Split::Validation);
    QCOMPARE(b.host, a.host);
    QCOMPARE(b.device, a.device);
    QCOMPARE(b.threads, a.threads);
    QCOMPARE(b.slurm_job, a.slurm_job);
    QVERIFY(b.started_at == a.started_at && b.finished_at == a.finished_at);
    for (const std::string bad : {"{}", "{\"format\": \"rsalab-sweep-cell\"}", "nope"}) {
      const std::string m = errorOf([&] { sweepCellFromJson(bad, "cells/3.json"); });
      QVERIFY2(m.find("cells/3.json") == 0, m.c_str());
    }
  }
  void folderFilesAndForeignCells() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString() + "/sweep";
    const SweepPlan plan = makeSweepPlan(tinySweep());
    writeSweepPlan(dir, plan);
    QCOMPARE(readSweepPlan(dir).hash, plan.hash);
    QVERIFY(!readSweepCell(dir, plan, 3));
    markSweepCellStarted(dir, 3, "");
    QVERIFY(sweepCellStarted(dir, 3));
    writeSweepCell(dir, sampleCell(plan, 3));
    QVERIFY(!sweepCellStarted(dir, 3));  // the result replaces the marker
    QVERIFY(readSweepCell(dir, plan, 3)->row.test_loss == 1.0 / 6.0);
    // Another plan in the same folder: refused unless replacing (which drops the cells).
    auto other_options = tinySweep();
    other_options.seeds = 1;
    const SweepPlan other = makeSweepPlan(other_options);
    QVERIFY(errorOf([&] { writeSweepPlan(dir, other); }).find("another sweep") !=
            std::string::npos);
    // A cell of the old plan read against the new one: refused, naming both hashes.
    const std::string m = errorOf([&] { readSweepCell(dir, other, 3); });
    QVERIFY2(m.find("3.json") != std::string::npos && m.find(plan.hash) != std::string::npos &&
                 m.find(other.hash) != std::string::npos,
             m.c_str());
    writeSweepPlan(dir, other, /*replace=*/true);
    QVERIFY(!readSweepCell(dir, other, 3));
    QVERIFY(errorOf([&] {
              readSweepPlan(tmp.path().toStdString() + "/none");
            }).find("no plan in") == 0);
  }
  void mergeKeepsCellOrderAndTiming() {
    const SweepPlan plan = makeSweepPlan(tinySweep());
    std::vector<SweepCellResult> cells;
    for (int64_t i : {4, 0, 2, 1, 3, 5, 6, 7, 8, 9, 10, 11}) cells.push_back(sampleCell(plan, i));
    const SweepResult r = mergeSweepCells(plan, cells);
    QCOMPARE(r.rows.size(), size_t{12});
    for (size_t i = 0; i < r.rows.size(); ++i) QCOMPARE(r.rows[i].run, int64_t(i));
    QCOMPARE(r.fits.size(), size_t{2});
    QCOMPARE(r.fits[0].model, std::string("gru"));
    QCOMPARE(r.fits[0].points, int64_t{6});
    QCOMPARE(r.wall_seconds, 11.0 + 2.5);  // first start 1000, last finish 1011 + 2.5
    QCOMPARE(r.parallel, int64_t{3});      // starts 1 s apart, 2.5 s each
    QCOMPARE(r.threads_per_run, int64_t{2});
    QCOMPARE(r.base.model.model, std::string("gru"));
  }
  void slurmArraysAndScript() {
    QCOMPARE(slurmArraySpec({0, 1, 2, 3}, 0), std::string("0-3"));
    QCOMPARE(slurmArraySpec({7, 3, 5, 4, 9}, 2), std::string("3-5,7,9%2"));
    QCOMPARE(slurmArraySpec({5}, 0), std::string("5"));
    const SweepPlan plan = makeSweepPlan(tinySweep());
    SlurmOptions o;
    o.partition = "gpu";
    o.time = "01:30:00";
    o.cpus_per_task = 4;
    o.gpus_per_task = 1;
    o.max_parallel = 3;
    o.sbatch_args = {"--account=proj"};
    const std::string s = sweepSbatchScript("/opt/rsalab-cli", "/shared/sweep", plan, o);
    for (const char* line :
         {"#SBATCH --array=0-11%3\n", "#SBATCH --output=/shared/sweep/logs/%A_%a.out\n",
          "#SBATCH --partition=gpu\n", "#SBATCH --time=01:30:00\n", "#SBATCH --cpus-per-task=4\n",
          "#SBATCH --gpus-per-task=1\n", "#SBATCH --account=proj\n",
          "exec '/opt/rsalab-cli' sweep-cell '/shared/sweep' --index \"$index\""}) {
      QVERIFY2(s.find(line) != std::string::npos, line);
    }
    QVERIFY(s.rfind("#!/bin/bash\n", 0) == 0);
    QVERIFY(!errorOf([&] { sweepSbatchScript("rsalab-cli", "/x", plan, {}); }).empty());
    QVERIFY(!errorOf([&] { sweepSbatchScript("/a/cli", "/my sweep", plan, {}); }).empty());
    o.time = "90 minutes";
    QVERIFY(errorOf([&] { validateSlurmOptions(o); }).find("--time") == 0);
  }
  void squeueTasksAndCellStates() {
    std::vector<SlurmSubmission> subs(2);
    subs[0].job_id = "40";
    subs[0].indices = {0, 1, 2, 3};
    subs[1].job_id = "52";
    subs[1].indices = {1, 1003};
    subs[1].offset = 1000;  // a chunk past MaxArraySize: task 3 is cell 1003
    const auto states = parseSqueueTasks(
        "40_0|COMPLETED\n40_1|CANCELLED\n40_2|RUNNING\n40_[3]|PENDING\n52_3|PENDING\n"
        "99_1|RUNNING\ngarbage\n",
        subs);
    QCOMPARE(states.size(), size_t{4});
    QCOMPARE(states.at(0), std::string("COMPLETED"));
    QCOMPARE(states.at(1), std::string("CANCELLED"));
    QCOMPARE(states.at(2), std::string("RUNNING"));
    QCOMPARE(states.at(1003), std::string("PENDING"));
    QCOMPARE(squeueCommand(subs).back(), std::string("--format=%i|%T"));
    QCOMPARE(classifyCell(true, false, true, "CANCELLED"), CellState::Done);
    QCOMPARE(classifyCell(true, true, false, ""), CellState::Error);
    QCOMPARE(classifyCell(false, false, true, "RUNNING"), CellState::Running);
    QCOMPARE(classifyCell(false, false, false, "PENDING"), CellState::Pending);
    QCOMPARE(classifyCell(false, false, true, "CANCELLED"), CellState::Failed);
    QCOMPARE(classifyCell(false, false, false, "TIMEOUT"), CellState::Failed);
    QCOMPARE(classifyCell(false, false, true, ""), CellState::Failed);
    QCOMPARE(classifyCell(false, false, false, ""), CellState::Missing);
    QCOMPARE(std::string(cellStateName(CellState::Missing)), std::string("missing"));
  }
  void statusOfAFolder() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const SweepPlan plan = makeSweepPlan(tinySweep());
    writeSweepPlan(dir, plan);
    writeSweepCell(dir, sampleCell(plan, 0));
    auto error = sampleCell(plan, 1);
    error.row.error = "out of memory";
    writeSweepCell(dir, error);
    markSweepCellStarted(dir, 2, "");
    SlurmTaskStates slurm;
    slurm.reachable = true;
    slurm.states = {{3, "RUNNING"}, {4, "PENDING"}, {5, "TIMEOUT"}};
    const SweepStatus s = sweepStatus(dir, plan, slurm);
    QCOMPARE(s.count(CellState::Done), int64_t{1});
    QCOMPARE(s.count(CellState::Error), int64_t{1});
    QCOMPARE(s.count(CellState::Running), int64_t{1});
    QCOMPARE(s.count(CellState::Pending), int64_t{1});
    QCOMPARE(s.indices(CellState::Failed), (std::vector<int64_t>{2, 5}));
    QCOMPARE(s.count(CellState::Missing), int64_t{6});
    QCOMPARE(s.withoutResult().size(), size_t{8});
    QVERIFY(s.problems.empty());
    // A damaged cell file is a problem (named), and that cell counts as without a result.
    writeFileAtomically(sweepCellPath(dir, 6), "{\"format\": ");
    const SweepStatus damaged = sweepStatus(dir, plan, {});
    QCOMPARE(damaged.problems.size(), size_t{1});
    QVERIFY(damaged.problems[0].find("6.json") != std::string::npos);
    QCOMPARE(damaged.cells[6], CellState::Missing);
  }
};

RSALAB_REGISTER_TEST(TestSweepPlan, QTEST_GUILESS_MAIN)
#include "test_sweep_plan.moc"
