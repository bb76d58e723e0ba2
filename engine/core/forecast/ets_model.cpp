// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/ets_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/core/forecast/forecast.h"
#include "engine/core/forecast/minimise.h"
#include "engine/core/forecast/series_tools.h"

namespace rsalab::forecast::ets {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The usual region's box (the smoothing weights stay off 0 and 1; the damping in 0.8 … 0.98).
constexpr double kLow = 1e-4, kHigh = 0.9999, kPhiLow = 0.8, kPhiHigh = 0.98;

bool hasTrend(const Form& f) { return f.trend != Component::None; }
bool damped(const Form& f) { return f.trend == Component::Damped; }
bool hasSeason(const Form& f) { return f.season != Component::None; }
bool multiplicativeSeason(const Form& f) { return f.season == Component::Multiplicative; }
bool multiplicativeError(const Form& f) { return f.error == Component::Multiplicative; }

const char* letter(Component c) {
  switch (c) {
    case Component::None:
      return "N";
    case Component::Additive:
      return "A";
    case Component::Multiplicative:
      return "M";
    case Component::Damped:
      return "Ad";
  }
  return "?";
}

// The moving-average polynomial of the form's linear (additive) version, in the backshift B,
// with the level–season unit root divided out; its roots lie outside the unit circle exactly
// when the discount matrix F − g w' has no other eigenvalue on or outside it. Derived by writing
// y_t in the innovations ε and multiplying by the states' autoregressive operators
// (1 − B)(1 − φB)(1 − B^m). Returned without its leading 1.
std::vector<double> discountPolynomial(const Form& form, const Parameters& p, int64_t m) {
  const double a = p.alpha, b = hasTrend(form) ? p.beta : 0.0;
  const double phi = hasTrend(form) ? (damped(form) ? p.phi : 1.0) : 0.0;
  const double g = hasSeason(form) ? p.gamma : 0.0;
  if (!hasSeason(form) || m < 2) {
    // 1 + (α + φβ − 1 − φ) B + φ (1 − α) B²  (1 − (1 − α) B without a trend)
    if (!hasTrend(form)) return {a - 1};
    return {a + phi * b - 1 - phi, phi * (1 - a)};
  }
  // (αB + φ(β − α)B²)(1 + … + B^{m−1}) + φβB(1 − B^m) + γB^m(1 − φB) + (1 − φB)(1 − B^m)
  std::vector<double> c(static_cast<size_t>(m + 2), 0.0);
  for (int64_t k = 0; k < m; ++k) {
    c[static_cast<size_t>(k + 1)] += a;
    c[static_cast<size_t>(k + 2)] += phi * (b - a);
  }
  c[1] += phi * b;
  c[static_cast<size_t>(m + 1)] -= phi * b;
  c[static_cast<size_t>(m)] += g;
  c[static_cast<size_t>(m + 1)] -= g * phi;
  c[0] += 1;
  c[1] -= phi;
  c[static_cast<size_t>(m)] -= 1;
  c[static_cast<size_t>(m + 1)] += phi;
  return std::vector<double>(c.begin() + 1, c.end());
}

// Parameter vector layout for the minimiser: α, [β*], [γ*], [φ], l₀, [b₀], [s_0 … s_{m−2}], with
// the trend and season weights in their component-form (Holt–Winters) scale, β = α β* and
// γ = (1 − α) γ*: the usual region's β ≤ α and γ ≤ 1 − α become β*, γ* ≤ 1, so the region is
// nearly a box, whose corners a simplex search can reach (a level weight near 1 with a season
// weight near 0 is a common optimum).
struct Layout {
  Form form;
  int64_t m = 1;
  int smoothing() const {
    return 1 + (hasTrend(form) ? 1 : 0) + (hasSeason(form) ? 1 : 0) + (damped(form) ? 1 : 0);
  }
  int states() const {
    return 1 + (hasTrend(form) ? 1 : 0) + (hasSeason(form) ? static_cast<int>(m) - 1 : 0);
  }
  int size() const { return smoothing() + states(); }

