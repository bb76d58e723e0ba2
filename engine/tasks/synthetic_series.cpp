// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/synthetic_series.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/tasks/series_process.h"
#include "engine/tasks/task_support.h"
#include "engine/tasks/teacher_process.h"

namespace rsalab {
namespace {

using namespace task_support;

struct Component {
  bool cyclic = false;
  double lambda = 0;            // AR(1) pole
  double gamma = 0, theta = 0;  // damped oscillator
  double period = 0;
  bool process = false;  // the jordan process (a repeated root: γ = λ, θ = 0), not an REM
};

bool remProcess(const TaskOptions& o) { return o.teacher_process == TeacherProcess::Rem; }

// The components the AR recursion generates: the poles (rem) or the jordan process in their
// place, then the seasons. power, nonlinear and selective come from series_process.h.
std::vector<Component> components(const TaskOptions& o) {
  std::vector<Component> out;
  for (size_t i = 0; i < o.ar_poles.size() && remProcess(o); ++i) {
    const double l = o.ar_poles[i];
    requireReal(std::abs(l) < 1, indexed("ar_poles", i), l, "(-1, 1)");
    out.push_back({false, l, 0, 0, 0, false});
  }
  if (o.teacher_process == TeacherProcess::Jordan) {
    requireReal(std::abs(o.series_lambda) < 1, "series_lambda", o.series_lambda, "(-1, 1)");
    out.push_back({true, 0, o.series_lambda, 0, 0, true});
  }
  if (o.name == "seasonal") {
    if (!o.periods.empty() && o.dampings.size() != 1 && o.dampings.size() != o.periods.size()) {
      throw std::invalid_argument("dampings has " + std::to_string(o.dampings.size()) +
                                  " values but periods has " + std::to_string(o.periods.size()) +
                                  ": give one damping per period, or one for all");
    }
    for (size_t i = 0; i < o.periods.size(); ++i) {
      const double p = o.periods[i];
      requireReal(p >= 2 && p <= 1e6, indexed("periods", i), p, "[2, 1000000]");
      const size_t d = o.dampings.size() == 1 ? 0 : i;
      const double g = o.dampings[d];
      requireReal(g >= 0 && g < 1, indexed("dampings", d), g, "[0, 1)");
      out.push_back({true, 0, g, 2 * M_PI / p, p, false});
    }
  }
  if (out.empty() && remProcess(o)) {
    throw std::invalid_argument(o.name == "ar"
                                    ? "ar_poles is empty: the ar task needs at least one pole"
                                    : "ar_poles and periods are both empty: the seasonal task "
                                      "needs at least one component");
  }
  return out;
}

// Innovation std giving unit stationary variance.
double innovationStd(const Component& c) {
  if (!c.cyclic) return std::sqrt(1 - c.lambda * c.lambda);
  const double p1 = 2 * c.gamma * std::cos(c.theta), p2 = -c.gamma * c.gamma;
  // AR(2): Var = σ² (1 − φ2) / ((1 + φ2)((1 − φ2)² − φ1²))
  const double ratio = (1 - p2) / ((1 + p2) * ((1 - p2) * (1 - p2) - p1 * p1));
  return 1 / std::sqrt(ratio);
}

// Adds one component to s on rows [0, L): a stationary start at rows v0, v0+1, forwards from
// there and backwards in time before v0. An AR(1) is the AR(2) recursion with φ1 = λ, φ2 = 0.
void addComponent(const Component& c, int64_t v0, int64_t L, uint64_t fwd_seed, uint64_t bwd_seed,
                  std::vector<double>& s) {
  const double p1 = c.cyclic ? 2 * c.gamma * std::cos(c.theta) : c.lambda;
  const double p2 = c.cyclic ? -c.gamma * c.gamma : 0.0;
  const double rho1 = p1 / (1 - p2);  // stationary lag-1 correlation
  const double sigma = innovationStd(c);
  auto at = [&](int64_t t) -> double& { return s[static_cast<size_t>(t)]; };
  TaskRng fwd(fwd_seed), bwd(bwd_seed);
  const double a0 = fwd.normal();  // unit variance, lag-1 correlation ρ1: the stationary law
  const double a1 = rho1 * a0 + std::sqrt(std::max(0.0, 1 - rho1 * rho1)) * fwd.normal();
  at(v0) += a0;
  at(v0 + 1) += a1;
  double back2 = a0, back1 = a1;  // a_{t−2}, a_{t−1}
  for (int64_t t = v0 + 2; t < L; ++t) {
    const double a = p1 * back1 + p2 * back2 + sigma * fwd.normal();
    at(t) += a;
    back2 = back1;
    back1 = a;
  }
  double ahead1 = a0, ahead2 = a1;  // a_{t+1}, a_{t+2}
  for (int64_t t = v0 - 1; t >= 0; --t) {
    const double a = p1 * ahead1 + p2 * ahead2 + sigma * bwd.normal();
    at(t) += a;
    ahead2 = ahead1;
    ahead1 = a;
  }
}

}  // namespace

SeriesLayout makeSyntheticSeriesLayout(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  const auto comps = components(o);
  requireReal(o.noise >= 0 && o.noise <= 1000, "noise", o.noise, "[0, 1000]");
  requireRange("horizon", o.horizon, 1, 1024);
  const int64_t span = o.length + o.horizon;  // rows one window covers
  const int64_t train_rows = std::max(train_size * span, kMinTrainPeriod);
  const int64_t v0 = train_rows;
  const int64_t L = v0 + (o.validation_size + o.test_size) * span;

  std::vector<double> s(static_cast<size_t>(L), 0.0);
  for (size_t k = 0; k < comps.size(); ++k) {
    addComponent(comps[k], v0, L, streamSeed(seed, kForwardStream, k),
                 streamSeed(seed, kBackwardStream, k), s);
  }
  if (!remProcess(o) && o.teacher_process != TeacherProcess::Jordan) {
    addSeriesProcess(makeSeriesProcess(o), v0, L,
                     streamSeed(seed, kForwardStream, comps.size() + 1),
                     streamSeed(seed, kBackwardStream, comps.size() + 1), s);
  }
  TaskRng fwd(streamSeed(seed, kForwardStream, comps.size()));
  TaskRng bwd(streamSeed(seed, kBackwardStream, comps.size()));
  for (int64_t t = v0; t < L; ++t) s[static_cast<size_t>(t)] += o.noise * fwd.normal();
  for (int64_t t = v0 - 1; t >= 0; --t) s[static_cast<size_t>(t)] += o.noise * bwd.normal();

  SeriesLayout layout;
  layout.values = torch::tensor(s, torch::TensorOptions().dtype(torch::kFloat64)).view({L, 1});
  layout.train_end = v0;
  layout.validation_end = v0 + o.validation_size * span;
  for (int64_t k = 0; k < train_size; ++k)
    layout.train_starts.push_back(v0 - (train_size - k) * span);
  for (int64_t j = 0; j < o.validation_size; ++j) layout.validation_starts.push_back(v0 + j * span);
  for (int64_t j = 0; j < o.test_size; ++j) {
    layout.test_starts.push_back(layout.validation_end + j * span);
  }
  fitTrainNormalisation(layout);
  return layout;
}

GroundTruth syntheticSeriesTruth(const TaskOptions& o) {
  GroundTruth truth;
  std::string d;
  if (!remProcess(o)) {  // no REM form: no head is matched, not even against the seasons
    const auto p = makeSeriesProcess(o);
    truth.no_rem_form = true;
    for (size_t k = 1; k < p.psi.size() && k <= static_cast<size_t>(kTruthKernelLags); ++k)
      truth.kernel.push_back(p.psi[k] * p.scale());
    truth.reach = static_cast<double>(seriesReach(o));
    d = seriesProcessFormula(p, o) + " (no REM form, reach " +
        std::to_string(static_cast<int64_t>(truth.reach)) + " lags)";
  }
  for (const auto& c : components(o)) {
    if (c.process) continue;
    if (!d.empty()) d += " + ";
    if (!remProcess(o)) {
      d += "season P=" + formatNumber(c.period, 6) + " γ=" + formatNumber(c.gamma, 6);
    } else if (c.cyclic) {
      // The pole pair γe^{±iθ} contributes a cos and a sin REM (the RSA paper's decomposition).
      truth.components.push_back({RemKind::Cos, c.gamma, c.theta});
      truth.components.push_back({RemKind::Sin, c.gamma, c.theta});
      d += "season P=" + formatNumber(c.period, 6) + " γ=" + formatNumber(c.gamma, 6);
    } else {
      truth.components.push_back({RemKind::Regular, c.lambda, 0.0});
      d += "AR(1) λ=" + formatNumber(c.lambda, 6);
    }
  }
  truth.description = d + " + noise " + formatNumber(o.noise, 6);
  // With observation noise the optimal one-step predictor's lag weights decay at other rates than
  // the poles: the poles generate the data but are not what this loss rewards exactly.
  truth.meaning = remProcess(o) ? "generating poles (not the optimum of this loss)"
                                : "the " + std::string(enumName(o.teacher_process)) +
                                      " process (no REM form: no head is matched)";
  return truth;
}

std::vector<double> syntheticSeriesAutocovariance(const TaskOptions& o, int64_t lags,
                                                  bool with_process) {
  std::vector<double> acov(static_cast<size_t>(std::max<int64_t>(lags, 1)), 0.0);
  if (o.teacher_process == TeacherProcess::Nonlinear && with_process)
    throw std::invalid_argument("the nonlinear process has no closed-form autocovariance");
  if (with_process && (o.teacher_process == TeacherProcess::Power ||
                       o.teacher_process == TeacherProcess::Selective)) {
    // selective: ARMA(1, 1)-like, γ_k = (E a)^{k−1} γ_1 (series_process.h), over σ²
    const auto p = makeSeriesProcess(o);
    if (o.teacher_process == TeacherProcess::Power) {
      acov = seriesProcessAutocovariance(p, static_cast<int64_t>(acov.size()));
    } else {
      const double g1 = (p.decayMean() * (p.variance - 1) + p.decayShockMoment()) / p.variance;
      for (size_t k = 0; k < acov.size(); ++k)
        acov[k] = k == 0 ? 1.0 : g1 * std::pow(p.decayMean(), static_cast<double>(k - 1));
    }
  }
  for (const auto& c : components(o)) {
    if (c.process && !with_process) continue;
    // Unit stationary variance; AR(2) autocorrelation by the Yule–Walker recursion (an AR(1) is
    // φ1 = λ, φ2 = 0): ρ0 = 1, ρ1 = φ1 / (1 − φ2), ρk = φ1 ρk−1 + φ2 ρk−2.
    const double p1 = c.cyclic ? 2 * c.gamma * std::cos(c.theta) : c.lambda;
    const double p2 = c.cyclic ? -c.gamma * c.gamma : 0.0;
    double r2 = 1, r1 = p1 / (1 - p2);
    for (size_t k = 0; k < acov.size(); ++k) {
      const double r = k == 0 ? 1.0 : k == 1 ? r1 : p1 * r1 + p2 * r2;
      if (k >= 2) {
        r2 = r1;
        r1 = r;
      }
      acov[k] += r;
    }
  }
  acov[0] += o.noise * o.noise;
  return acov;
}

TaskData makeSyntheticSeriesTask(const TaskOptions& o, int64_t train_size, uint64_t seed) {
  TaskData data;
  data.name = o.name;
  data.objective = Objective::Regression;
  data.truth = syntheticSeriesTruth(o);
  const auto layout = makeSyntheticSeriesLayout(o, train_size, seed);
  // The task scores normalised values: divide the raw floor by the train part's variance.
  const double scale = layout.stddev.empty() ? 1.0 : layout.stddev[0];
  const bool bound = o.teacher_process == TeacherProcess::Nonlinear ||
                     o.teacher_process == TeacherProcess::Selective;
  if (!bound) {
    data.truth.bayes_floor =
        gaussianWindowFloor(syntheticSeriesAutocovariance(o, o.length + o.horizon), o.length,
                            o.horizon) /
        (scale * scale);
    data.truth.floor_note =
        "expected MSE of the optimal (Gaussian conditional) predictor given the window's past, "
        "in the train part's normalised units";
  } else {
    // An oracle that knows the process's state x_{t−1} (and so the rest: seasons and noise)
    const auto rest = syntheticSeriesAutocovariance(o, o.length + o.horizon, false);
    const bool none = std::all_of(rest.begin(), rest.end(), [](double v) { return v == 0; });
    data.truth.bayes_floor = (makeSeriesProcess(o).oracleError() +
                              (none ? 0.0 : gaussianWindowFloor(rest, o.length, o.horizon))) /
                             (scale * scale);
    data.truth.floor_is_bound = true;
    data.truth.floor_note =
        "a lower bound on the floor: the error of an oracle that knows the process's hidden "
        "state (the window cannot recover it), so excess losses are upper bounds; in the train "
        "part's normalised units";
  }
  data.train = cutWindows(layout, layout.train_starts, o.length, o.horizon);
  data.validation = cutWindows(layout, layout.validation_starts, o.length, o.horizon);
  data.test = cutWindows(layout, layout.test_starts, o.length, o.horizon);
  data.io.input_dim = 1;
  data.io.output_dim = o.horizon;
  data.columns = {"value"};
  data.norm = normModeName(o.norm);
  data.norm_mean = layout.mean;
  data.norm_std = layout.stddev;
  data.length = o.length;
  data.horizon = o.horizon;
  data.requested_train_size = train_size;
  // The seasonal naive uses the task's own first season unless a period is given.
  SeasonalPeriod period{1, "(the synthetic series has no season)"};
  if (o.seasonal_period > 0)
    period = {o.seasonal_period, "given by --period"};
  else if (o.name == "seasonal" && !o.periods.empty())
    period = {std::max<int64_t>(1, std::llround(o.periods.front())),
              "from the synthetic series' first season"};
  auto references = seriesReferences(layout, o.length, o.horizon, period);
  data.references = std::move(references.scores);
  data.season = references.season;
  data.mase_scale = std::move(references.mase_scale);
  data.summary = o.name + ": " + std::to_string(data.train.size()) + "/" +
                 std::to_string(data.validation.size()) + "/" + std::to_string(data.test.size()) +
                 " train/validation/test windows, T=" + std::to_string(o.length) + ", horizon " +
                 std::to_string(o.horizon) + "; " + data.truth.description + "; Bayes floor " +
                 (bound ? "≥ " : "") + formatNumber(data.truth.bayes_floor, 4) +
                 (bound ? " (a lower bound)" : " (exact)");
  if (!remProcess(o)) {
    const auto p = makeSeriesProcess(o);
    data.summary +=
        "; the process scaled to unit variance by σ²=" + formatNumber(p.variance, 6) +
        (p.variance_samples ? " ± " + formatNumber(p.variance_se, 2) + " (Monte Carlo, " +
                                  std::to_string(p.variance_samples) + " steps)"
                            : std::string(" (closed form)"));
  }
  return data;
}

}  // namespace rsalab
