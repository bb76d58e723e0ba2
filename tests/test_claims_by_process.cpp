// SPDX-License-Identifier: GPL-3.0-or-later
// The claims on every teacher process (engine/core/verdicts/claims_by_process.h) on records built
// by hand: a verdict line names its ground ("on RSA's home ground (rem)", "on the power process",
// none on a task without a process); a record cut from a larger sweep keeps its preset's models,
// names its process in its file and marker and states its cuts; the table puts each claim's
// outcome and deciding number under its process, says "on RSA's home ground only" exactly where
// a claim holds on rem and on no other process that ran, "not run" where no record is, and adds
// the default rerun's time (each sweep once, rem left out) and the full grids' estimate.
// Core library only: no LibTorch.
#include <QtTest>
#include <string>
#include <vector>

#include "engine/core/io/text.h"
#include "engine/core/verdicts/claims.h"
#include "engine/core/verdicts/claims_by_process.h"
#include "engine/core/verdicts/preset_record.h"
#include "engine/core/verdicts/presets.h"
#include "support/test_registry.h"

using namespace rsalab;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A sample-efficiency sweep on the seasonal series with `process`: transformer, rsa and one more
// model over N ∈ {16, 256, 4096} × 6 seeds; rsa's loss is `rsa_factor` × the Transformer's at
// every N and seed (0: 0.9 × on even seeds, 1.1 × on odd ones).
SweepResult sampleSweep(TeacherProcess process, double rsa_factor, double wall_seconds) {
  SweepResult s;
  s.base = presetOrThrow("rsa-sample-efficiency").config;
  s.base.task.teacher_process = process;
  s.wall_seconds = wall_seconds;
  int64_t run = 0;
  for (const char* model : {"transformer", "rsa", "gla"})
    for (int64_t n : {16, 256, 4096})
      for (uint64_t seed = 0; seed < 6; ++seed) {
        SweepRow r;
        r.run = run++;
        r.model = model;
        r.size = n;
        r.requested_size = n;
        r.seed = seed;
        r.steps = 300;
        r.bayes_floor = 0.2;
        const double transformer = 0.2 + 1.0 / static_cast<double>(n) + 0.001 * seed;
        const double factor = rsa_factor > 0 ? rsa_factor : seed % 2 ? 1.1 : 0.9;
        r.test_loss = std::string(model) == "rsa" ? transformer * factor : transformer;
        s.rows.push_back(r);
      }
  SweepRow ref;
  ref.model = "persistence";
  ref.reference = true;
  ref.size = 16;
  ref.test_loss = 1;
  s.rows.push_back(ref);
  return s;
}

PresetRecord sampleRecord(TeacherProcess process, double rsa_factor, double wall_seconds) {
  return presetRecordFromSweep("rsa-sample-efficiency",
                               sampleSweep(process, rsa_factor, wall_seconds),
                               "2026-11-29 on 2 cores", "rsalab-cli sweep --preset …");
}

}  // namespace

class TestClaimsByProcess : public QObject {
  Q_OBJECT
 private slots:
  void verdictLinesNameTheirGround() {
    ClaimVerdict v;
    v.claim = "rsa has lower loss";
    v.detail = "6 of 6";
    v.decided = v.holds = true;
    QCOMPARE(claimGround("mix", TeacherProcess::Rem), std::string("on RSA's home ground (rem)"));
    QCOMPARE(claimGround("seasonal", TeacherProcess::Power), std::string("on the power process"));
    QCOMPARE(claimGround("mlm", TeacherProcess::Rem), std::string());
    QCOMPARE(verdictLine(v, claimGround("mix", TeacherProcess::Rem)),
             std::string("holds on RSA's home ground (rem): rsa has lower loss — 6 of 6"));
    QCOMPARE(verdictLine(v), std::string("holds: rsa has lower loss — 6 of 6"));
    v.holds = false;
    QCOMPARE(verdictLine(v, "on the power process"),
             std::string("does not hold on the power process: rsa has lower loss — 6 of 6"));
    QCOMPARE(verdictLine(v), std::string("does not hold here: rsa has lower loss — 6 of 6"));
  }