  std::vector<double> pack(const Parameters& p) const {
    std::vector<double> x{p.alpha};
    if (hasTrend(form)) x.push_back(p.beta / p.alpha);
    if (hasSeason(form)) x.push_back(p.gamma / (1 - p.alpha));
    if (damped(form)) x.push_back(p.phi);
    x.push_back(p.level);
    if (hasTrend(form)) x.push_back(p.slope);
    if (hasSeason(form)) x.insert(x.end(), p.season.begin(), p.season.end() - 1);
    return x;
  }
  void unpack(const std::vector<double>& x, Parameters& p) const {
    size_t i = 0;
    p.alpha = x[i++];
    p.beta = hasTrend(form) ? p.alpha * x[i++] : 0.0;
    p.gamma = hasSeason(form) ? (1 - p.alpha) * x[i++] : 0.0;
    p.phi = damped(form) ? x[i++] : 1.0;
    p.level = x[i++];
    p.slope = hasTrend(form) ? x[i++] : 0.0;
    if (!hasSeason(form)) {
      p.season.clear();
      return;
    }
    p.season.resize(static_cast<size_t>(m));
    double sum = 0;
    for (size_t j = 0; j + 1 < p.season.size(); ++j) sum += p.season[j] = x[i++];
    p.season.back() = (multiplicativeSeason(form) ? static_cast<double>(m) : 0.0) - sum;
  }
};

// The book's starting states (section 2.6; the smoothing weights come from a grid in fitForm):
// seasonal indices from a centred moving average over the first seasons, then a line through the
// first seasonally adjusted values gives l₀ and b₀.
Parameters heuristicStart(const Form& form, const std::vector<double>& y, int64_t m) {
  Parameters p;
  const auto n = static_cast<int64_t>(y.size());
  std::vector<double> adjusted(y);
  if (hasSeason(form)) {
    const std::vector<double> head(y.begin(), y.begin() + std::min(n, 4 * m));
    p.season = classicalSeasonalIndices(head, m, multiplicativeSeason(form));
    for (int64_t t = 0; t < n; ++t) {
      const double s = p.season[static_cast<size_t>(t % m)];
      adjusted[static_cast<size_t>(t)] = multiplicativeSeason(form) ? y[t] / s : y[t] - s;
    }
  }
  const int64_t k = std::min<int64_t>(n, std::max<int64_t>(10, hasSeason(form) ? 2 * m : 0));
  const Line line = fitLine(adjusted.data(), k, 1.0);  // times 1 … k: the intercept is time 0
  if (hasTrend(form)) {
    p.level = line.intercept;
    p.slope = line.slope;
  } else {
    p.level = line.intercept + line.slope * 0.5 * static_cast<double>(k + 1);  // their mean
  }
  return p;
}

}  // namespace

std::string formName(const Form& f) {
  return std::string("ETS(") + letter(f.error) + "," + letter(f.trend) + "," + letter(f.season) +
         ")";
}

Smoother::Smoother(const Form& form, const Parameters& par, int64_t period)
    : form_(form),
      alpha_(par.alpha),
      beta_(hasTrend(form) ? par.beta : 0.0),
      gamma_(hasSeason(form) ? par.gamma : 0.0),
      phi_(damped(form) ? par.phi : 1.0),
      level_(par.level),
      slope_(hasTrend(form) ? par.slope : 0.0),
      m_(hasSeason(form) ? period : 1) {
  if (hasSeason(form)) {
    if (static_cast<int64_t>(par.season.size()) != period)
      throw std::invalid_argument("ETS: expected one initial seasonal value per season");
    season_ = par.season;
  }
}

double Smoother::forecastAhead(int64_t h) const {
  double reach = static_cast<double>(h);  // φ + φ² + … + φ^h (h without damping)
  if (damped(form_)) {
    reach = 0;
    double power = 1;
    for (int64_t i = 0; i < h; ++i) reach += (power *= phi_);
  }
  const double trend = level_ + reach * slope_;
  if (!hasSeason(form_)) return trend;
  const double s = season_[static_cast<size_t>((t_ + h - 1) % m_)];
  return multiplicativeSeason(form_) ? trend * s : trend + s;
}

double Smoother::update(double y) {
  const double trend = level_ + phi_ * slope_;
  double e;
  if (!hasSeason(form_)) {
    e = y - trend;
    level_ = trend + alpha_ * e;
    slope_ = phi_ * slope_ + beta_ * e;
  } else {
    double& s = season_[static_cast<size_t>(t_ % m_)];
    if (multiplicativeSeason(form_)) {
      if (!(s > 0) || !(trend > 0)) valid_ = false;
      e = y - trend * s;
      level_ = trend + alpha_ * e / s;
      slope_ = phi_ * slope_ + beta_ * e / s;
      s += gamma_ * e / trend;
    } else {
      e = y - trend - s;
      level_ = trend + alpha_ * e;
      slope_ = phi_ * slope_ + beta_ * e;
      s += gamma_ * e;
    }
  }
  ++t_;
  return e;
}

