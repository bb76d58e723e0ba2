// SPDX-License-Identifier: GPL-3.0-or-later
// Ground truth that means what it says: the Bayes floor of the synthetic series (Cholesky of the
// Toeplitz covariance) against an independent Kalman filter for AR(1) + observation noise, one-
// and multi-step; the task's floor in its normalised units; the teacher's floor; what "true" means
// per task.
#include <cmath>

#include "engine/core/registry/ground_truth.h"
#include "engine/tasks/synthetic_series.h"
#include "engine/tasks/task.h"
#include "support/test_support.h"

using namespace rsalab;

namespace {

// Mean over t < T, h = 1..H of Var(s_{t+h} | s_0..s_t) for s_t = a_t + n_t, a an AR(1) with pole
// λ and unit variance, n white with variance r: a Kalman filter on a.
double kalmanFloor(double lambda, double r, int64_t T, int64_t H) {
  const double q = 1 - lambda * lambda;
  double p_pred = 1.0;  // Var(a_0) before any observation
  double total = 0;
  for (int64_t t = 0; t < T; ++t) {
    const double p_filt = p_pred * r / (p_pred + r);  // after seeing s_t
    for (int64_t h = 1; h <= H; ++h) {
      // a_{t+h} = λ^h a_t + Σ_{i<h} λ^i w: variance λ^{2h} P_filt + q Σ λ^{2i}; plus n.
      double var = std::pow(lambda, 2.0 * h) * p_filt + r;
      for (int64_t i = 0; i < h; ++i) var += q * std::pow(lambda, 2.0 * i);
      total += var;
    }
    p_pred = lambda * lambda * p_filt + q;
  }
  return total / static_cast<double>(T * H);
}

std::vector<double> ar1Acov(double lambda, double r, int64_t n) {
  std::vector<double> acov(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) acov[static_cast<size_t>(k)] = std::pow(lambda, double(k));
  acov[0] += r;
  return acov;
}

}  // namespace

class TestBayesFloor : public QObject {
  Q_OBJECT
 private slots:
  void choleskyFloorEqualsKalman() {
    for (const auto& [lambda, r, T, H] :
         {std::tuple<double, double, int64_t, int64_t>{0.8, 0.01, 16, 1},
          {0.8, 0.25, 16, 1},
          {-0.5, 0.1, 7, 3},
          {0.95, 0.0, 12, 2}}) {
      const double want = kalmanFloor(lambda, r, T, H);
      const double got = gaussianWindowFloor(ar1Acov(lambda, r, T + H), T, H);
      QVERIFY2(std::abs(got - want) < 1e-10,
               qPrintable(QString("λ=%1 r=%2 T=%3 H=%4: %5 vs Kalman %6")
                              .arg(lambda)
                              .arg(r)
                              .arg(T)
                              .arg(H)
                              .arg(got)
                              .arg(want)));
    }
    // Noise-free AR(1), one step: every position's error variance is the innovation 1 − λ².
    QVERIFY(std::abs(gaussianWindowFloor(ar1Acov(0.8, 0, 33), 32, 1) - 0.36) < 1e-12);
    // Too few lags: unknown, not a number.
    QVERIFY(std::isnan(gaussianWindowFloor(ar1Acov(0.8, 0, 10), 32, 1)));
  }
  void arTaskFloorIsInItsNormalisedUnits() {
    TaskOptions o;
    o.name = "ar";
    o.ar_poles = {0.8};
    o.noise = 0.3;
    o.length = 24;
    o.validation_size = 8;
    o.test_size = 8;
    const TaskData data = makeTask(o, 16, /*seed=*/3);
    const auto layout = makeSyntheticSeriesLayout(o, 16, 3);
    const double sd = layout.stddev[0];
    QVERIFY(data.truth.hasFloor());
    QVERIFY(std::abs(data.truth.bayes_floor - kalmanFloor(0.8, 0.09, 24, 1) / (sd * sd)) < 1e-10);
    // A floor below the variance (predicting 0 scores ≈ 1 in normalised units) and above the
    // noise share it cannot remove.
    QVERIFY(data.truth.bayes_floor < 1.0);
    QVERIFY(data.truth.bayes_floor > 0.09 / (sd * sd));
    QVERIFY(data.truth.meaning.find("not the optimum") != std::string::npos);
  }
  void seasonalAutocovarianceMatchesTheSimulatedSeries() {
    // The Yule–Walker autocovariance behind the floor against the sample autocovariance of the
    // task's own long train period (65536 rows): within Monte-Carlo error.
    TaskOptions o;
    o.name = "seasonal";
    o.ar_poles = {0.8};
    o.periods = {12};
    o.dampings = {0.9};
    o.noise = 0.2;
    const auto layout = makeSyntheticSeriesLayout(o, 16, 5);
    const auto acov = syntheticSeriesAutocovariance(o, 13);
    auto s = layout.values.select(1, 0).narrow(0, 0, layout.train_end);
    s = s - s.mean();
    const int64_t n = s.size(0);
    for (int64_t k : {0, 1, 3, 6, 12}) {
      const double sample =
          (s.narrow(0, 0, n - k) * s.narrow(0, k, n - k)).sum().item<double>() / double(n);
      QVERIFY2(std::abs(sample - acov[size_t(k)]) < 0.06,
               qPrintable(QString("lag %1: sample %2 vs %3").arg(k).arg(sample).arg(acov[k])));
    }
  }
  void teacherFloorIsZeroAndItsTruthIsTheKernel() {
    TaskOptions o;
    o.name = "teacher";
    o.teacher_kinds = {TeacherKind::Regular, TeacherKind::Cos};
    o.teacher_bases = {0.8, 0.9};
    o.teacher_thetas = {0.0, 0.5};
    o.length = 16;
    o.validation_size = 4;
    o.test_size = 4;
    const TaskData data = makeTask(o, 8, 1);
    QCOMPARE(data.truth.bayes_floor, 0.0);
    QCOMPARE(data.truth.components.size(), size_t{2});
    QCOMPARE(data.truth.components[1].kind, RemKind::Cos);
    QVERIFY(data.truth.meaning.find("generating REM") != std::string::npos);
  }
  void tasksWithoutAKnownFloorSaySo() {
    TaskOptions o;
    o.name = "parity";
    QVERIFY(!makeTask(o, 8, 1).truth.hasFloor());
  }
};

RSALAB_REGISTER_TEST(TestBayesFloor, QTEST_MAIN)
#include "test_bayes_floor.moc"