  // Cut from a sweep of three models: the preset's two kept (and the reference row), the whole
  // sweep's run count kept for the block, the process in the name, marker and file; the cut
  // sizes stated; the record reads back to the same block.
  void aRecordCutFromASweepSaysSo() {
    const PresetRecord r = sampleRecord(TeacherProcess::Power, 0.9, 600);
    QCOMPARE(presetRecordName(r), std::string("rsa-sample-efficiency-power"));
    QCOMPARE(r.sweep_runs, int64_t{54});
    int64_t trained = 0, references = 0;
    for (const auto& row : r.sweep.rows) {
      QVERIFY(row.model != "gla");
      trained += !row.reference;
      references += row.reference;
    }
    QCOMPARE(trained, int64_t{36});
    QCOMPARE(references, int64_t{1});
    const std::string block = presetRecordBlock(r);
    QVERIFY2(contains(block, "<!-- preset rsa-sample-efficiency-power: begin"), block.c_str());
    QVERIFY2(contains(block, "36 runs, part of one sweep of 54 runs that took 10 min 0 s"),
             block.c_str());
    QVERIFY2(contains(block, "docs/data/rsa-sample-efficiency-power.json"), block.c_str());
    QVERIFY2(contains(block,
                      "Cut from the preset's grid: N = 64, 1024 left out of the preset's "
                      "N = 16, 64, 256, 1024, 4096."),
             block.c_str());
    QVERIFY2(contains(block, "\n- holds on the power process: rsa has lower loss"), block.c_str());
    const PresetRecord back = presetRecordFromJson(presetRecordJson(r), "record");
    QCOMPARE(back.sweep_runs, r.sweep_runs);
    QCOMPARE(presetRecordBlock(back), block);
    const std::string docs = "a\n" + block + "b\n";
    QCOMPARE(presetBlockIn(docs, back, "docs"), block);
    bool refused = false;
    try {
      presetRecordFromSweep("rsa-sample-efficiency", sampleSweep(TeacherProcess::Rem, 1, 1), "", "",
                            {"mamba2"});
    } catch (const std::invalid_argument& e) {
      refused = contains(e.what(), "no run of mamba2");
    }
    QVERIFY(refused);
  }

  void theTableSaysWhereAClaimHolds() {
    // rem: rsa lower on every seed; power: higher on every seed; nonlinear: lower on half the
    // seeds; jordan and selective not run.
    std::vector<PresetRecord> records = {sampleRecord(TeacherProcess::Rem, 0.9, 100),
                                         sampleRecord(TeacherProcess::Power, 1.1, 600),
                                         sampleRecord(TeacherProcess::Nonlinear, 0, 300)};
    const std::string block = claimsByProcessBlock(records);
    QVERIFY2(contains(block,
                      "| `rsa-sample-efficiency`: rsa has lower loss on average over N "
                      "than transformer | holds on RSA's home ground only (lower on 6 of "
                      "6 seeds, p = 0.031) | does not hold (lower on 0 of 6 seeds, p = "
                      "0.031) | not run | inconclusive (lower on 3 of 6 seeds, p = 1) | "
                      "not run |"),
             block.c_str());
    // The exponent claim: equal exponents on every seed (a constant factor), so no seed decides.
    QVERIFY2(contains(block,
                      "| `rsa-sample-efficiency`: rsa has a steeper exponent than "
                      "transformer |"),
             block.c_str());
    // Each sweep once, rem's left out: 600 + 300 s; the full grid adds N = 64 and 1024 (300
    // steps each) to 300 + 300 + 1024 steps.
    const double full = 900.0 * (300 * 4 + 1024) / (300 * 2 + 1024);
    QVERIFY2(contains(block, "took 15 min 0 s; the presets' full grids would take about " +
                                 minutesSeconds(full)),
             block.c_str());
    QVERIFY2(contains(block, "| power | `rsa-sample-efficiency` | 16, 256, 4096 | 6 | 54 |"),
             block.c_str());
    // Once power holds too, rem's cell no longer says "only".
    records[1] = sampleRecord(TeacherProcess::Power, 0.8, 600);
    const std::string both = claimsByProcessBlock(records);
    QVERIFY2(contains(both, "| holds (lower on 6 of 6 seeds, p = 0.031) | holds (lower on 6 of 6"),
             both.c_str());
    QVERIFY(!contains(both, "home ground only"));
    // The block reads back from a document and is replaced there; two records of one pair are
    // refused.
    const std::string docs = "x\n" + block + "y\n";
    QCOMPARE(claimsByProcessBlockIn(docs, "docs"), block);
    QCOMPARE(replaceClaimsByProcessBlock(docs, records, "docs"), "x\n" + both + "y\n");
    records.push_back(records[0]);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, claimsByProcessBlock(records));
  }

  // The full grid's estimate: figure1's budget is max(200, ⌈8·N / 32⌉) steps, so its grid without
  // N = 256 sums 200 + 200 + 256 + 1024 steps and the full one 200 more.
  void theFullGridIsEstimatedFromTheSteps() {
    const Preset& figure1 = presetOrThrow("figure1");
    QCOMPARE(fullGridSeconds(figure1, {16, 64, 1024, 4096}, 1680), 1880.0);
    QCOMPARE(fullGridSeconds(figure1, figure1.sweep_sizes, 500), 500.0);
    QCOMPARE(fullGridSeconds(figure1, {}, 500), 0.0);
    std::vector<std::string> names;
    for (const Preset* p : everyProcessPresets()) names.push_back(p->name);
    QCOMPARE(names, (std::vector<std::string>{"rsa-sample-efficiency", "figure1",
                                              "recurrence-placement", "family-sample-efficiency"}));
  }
};

RSALAB_REGISTER_TEST(TestClaimsByProcess, QTEST_GUILESS_MAIN)
#include "test_claims_by_process.moc"
