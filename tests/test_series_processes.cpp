// SPDX-License-Identifier: GPL-3.0-or-later
// The teacher processes of the series tasks `seasonal` and `ar` (engine/tasks/series_process.h):
// the defaults by the reach rule (scans that show where the AR(1) pole's reach lies); the
// process's values against literal loops of its recursion; determinism (the run seed draws the
// data, the process is the options'); unit variance; the floors: exact for power and jordan
// (against a Monte-Carlo estimate of the best linear predictor from the window), a labelled lower
// bound for nonlinear and selective (below what a linear predictor reaches, and reached by the
// oracle that knows the state); the options' and a session bundle's round trip.
#include <QTemporaryDir>
#include <cmath>

#include "engine/core/config/run_config.h"
#include "engine/core/registry/ground_truth.h"
#include "engine/core/session/session_bundle.h"
#include "engine/tasks/series_process.h"
#include "engine/tasks/synthetic_series.h"
#include "engine/tasks/task.h"
#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_process.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::contains;

namespace {

const TeacherProcess kOthers[] = {TeacherProcess::Power, TeacherProcess::Jordan,
                                  TeacherProcess::Nonlinear, TeacherProcess::Selective};

QString name(TeacherProcess p) { return QString(enumName(p)); }

bool bounded(TeacherProcess p) {
  return p == TeacherProcess::Nonlinear || p == TeacherProcess::Selective;
}

TaskOptions seriesOptions(const std::string& task, TeacherProcess p, double noise = 0.1) {
  TaskOptions o;
  o.name = task;
  o.teacher_process = p;
  o.length = 8;
  o.horizon = 1;
  o.validation_size = 16;
  o.test_size = 16;
  o.noise = noise;
  return o;
}

std::vector<double> rawValues(const SeriesLayout& layout) {
  auto v = layout.values.select(1, 0).contiguous();
  return std::vector<double>(v.data_ptr<double>(), v.data_ptr<double>() + v.numel());
}

// The grid values whose reach equals `target`: "[lo, hi]" (empty when none), and its midpoint.
std::pair<QString, double> matched(TaskOptions o, double TaskOptions::*field, double from,
                                   double to, double step, int64_t target) {
  double lo = NAN, hi = NAN;
  for (double v = from; v <= to + 1e-12; v += step) {
    o.*field = v;
    if (std::abs(v) < 1e-12 && field == &TaskOptions::series_d) continue;  // d = 0: white noise
    if (seriesReach(o) != target) continue;
    if (std::isnan(lo)) lo = v;
    hi = v;
  }
  if (std::isnan(lo)) return {QString(), NAN};
  return {QString("[%1, %2]").arg(lo).arg(hi), (lo + hi) / 2};
}

// Mean over positions t < T of the residual variance of the least-squares linear predictor of
// s_{t+1} from s_0..s_t (no intercept: a zero-mean process), over the windows of `values` that
// start at multiples of T + 1: a Monte-Carlo estimate of the best linear predictor's error.
double linearPredictorError(const std::vector<double>& values, int64_t T) {
  const int64_t span = T + 1, n = static_cast<int64_t>(values.size()) / span;
  double total = 0;
  for (int64_t t = 0; t < T; ++t) {
    const auto p = static_cast<size_t>(t + 1);
    std::vector<double> a(p * p, 0.0), b(p, 0.0);  // normal equations
    for (int64_t w = 0; w < n; ++w) {
      const double* s = values.data() + w * span;
      for (size_t i = 0; i < p; ++i) {
        b[i] += s[i] * s[t + 1];
        for (size_t j = 0; j < p; ++j) a[i * p + j] += s[i] * s[j];
      }
    }
    for (size_t c = 0; c < p; ++c) {  // Gaussian elimination (a is positive definite)
      for (size_t r = c + 1; r < p; ++r) {
        const double f = a[r * p + c] / a[c * p + c];
        for (size_t j = c; j < p; ++j) a[r * p + j] -= f * a[c * p + j];
        b[r] -= f * b[c];
      }
    }
    std::vector<double> coef(p);
    for (size_t c = p; c-- > 0;) {
      double v = b[c];
      for (size_t j = c + 1; j < p; ++j) v -= a[c * p + j] * coef[j];
      coef[c] = v / a[c * p + c];
    }
    double se = 0;
    for (int64_t w = 0; w < n; ++w) {
      const double* s = values.data() + w * span;
      double pred = 0;
      for (size_t i = 0; i < p; ++i) pred += coef[i] * s[i];
      se += (s[t + 1] - pred) * (s[t + 1] - pred);
    }
    total += se / static_cast<double>(n);
  }
  return total / static_cast<double>(T);
}

}  // namespace

