// SPDX-License-Identifier: GPL-3.0-or-later
// Task "mix" (engine/tasks/mix_task.h): a = 1 is the teacher and a = 0 the lookup, each checked
// against a literal loop written here (the kernel sum over s < t; the average over every earlier
// occurrence of the key); the parts have unit variance (closed-form σ against a Monte-Carlo
// estimate); the Bayes floor noise² matches the Monte-Carlo loss of the oracle predictor (the two
// parts recomputed from the model's inputs alone); task parameters as sweep axes.
#include <cmath>

#include "engine/core/config/run_config.h"
#include "engine/tasks/mix_task.h"
#include "engine/tasks/task.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::contains;
using rsalab::test::errorOf;

namespace {

TaskOptions mixOptions(double share, double noise) {
  TaskOptions o;
  o.name = "mix";
  o.length = 24;
  o.mix_share = share;
  o.mix_keys = 5;
  o.noise = noise;
  o.teacher_kinds = {TeacherKind::Regular, TeacherKind::Cos};
  o.teacher_bases = {0.7, 0.85};
  o.teacher_thetas = {0.0, 1.1};
  o.validation_size = 8;
  o.test_size = 8;
  return o;
}

// The model's inputs decoded: x, key (argmax of the one-hot), value, all (N, T).
struct Decoded {
  std::vector<std::vector<double>> x, v;
  std::vector<std::vector<int64_t>> k;
};

Decoded decode(const torch::Tensor& inputs, int64_t keys) {
  auto in = inputs.to(torch::kFloat64).contiguous();
  auto a = in.accessor<double, 3>();
  Decoded d;
  for (int64_t n = 0; n < in.size(0); ++n) {
    std::vector<double> x, v;
    std::vector<int64_t> k;
    for (int64_t t = 0; t < in.size(1); ++t) {
      x.push_back(a[n][t][0]);
      v.push_back(a[n][t][keys + 1]);
      int64_t best = 0;
      for (int64_t j = 1; j < keys; ++j)
        if (a[n][t][1 + j] > a[n][t][1 + best]) best = j;
      k.push_back(best);
    }
    d.x.push_back(x);
    d.v.push_back(v);
    d.k.push_back(k);
  }
  return d;
}

double kernel(const TaskOptions& o, int64_t d) {
  double k = 0;
  for (size_t i = 0; i < o.teacher_kinds.size(); ++i) {
    const double b = std::pow(o.teacher_bases[i], static_cast<double>(d));
    k += o.teacher_kinds[i] == TeacherKind::Cos
             ? b * std::cos(o.teacher_thetas[i] * static_cast<double>(d))
             : b;
  }
  return k;
}

// The two parts by literal loops, unscaled.
double literalRecurrent(const TaskOptions& o, const std::vector<double>& x, int64_t t) {
  double r = 0;
  for (int64_t s = 0; s < t; ++s) r += kernel(o, t - s) * x[static_cast<size_t>(s)];
  return r;
}

double literalLookup(const std::vector<double>& v, const std::vector<int64_t>& k, int64_t t) {
  double sum = 0;
  int count = 0;
  for (int64_t s = 0; s <= t; ++s) {
    if (k[static_cast<size_t>(s)] != k[static_cast<size_t>(t)]) continue;
    sum += v[static_cast<size_t>(s)];
    ++count;
  }
  return sum / count;
}

}  // namespace

class TestMixTask : public QObject {
  Q_OBJECT
 private slots:
  void shareOneIsTheTeacherAndZeroTheLookup() {
    for (double share : {1.0, 0.0}) {
      const TaskOptions o = mixOptions(share, 0.0);
      const TaskData data = makeTask(o, 6, 11);
      QCOMPARE(data.train.x.size(2), o.mix_keys + 2);
      QCOMPARE(data.io.input_dim, o.mix_keys + 2);
      const Decoded d = decode(data.train.x, o.mix_keys);
      const double sr = std::sqrt(mixRecurrentVariance(o));
      const double sl = std::sqrt(mixLookupVariance(o.mix_keys, o.length));
      const auto y64 = data.train.y.to(torch::kFloat64);
      auto y = y64.accessor<double, 3>();
      double worst = 0;
      for (size_t n = 0; n < d.x.size(); ++n) {
        for (int64_t t = 0; t < o.length; ++t) {
          const double expected = share == 1.0 ? literalRecurrent(o, d.x[n], t) / sr
                                               : literalLookup(d.v[n], d.k[n], t) / sl;
          worst = std::max(worst, std::abs(y[static_cast<int64_t>(n)][t][0] - expected));
        }
      }
      QVERIFY2(worst < 1e-4, qPrintable(QString("share %1: max |Δ| %2").arg(share).arg(worst)));
    }
  }