double criterion(const Form& form, const Parameters& par, int64_t period,
                 const std::vector<double>& y) {
  Smoother smoother(form, par, period);
  double sum_squares = 0, sum_log = 0;
  const bool relative = multiplicativeError(form);
  for (double v : y) {
    if (relative) {
      const double mu = smoother.forecast();
      // The relative error e / μ needs μ ≠ 0 only: like forecast::ets, a forecast below zero is
      // allowed (a trended level can start below zero on a series of counts) and enters the
      // likelihood through log |μ|.
      if (!(std::abs(mu) > 1e-10)) return kInf;
      const double e = smoother.update(v) / mu;
      sum_squares += e * e;
      sum_log += std::log(std::abs(mu));
    } else {
      const double e = smoother.update(v);
      sum_squares += e * e;
    }
  }
  if (!smoother.valid() || !(sum_squares > 0) || !std::isfinite(sum_squares)) return kInf;
  return static_cast<double>(y.size()) * std::log(sum_squares) + 2 * sum_log;
}

bool admissible(const Form& form, const Parameters& p, int64_t period) {
  auto inside = [](double v, double lo, double hi) { return v >= lo && v <= hi; };
  if (!inside(p.alpha, kLow, kHigh)) return false;
  if (hasTrend(form) && !(inside(p.beta, kLow, kHigh) && p.beta <= p.alpha)) return false;
  if (hasSeason(form) && !(inside(p.gamma, kLow, kHigh) && p.gamma <= 1 - p.alpha)) return false;
  if (damped(form) && !inside(p.phi, kPhiLow, kPhiHigh)) return false;
  return rootsOutside(discountPolynomial(form, p, hasSeason(form) ? period : 1));
}

Fit fitForm(const Form& form, const std::vector<double>& y, int64_t period) {
  const auto n = static_cast<int64_t>(y.size());
  const int64_t m = hasSeason(form) ? period : 1;
  if (hasSeason(form) && (m < 2 || n < 2 * m))
    throw std::runtime_error("ETS: a season needs at least two observed seasons");
  if (multiplicativeError(form) || multiplicativeSeason(form))
    for (double v : y)
      if (!(v > 0)) throw std::runtime_error("ETS: a multiplicative form needs positive data");
  if (hasTrend(form) && !(form.trend == Component::Additive || damped(form)))
    throw std::invalid_argument("ETS: the trend is none, additive or damped");
  const Layout layout{form, m};
  Fit fit;
  fit.form = form;
  fit.period = m;
  fit.parameters = layout.size() + 1;  // and σ²
  if (n < fit.parameters + 2) throw std::runtime_error("ETS: too few observations for this form");

  // The starts: the book's heuristic states (with the season shrunk towards neutral when they
  // give a forecast outside a multiplicative form's domain) with, for each level weight α of a
  // grid, the best trend, season and damping weights of a small grid. The likelihood surface
  // often has several basins (a level that follows every observation against a slow level with
  // a moving season), so each α starts its own search.
  const Parameters heuristic = heuristicStart(form, y, m);
  Parameters scratch = heuristic;
  constexpr double kAlphas[] = {0.05, 0.2, 0.5, 0.8, 0.95};
  std::vector<std::pair<double, Parameters>> starts;
  for (double shrink : {1.0, 0.5, 0.0}) {
    Parameters states = heuristic;
    const double neutral = multiplicativeSeason(form) ? 1.0 : 0.0;
    for (double& s : states.season) s = neutral + shrink * (s - neutral);
    for (double a : kAlphas) {
      std::pair<double, Parameters> best_here{kInf, states};
      for (double b : hasTrend(form) ? std::vector<double>{0.05, 0.3} : std::vector<double>{0.0})
        for (double g : hasSeason(form) ? std::vector<double>{0.05, 0.3} : std::vector<double>{0.0})
          for (double phi :
               damped(form) ? std::vector<double>{0.9, 0.98} : std::vector<double>{1.0}) {
            scratch = states;
            scratch.alpha = a;
            scratch.beta = b * a;
            scratch.gamma = g * (1 - a);
            scratch.phi = phi;
            const double v = admissible(form, scratch, m) ? criterion(form, scratch, m, y) : kInf;
            if (v < best_here.first) best_here = {v, scratch};
          }
      if (std::isfinite(best_here.first)) starts.push_back(best_here);
    }
    if (!starts.empty()) break;
  }
  if (starts.empty())
    throw std::runtime_error("ETS: " + formName(form) + " has no valid starting point");
  const Objective objective = [&](const std::vector<double>& x) {
    layout.unpack(x, scratch);
    if (!admissible(form, scratch, m)) return kInf;
    return criterion(form, scratch, m, y);
  };
  // Steps: the smoothing weights (α, β*, γ*) by a tenth, φ by 0.02, the states by a fraction of
  // the data's spread (the seasonal values of a multiplicative season by a few per cent).
  const double spread = std::sqrt(populationVariance(y));
  std::vector<double> scale;
  scale.push_back(0.1);
  if (hasTrend(form)) scale.push_back(0.1);
  if (hasSeason(form)) scale.push_back(0.1);
  if (damped(form)) scale.push_back(0.02);
  scale.push_back(std::max(0.1 * spread, 1e-3 * std::abs(heuristic.level)));
  if (hasTrend(form)) scale.push_back(std::max(0.01 * spread, 0.1 * std::abs(heuristic.slope)));
  for (int64_t j = 0; j + 1 < m && hasSeason(form); ++j)
    scale.push_back(multiplicativeSeason(form) ? 0.02 : 0.1 * spread);
  SimplexOptions options;
  options.max_iterations = 2000;
  options.size_tolerance = 1e-5;
  // Each start gets a short search; the best of them a full one and a restart (a fresh, smaller
  // simplex: Nelder–Mead's simplex can collapse early in many dimensions).
  SimplexOptions screening = options;
  screening.max_iterations = std::max(200, 20 * layout.size());
  MinimiseResult best;
  best.value = kInf;
  for (const auto& start : starts) {
    const MinimiseResult r =
        minimiseSimplex(objective, layout.pack(start.second), scale, screening);
    if (r.value < best.value) best = r;
  }
  if (starts.size() > 1 || !best.converged) {
    const MinimiseResult r = minimiseSimplex(objective, best.x, scale, options);
    if (r.value < best.value) best = r;
  }
  std::vector<double> half(scale);
  for (double& s : half) s *= 0.5;
  const MinimiseResult again = minimiseSimplex(objective, best.x, half, options);
  if (again.value < best.value) best = again;
  if (!std::isfinite(best.value))
    throw std::runtime_error("ETS: " + formName(form) + " could not be fitted");
  layout.unpack(best.x, fit.par);
  const double nd = static_cast<double>(n), k = fit.parameters;
  fit.neg2_loglik = best.value + nd * (std::log(2 * M_PI / nd) + 1);
  fit.aicc = fit.neg2_loglik + 2 * k + 2 * k * (k + 1) / (nd - k - 1);
  return fit;
}