class TestSeriesProcesses : public QObject {
  Q_OBJECT
 private slots:
  // The reach rule: each default has the reach of the default AR(1) pole (rem). Each parameter is
  // scanned with the others fixed and the default is the midpoint of the matched interval (to
  // within a grid step for nonlinear and selective, whose reach is a Monte-Carlo estimate: their
  // defaults are the midpoints of a scan on another stream, 8000 sequences): power's
  // d (step 0.01 over (−0.5, 0.5); no long-memory d > 0 matches: their reach is far longer),
  // jordan's λ (0.01), nonlinear's φ for x ≥ 0 (0.005, φ = 0.2 below 0), selective's lower decay
  // (0.01, top 0.99).
  void defaultsMatchTheArPolesReach() {
    TaskOptions rem = seriesOptions("ar", TeacherProcess::Rem);
    const int64_t target = seriesReach(rem);
    for (TeacherProcess p : kOthers) {
      const TaskOptions o = seriesOptions("ar", p);
      const int64_t reach = seriesReach(o);
      std::pair<QString, double> scan;
      double value = NAN, step = 0.01;
      if (p == TeacherProcess::Power) {
        scan = matched(o, &TaskOptions::series_d, -0.49, 0.49, 0.01, target);
        value = o.series_d;
        TaskOptions longer = o;
        int64_t shortest = 1000;
        for (int d = 1; d <= 49; ++d) {
          longer.series_d = d / 100.0;
          shortest = std::min(shortest, seriesReach(longer));
        }
        qInfo("power: the shortest reach of a long-memory d in (0, 0.5) is %lld",
              static_cast<long long>(shortest));
        QVERIFY(shortest > target);
      }
      if (p == TeacherProcess::Jordan) {
        scan = matched(o, &TaskOptions::series_lambda, 0.5, 0.95, 0.01, target);
        value = o.series_lambda;
      }
      if (p == TeacherProcess::Nonlinear) {
        scan = matched(o, &TaskOptions::series_phi_high, 0.8, 0.95, 0.005, target);
        value = o.series_phi_high;
        step = 0.005;
      }
      if (p == TeacherProcess::Selective) {
        scan = matched(o, &TaskOptions::series_decay_min, 0.0, 0.9, 0.01, target);
        value = o.series_decay_min;
      }
      qInfo("%s: reach %lld (ar's rem %lld); matched on the scan: %s, midpoint %.4f",
            qPrintable(name(p)), static_cast<long long>(reach), static_cast<long long>(target),
            qPrintable(scan.first), scan.second);
      QVERIFY2(reach == target, qPrintable(name(p) + QString(" reach %1").arg(reach)));
      const double tolerance = bounded(p) ? step : step / 2;
      QVERIFY2(
          std::abs(value - scan.second) <= tolerance + 1e-9,
          qPrintable(name(p) + QString(" default %1, midpoint %2").arg(value).arg(scan.second)));
    }
  }