  void partsHaveUnitVarianceAndTheFloorIsTheOracleLoss() {
    const TaskOptions o = mixOptions(0.5, 0.3);
    const MixParts p = mixParts(o, 3000, 5);
    const double r2 = p.recurrent.pow(2).mean().item<double>();
    const double l2 = p.lookup.pow(2).mean().item<double>();
    QVERIFY2(std::abs(r2 - 1) < 0.05, qPrintable(QString("E r̃² = %1").arg(r2)));
    QVERIFY2(std::abs(l2 - 1) < 0.05, qPrintable(QString("E l̃² = %1").arg(l2)));

    // Monte Carlo: the oracle predicts √a r̃ + √(1−a) l̃ from the task's inputs alone; its mean
    // squared error over 1000 × 24 positions is the floor up to sampling (sd ≈ 0.09·√(2/24000)).
    const TaskData data = makeTask(o, 1000, 9);
    QCOMPARE(data.truth.bayes_floor, 0.09);
    const Decoded d = decode(data.train.x, o.mix_keys);
    const double sr = std::sqrt(mixRecurrentVariance(o)), sl = std::sqrt(mixLookupVariance(5, 24));
    const auto y64 = data.train.y.to(torch::kFloat64);
    auto y = y64.accessor<double, 3>();
    double se = 0;
    int64_t count = 0;
    for (size_t n = 0; n < d.x.size(); ++n) {
      for (int64_t t = 0; t < o.length; ++t) {
        const double oracle = std::sqrt(0.5) * literalRecurrent(o, d.x[n], t) / sr +
                              std::sqrt(0.5) * literalLookup(d.v[n], d.k[n], t) / sl;
        const double e = y[static_cast<int64_t>(n)][t][0] - oracle;
        se += e * e;
        ++count;
      }
    }
    const double mc = se / static_cast<double>(count);
    QVERIFY2(std::abs(mc - data.truth.bayes_floor) < 0.004,
             qPrintable(QString("Monte-Carlo oracle loss %1 vs floor %2").arg(mc).arg(0.09)));
  }

  void prefixesAndBadOptions() {
    const TaskOptions o = mixOptions(0.25, 0.1);
    const TaskData small = makeTask(o, 4, 3), large = makeTask(o, 16, 3);
    QVERIFY(torch::equal(small.train.x, large.train.x.slice(0, 0, 4)));
    QVERIFY(torch::equal(small.test.y, large.test.y));
    TaskOptions bad = o;
    bad.mix_share = 1.5;
    RunConfig c;
    c.task = bad;
    try {
      validate(c);
      QFAIL("mix_share 1.5 accepted");
    } catch (const std::invalid_argument& e) {
      QVERIFY(QString(e.what()).contains("task.mix_share"));
    }
  }

  void taskParametersAsAxes() {
    RunConfig c = defaultSweepConfig();
    c.task.name = "mix";
    QCOMPARE(taskParameterKey("mix.share"), std::string("mix_share"));
    QCOMPARE(taskParameterKey("task.noise"), std::string("noise"));
    QCOMPARE(withTaskParameter(c, "mix.share", 0.75).task.mix_share, 0.75);
    QCOMPARE(withTaskParameter(c, "length", 20).task.length, int64_t{20});
    QVERIFY(contains(errorOf([&] { withTaskParameter(c, "length", 20.5); }), "whole numbers"));
    QVERIFY(contains(errorOf([&] { withTaskParameter(c, "mix.share", 2.0); }), "task.mix_share"));
    QVERIFY(contains(errorOf([] { taskParameterKey("mix.colour"); }), "mix_share"));
    QVERIFY(contains(errorOf([] { taskParameterKey("name"); }), "not a numeric task parameter"));
  }
};

RSALAB_TEST_MAIN(TestMixTask)
#include "test_mix_task.moc"
