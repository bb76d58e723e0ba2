// SPDX-License-Identifier: GPL-3.0-or-later
// "Linear attention is an RNN" (engine/core/verdicts/generation_claim.h,
// engine/training/generation_probe.h): the positions, the state each method keeps (counted against
// the formulas), the parallel == recurrent check, the order of the live points, stopping, and the
// verdict rules on hand-made curves. No timed assertion: the timings themselves are only checked
// for shape.
#include <chrono>
#include <future>
#include <mutex>

#include "engine/training/generation_probe.h"
#include "engine/training/trainer.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

GenerationCurve curve(const std::vector<std::pair<int64_t, double>>& points) {
  GenerationCurve c;
  c.method = "test";
  for (const auto& [t, ms] : points) {
    GenerationPoint p;
    p.position = t;
    p.ms_per_token = p.ms_q1 = p.ms_q3 = ms;
    c.points.push_back(p);
  }
  return c;
}

}  // namespace

class TestGenerationProbe : public QObject {
  Q_OBJECT
 private slots:
  void positionsDouble() {
    QCOMPARE(generationPositions(4096),
             (std::vector<int64_t>{32, 64, 128, 256, 512, 1024, 2048, 4096}));
    QCOMPARE(generationPositions(100), (std::vector<int64_t>{32, 64, 100}));
    QCOMPARE(generationPositions(32), (std::vector<int64_t>{32}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, generationPositions(16));
  }

  void probeMeasuresBothMethods() {
    GenerationProbeOptions o;
    o.model.d_model = 16;
    o.model.heads = 2;
    o.model.layers = 2;
    o.max_position = 64;
    o.window = 8;
    o.check_length = 40;
    std::vector<std::pair<std::string, int64_t>> seen;
    const auto probe =
        probeLinearAttentionRnn(o, [&](const std::string& kind, const GenerationPoint& p) {
          seen.emplace_back(kind, p.position);
        });
    // Parallel == recurrent in float64, on B = 4 sequences of check_length outputs.
    QCOMPARE(probe.values, int64_t{4 * 40});
    QVERIFY2(probe.max_error <= kParallelRecurrentTolerance,
             std::to_string(probe.max_error).c_str());
    // Points arrive live, both methods at each position, in order.
    const std::vector<std::pair<std::string, int64_t>> order = {
        {"linear", 32}, {"softmax", 32}, {"linear", 64}, {"softmax", 64}};
    QCOMPARE(seen, order);
    QCOMPARE(probe.linear.points.size(), size_t{2});
    QCOMPARE(probe.softmax.points.size(), size_t{2});
    const int64_t L = 2, H = 2, Dh = 8, D = 16;
    for (const auto& p : probe.linear.points) {
      // (S, z) per layer: H·Dh·Dh + H·Dh, whatever T is.
      QCOMPARE(p.state_floats, L * (H * Dh * Dh + H * Dh));
      QCOMPARE(p.tokens, int64_t{8});
    }
    for (const auto& p : probe.softmax.points) {
      // The KV cache's filled rows: keys and values of every position, every layer.
      QCOMPARE(p.state_floats, 2 * p.position * D * L);
    }
    for (const auto* c : {&probe.linear, &probe.softmax}) {
      for (const auto& p : c->points) {
        QVERIFY(p.ms_per_token > 0);
        QVERIFY(p.ms_q1 <= p.ms_per_token && p.ms_per_token <= p.ms_q3);
      }
    }
    QVERIFY(probe.model.find("d16 h2 L2") != std::string::npos);
    // Two positions per curve: the timing claim is undecided, the equivalence is decided.
    const auto verdicts = linearAttentionRnnVerdicts(probe);
    QCOMPARE(verdicts.size(), size_t{2});
    QVERIFY(verdicts[0].decided && verdicts[0].holds);
    QVERIFY(!verdicts[1].decided);
  }

  // The probe seeds and draws from LibTorch's process-wide generator under the trainers' lock:
  // while a Trainer holds it (building a model beside the GUI's generation tab), the probe waits
  // instead of reseeding the generator under the Trainer's feet.
  void probeTakesTheGeneratorLock() {
    GenerationProbeOptions o;
    o.model.d_model = 8;
    o.model.heads = 2;
    o.model.layers = 1;
    o.max_position = 32;
    o.window = 4;
    o.check_length = 8;
    std::unique_lock<std::mutex> lock(globalGeneratorMutex());
    auto probe = std::async(std::launch::async, [&] { return probeLinearAttentionRnn(o); });
    QVERIFY(probe.wait_for(std::chrono::milliseconds(500)) == std::future_status::timeout);
    lock.unlock();
    QVERIFY(probe.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
    QCOMPARE(probe.get().values, int64_t{4 * 8});
  }

  void stopKeepsWhatWasMeasured() {
    GenerationProbeOptions o;
    o.model.d_model = 8;
    o.model.heads = 2;
    o.model.layers = 1;
    o.max_position = 128;
    o.check_length = 8;
    std::atomic<bool> stop{false};
    int points = 0;
    const auto probe = probeLinearAttentionRnn(
        o,
        [&](const std::string&, const GenerationPoint&) {
          if (++points == 2) stop = true;  // after position 32 of both methods
        },
        &stop);
    QCOMPARE(probe.linear.points.size(), size_t{1});
    QCOMPARE(probe.softmax.points.size(), size_t{1});
    QVERIFY(std::isfinite(probe.max_error));
  }

  void growthReadsTheFittedLine() {
    QCOMPARE(generationGrowth(curve({{32, 1}, {64, 1}, {4096, 1}})), 1.0);
    // ms = 1 + T/32 exactly: (1 + 128) / (1 + 1).
    QVERIFY(std::abs(generationGrowth(curve({{32, 2}, {64, 3}, {1024, 33}, {4096, 129}})) - 64.5) <
            1e-9);
    QVERIFY(std::isnan(generationGrowth(curve({{32, 1}}))));
    QVERIFY(std::isnan(generationGrowth(curve({}))));
  }

  void verdictRules() {
    LinearAttentionRnnProbe p;
    p.max_error = 1e-15;
    p.values = 100;
    p.linear = curve({{32, 1.0}, {256, 1.1}, {4096, 1.05}});
    p.softmax = curve({{32, 1.0}, {256, 1.5}, {4096, 5.0}});
    auto v = linearAttentionRnnVerdicts(p);
    QVERIFY(v[0].decided && v[0].holds);
    QVERIFY2(v[1].decided && v[1].holds, v[1].detail.c_str());
    QVERIFY(v[1].detail.find("8704") == std::string::npos);  // no state given: 0 floats
    // Linear attention growing 2× is not flat.
    p.linear = curve({{32, 1.0}, {256, 1.2}, {4096, 2.0}});
    v = linearAttentionRnnVerdicts(p);
    QVERIFY(v[1].decided && !v[1].holds);
    // Softmax growing only 1.5× does not count as growing.
    p.linear = curve({{32, 1.0}, {256, 1.0}, {4096, 1.0}});
    p.softmax = curve({{32, 1.0}, {256, 1.1}, {4096, 1.5}});
    v = linearAttentionRnnVerdicts(p);
    QVERIFY(v[1].decided && !v[1].holds);
    // Too few positions: undecided.
    p.softmax = curve({{32, 1.0}, {4096, 9.0}});
    QVERIFY(!linearAttentionRnnVerdicts(p)[1].decided);
    // Parallel and recurrent differing beyond float64 rounding: does not hold.
    p.max_error = 1e-6;
    v = linearAttentionRnnVerdicts(p);
    QVERIFY(v[0].decided && !v[0].holds);
    p.max_error = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!linearAttentionRnnVerdicts(p)[0].decided);
    QVERIFY(verdictLine(linearAttentionRnnVerdicts(p)[0]).rfind("undecided: ", 0) == 0);
  }
};

RSALAB_TEST_MAIN(TestGenerationProbe)
#include "test_generation_probe.moc"