  // ψ of power against Γ(k + d) / (Γ(k + 1) Γ(d)); jordan's closed-form σ² against Σ ψ_k²;
  // selective's E a and E a² against quadrature; each autocovariance at lag 0 is 1.
  void closedFormsAgainstLiteralOnes() {
    const SeriesProcessModel power = makeSeriesProcess(seriesOptions("ar", TeacherProcess::Power));
    const double d = TaskOptions{}.series_d;
    for (int k = 0; k <= 40; ++k) {
      const double want = std::tgamma(k + d) / (std::tgamma(k + 1.0) * std::tgamma(d));
      QVERIFY2(std::abs(power.psi[static_cast<size_t>(k)] - want) < 1e-12 * (1 + std::abs(want)),
               qPrintable(QString("ψ_%1").arg(k)));
    }
    const SeriesProcessModel jordan =
        makeSeriesProcess(seriesOptions("ar", TeacherProcess::Jordan));
    double sum = 0;
    for (double v : jordan.psi) sum += v * v;
    QVERIFY(std::abs(jordan.variance - sum) < 1e-9 * sum);
    const SeriesProcessModel sel =
        makeSeriesProcess(seriesOptions("ar", TeacherProcess::Selective));
    double m1 = 0, m2 = 0, s1 = 0, s2 = 0;
    const int n = 20000;
    const double lo = -12, h = 24.0 / n;
    for (int i = 0; i <= n; ++i) {  // Simpson
      const double e = lo + h * i, w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
      const double g = std::exp(-0.5 * e * e) / std::sqrt(2 * M_PI), a = sel.decay(e);
      m1 += w * a * g;
      m2 += w * a * a * g;
      s1 += w * a * e * e * g;
      s2 += w * a * a * e * e * g;
    }
    QVERIFY(std::abs(m1 * h / 3 - sel.decayMean()) < 1e-10);
    QVERIFY(std::abs(m2 * h / 3 - sel.decaySecondMoment()) < 1e-10);
    QVERIFY(std::abs(s1 * h / 3 - sel.decayShockMoment()) < 1e-10);
    QVERIFY(std::abs(s2 * h / 3 - sel.decaySquaredShockMoment()) < 1e-10);
    for (const SeriesProcessModel* p : {&power, &jordan})
      QVERIFY(std::abs(seriesProcessAutocovariance(*p, 3)[0] - 1) < 1e-12);
  }

  // The values of the task are the process's recursion, run here literally from the same streams
  // (ar, noise 0: the series is the process alone); the run seed draws them, the options fix the
  // process (its scale, its truth).
  void valuesFollowTheRecursionAndTheSeeds() {
    using task_support::kBackwardStream;
    using task_support::kForwardStream;
    using task_support::streamSeed;
    for (TeacherProcess p : {TeacherProcess::Nonlinear, TeacherProcess::Selective}) {
      const TaskOptions o = seriesOptions("ar", p, 0.0);
      const auto model = makeSeriesProcess(o);
      const auto layout = makeSyntheticSeriesLayout(o, 4, 7);
      const auto values = rawValues(layout);
      const int64_t v0 = layout.train_end;
      for (const auto& [stream, from, to] :
           {std::tuple<int, int64_t, int64_t>{kForwardStream, v0, layout.length()},
            {kBackwardStream, 0, v0}}) {
        task_support::TaskRng rng(streamSeed(7, static_cast<uint64_t>(stream), 1));
        double x = 0, e_before = 0;
        auto next = [&] {  // selective's decay is set by the last innovation, e_{t−1}
          const double e = rng.normal();
          x = p == TeacherProcess::Nonlinear
                  ? (x >= 0 ? o.series_phi_high : o.series_phi_low) * x + e
                  : (o.series_decay_min + (o.series_decay_max - o.series_decay_min) *
                                              std::exp(-0.5 * e_before * e_before)) *
                            x +
                        e;
          e_before = e;
        };
        for (int64_t t = 0; t < kSeriesBurnIn; ++t) next();
        double worst = 0;
        for (int64_t t = from; t < to; ++t) {
          next();
          worst = std::max(worst, std::abs(values[static_cast<size_t>(t)] -
                                           (x - model.mean) / std::sqrt(model.variance)));
        }
        QVERIFY2(worst < 1e-12, qPrintable(name(p) + QString(" max |Δ| %1").arg(worst)));
      }
    }
    for (TeacherProcess p : kOthers) {
      for (const std::string task : {"seasonal", "ar"}) {
        const TaskOptions o = seriesOptions(task, p);
        const TaskData a = makeTask(o, 6, 1), again = makeTask(o, 6, 1), b = makeTask(o, 6, 2);
        QVERIFY(torch::equal(a.train.x, again.train.x) && torch::equal(a.test.y, again.test.y));
        QVERIFY(!torch::equal(a.train.x, b.train.x));  // the run seed draws the data
        QCOMPARE(a.truth.description, b.truth.description);
        QCOMPARE(a.truth.kernel, b.truth.kernel);
        QVERIFY(a.truth.no_rem_form && a.truth.components.empty());
        // Validation and test do not move with N (as for rem).
        const TaskData big = makeTask(o, 60, 1);
        QVERIFY(torch::equal(a.test.y, big.test.y));
      }
    }
  }