Fit selectForm(const std::vector<double>& y, int64_t period) {
  if (y.size() < 3 || isConstant(y))
    throw std::runtime_error("ETS: the series is constant or too short");
  bool positive = true;
  for (double v : y) positive = positive && v > 0;
  const bool seasonal = period > 1 && period <= 24 && static_cast<int64_t>(y.size()) >= 2 * period;
  std::vector<Form> forms;
  for (Component error : {Component::Additive, Component::Multiplicative})
    for (Component trend : {Component::None, Component::Additive, Component::Damped})
      for (Component season : {Component::None, Component::Additive, Component::Multiplicative}) {
        if (season != Component::None && !seasonal) continue;
        if ((error == Component::Multiplicative || season == Component::Multiplicative) &&
            !positive)
          continue;
        if (error == Component::Additive && season == Component::Multiplicative) continue;
        forms.push_back({error, trend, season});
      }
  Fit best;
  best.aicc = kInf;
  std::string last_error;
  for (const Form& form : forms) {
    try {
      Fit fit = fitForm(form, y, period);
      if (fit.aicc < best.aicc) best = fit;
    } catch (const std::runtime_error& e) {
      last_error = e.what();
    }
  }
  if (!std::isfinite(best.aicc))
    throw std::runtime_error("ETS: no form could be fitted" +
                             (last_error.empty() ? std::string() : " (" + last_error + ")"));
  return best;
}

}  // namespace rsalab::forecast::ets

namespace rsalab::forecast {

UnivariateForecast etsForecast(const UnivariateProblem& p) {
  checkProblem(p);
  const std::vector<double> train(p.y.begin(), p.y.begin() + p.fit_end);
  const ets::Fit fit = ets::selectForm(train, p.period);
  // The fitted parameters and initial states, fixed, run over the whole series.
  ets::Smoother smoother(fit.form, fit.par, fit.period);
  const auto H = static_cast<size_t>(p.horizon);
  UnivariateForecast out;
  out.mean.resize(p.origins.size() * H);
  size_t k = 0;
  for (int64_t t = 0; t < static_cast<int64_t>(p.y.size()) && k < p.origins.size(); ++t) {
    smoother.update(p.y[static_cast<size_t>(t)]);
    if (p.origins[k] != t) continue;
    for (size_t h = 1; h <= H; ++h)
      out.mean[k * H + h - 1] = smoother.forecastAhead(static_cast<int64_t>(h));
    ++k;
  }
  out.model = ets::formName(fit.form);
  out.aicc = fit.aicc;
  return out;
}

}  // namespace rsalab::forecast