  // Unit variance: the process alone (ar, noise 0) over a long series; batch means (blocks of
  // 4096 rows) give the standard error; nonlinear's Monte-Carlo scale adds its own.
  void processesHaveUnitVariance() {
    for (TeacherProcess p : kOthers) {
      const TaskOptions o = seriesOptions("ar", p, 0.0);
      const auto values = rawValues(makeSyntheticSeriesLayout(o, 1, 3));
      const int64_t block = 4096, blocks = static_cast<int64_t>(values.size()) / block;
      double sum = 0, sum2 = 0;
      for (int64_t b = 0; b < blocks; ++b) {
        double m = 0;
        for (int64_t t = b * block; t < (b + 1) * block; ++t)
          m += values[static_cast<size_t>(t)] * values[static_cast<size_t>(t)];
        m /= static_cast<double>(block);
        sum += m;
        sum2 += m * m;
      }
      const double mean = sum / static_cast<double>(blocks);
      const double se = std::sqrt((sum2 / static_cast<double>(blocks) - mean * mean) /
                                  static_cast<double>(blocks - 1));
      const auto model = makeSeriesProcess(o);
      const double scale_se = model.variance_se / model.variance;
      qInfo("%s: E x² = %.4f ± %.4f over %lld rows (σ² = %.5g ± %.2g)", qPrintable(name(p)), mean,
            se, static_cast<long long>(blocks * block), model.variance, model.variance_se);
      QVERIFY2(std::abs(mean - 1) < 4 * std::sqrt(se * se + scale_se * scale_se),
               qPrintable(name(p) + QString(": E x² = %1 ± %2").arg(mean).arg(se)));
    }
  }

  // selective's autocorrelation (an ARMA(1, 1)'s, series_process.h) against the sample one of a
  // long noise-free series (4 standard errors by Bartlett's formula, 1/√n per lag at most ~3/√n).
  void selectiveAutocorrelationIsClosedForm() {
    const TaskOptions o = seriesOptions("ar", TeacherProcess::Selective, 0.0);
    const auto values = rawValues(makeSyntheticSeriesLayout(o, 1, 17));
    const auto acov = syntheticSeriesAutocovariance(o, 4);
    const double n = static_cast<double>(values.size());
    for (size_t k = 1; k < 4; ++k) {
      double c = 0, v = 0;
      for (size_t t = 0; t < values.size(); ++t) {
        v += values[t] * values[t];
        if (t >= k) c += values[t] * values[t - k];
      }
      const double rho = c / v;
      qInfo("selective: lag %zu, autocorrelation %.4f (closed form %.4f, n %.0f)", k, rho, acov[k],
            n);
      QVERIFY2(std::abs(rho - acov[k]) < 12 / std::sqrt(n),
               qPrintable(QString("lag %1: %2 vs %3").arg(k).arg(rho).arg(acov[k])));
    }
  }

  // power and jordan: the task's floor (Cholesky of the exact autocovariance) against the error
  // of the least-squares linear predictor fitted on ~30000 windows of the raw series, which is
  // the optimal predictor for a Gaussian process (4 standard errors, √(2/n) relative).
  // nonlinear and selective: the floor is labelled a lower bound, lies below that linear
  // predictor's error, and (ar, noise 0, where the state x_{t−1} is the last value) the oracle
  // predictor E[x_t | x_{t−1}] reaches it.
  void floorsExactOrBounds() {
    for (TeacherProcess p : kOthers) {
      for (const std::string task : {"ar", "seasonal"}) {
        TaskOptions o = seriesOptions(task, p);
        const int64_t n = 30000;
        const auto layout = makeSyntheticSeriesLayout(o, n, 11);
        auto values = rawValues(layout);
        values.resize(static_cast<size_t>(layout.train_end));
        const double linear = linearPredictorError(values, o.length);
        const TaskData data = makeTask(o, 4, 11);
        const double scale = makeSyntheticSeriesLayout(o, 4, 11).stddev[0];
        const double floor = data.truth.bayes_floor * scale * scale;  // raw units
        QCOMPARE(data.truth.floor_is_bound, bounded(p));
        QVERIFY(contains(data.summary, bounded(p) ? "(a lower bound)" : "(exact)"));
        qInfo("%s %s: floor %.5f (%s), linear predictor %.5f (Monte Carlo)", qPrintable(name(p)),
              task.c_str(), floor, bounded(p) ? "a lower bound" : "exact", linear);
        if (!bounded(p)) {
          const double tolerance = 4 * std::sqrt(2.0 / n) * floor;
          QVERIFY2(std::abs(linear - floor) < tolerance,
                   qPrintable(name(p) + " " + QString::fromStdString(task) +
                              QString(": %1 vs %2").arg(linear).arg(floor)));
        } else {
          QVERIFY2(floor < linear * (1 - 4 * std::sqrt(2.0 / n)),
                   qPrintable(name(p) + QString(": %1 vs %2").arg(floor).arg(linear)));
        }
      }
      if (!bounded(p)) continue;
      const TaskOptions o = seriesOptions("ar", p, 0.0);
      const auto model = makeSeriesProcess(o);
      const auto values = rawValues(makeSyntheticSeriesLayout(o, 1, 13));
      double se = 0;
      const double sd = std::sqrt(model.variance);
      // selective's state includes e_{t−1}: with noise 0 it is x_{t−1} − a(e_{t−2}) x_{t−2},
      // recovered along the series from a first guess of 0 (the guess's error dies out within a
      // few steps: a' is small where a·x is large); the first 100 steps are left out.
      double e_before = 0;
      int64_t counted = 0;
      for (size_t t = 1; t < values.size(); ++t) {
        const double x = values[t - 1] * sd + model.mean;  // back to the raw state
        const double x_next = values[t] * sd + model.mean;
        const double expected =
            p == TeacherProcess::Nonlinear ? model.coefficient(x) * x : model.decay(e_before) * x;
        const double e = x_next - expected;  // raw innovation e_t (selective: from the guess)
        if (p == TeacherProcess::Selective) e_before = e;
        if (t < 100) continue;
        se += e * e / model.variance;
        ++counted;
      }
      const double oracle = se / static_cast<double>(counted);
      qInfo("%s: the state-knowing oracle's error %.4f, the bound %.4f", qPrintable(name(p)),
            oracle, model.oracleError());
      QVERIFY2(
          std::abs(oracle - model.oracleError()) < 0.03 * model.oracleError(),
          qPrintable(name(p) + QString(": oracle %1 vs %2").arg(oracle).arg(model.oracleError())));
    }
  }

  // rem stays today's task: REM components, no bound.
  void remIsTodaysTask() {
    const TaskData data = makeTask(seriesOptions("seasonal", TeacherProcess::Rem), 4, 3);
    QVERIFY(!data.truth.no_rem_form && !data.truth.components.empty());
    QVERIFY(!data.truth.floor_is_bound && contains(data.summary, "(exact)"));
  }

  // A session bundle keeps the process and its truth (the bound's label too); reopened, it
  // builds the same task. Bad options are refused by name.
  void sessionBundlesKeepTheProcess() {
    QTemporaryDir dir;
    for (TeacherProcess p : kOthers) {
      SessionBundle b;
      b.config = defaultRunConfig();
      b.config.task = seriesOptions("seasonal", p);
      b.models = {"rsa"};
      b.truth = makeTask(b.config.task, 2, 1).truth;
      const std::string path = dir.filePath(name(p)).toStdString();
      saveSession(b, path);
      const SessionBundle loaded = loadSession(path);
      QVERIFY(loaded.config.task.teacher_process == p);
      QCOMPARE(toJson(loaded.config), toJson(b.config));
      QCOMPARE(loaded.truth.floor_is_bound, bounded(p));
      QCOMPARE(loaded.truth.kernel, b.truth.kernel);
      QCOMPARE(loaded.truth.reach, b.truth.reach);
      QCOMPARE(loaded.truth.bayes_floor, b.truth.bayes_floor);
      QVERIFY(torch::equal(makeTask(loaded.config.task, 4, 5).train.y,
                           makeTask(b.config.task, 4, 5).train.y));
    }
    RunConfig bad = defaultRunConfig();
    bad.task = seriesOptions("ar", TeacherProcess::Selective);
    bad.task.series_decay_min = 0.995;
    QVERIFY(contains(test::errorOf([&] { validate(bad); }), "series_decay_min"));
  }
};

RSALAB_TEST_MAIN(TestSeriesProcesses)
#include "test_series_processes.moc"
