// SPDX-License-Identifier: GPL-3.0-or-later
// Exponential smoothing in its innovations state-space form (Hyndman, Koehler, Ord & Snyder,
// "Forecasting with Exponential Smoothing", 2008): error A/M × trend N/A/Ad × season N/A/M.
//
// The state after time t is a level l_t, a slope b_t and the last m seasonal values. With
// τ = l + φ b the trend part (φ = 1 for an undamped trend, b = 0 without one) and s the seasonal
// value of one season ago, the one-step forecast is μ = τ, τ + s or τ · s, the forecast error
// e = y − μ, and the states move by
//   additive season:        l' = τ + α e,      b' = φ b + β e,      s' = s + γ e
//   multiplicative season:  l' = τ + α e / s,  b' = φ b + β e / s,  s' = s + γ e / τ
// (chapter 2's tables, with the error written in units of y). Additive and multiplicative errors
// give the same point forecasts; they differ in the likelihood (chapter 5): with the innovation
// ε = e (additive) or e / μ (multiplicative) and σ² concentrated out,
//   −2 log L = n log(2π σ̂²) + n + 2 Σ log |r_t|,   σ̂² = Σ ε² / n,   r_t = 1 or μ_t.
// Parameters: the usual region (box 1e−4 … 0.9999 for α, β, γ and 0.8 … 0.98 for φ, with
// β ≤ α and γ ≤ 1 − α) intersected with the admissible one (the model's discount matrix has no
// eigenvalue on or outside the unit circle apart from the level–season redundancy), and the
// initial states (l₀, b₀ and m − 1 seasonal values; the last makes them sum to 0 or to m).
// Forms are compared by AICc, counting every smoothing parameter, every free initial state and σ².
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rsalab::forecast::ets {

enum class Component { None, Additive, Multiplicative, Damped };

struct Form {
  Component error = Component::Additive;  // Additive or Multiplicative
  Component trend = Component::None;      // None, Additive or Damped
  Component season = Component::None;     // None, Additive or Multiplicative
};
std::string formName(const Form& form);  // "ETS(M,Ad,M)"

struct Parameters {
  double alpha = 0.5, beta = 0, gamma = 0, phi = 1;
  double level = 0, slope = 0;
  // season[j] is the seasonal value used at the first time t ≡ j (mod m) of the series (m values;
  // empty without a season).
  std::vector<double> season;
};

// The recursion, one observation at a time (the forecasts use it from any time on).
class Smoother {
 public:
  Smoother(const Form& form, const Parameters& par, int64_t period);
  // The one-step forecast of the next observation (time `time()`).
  double forecast() const { return forecastAhead(1); }
  // The h-step forecast from the current state: (l + φ_h b) with the season of time t + h − 1.
  double forecastAhead(int64_t h) const;
  // Takes y_t: returns its forecast error e = y − μ and moves the states.
  double update(double y);
  int64_t time() const { return t_; }
  bool valid() const { return valid_; }  // false once a multiplicative state left (0, ∞)

 private:
  Form form_;
  double alpha_, beta_, gamma_, phi_;
  double level_, slope_;
  std::vector<double> season_;  // ring buffer: season_[t mod m] is used at time t
  int64_t m_, t_ = 0;
  bool valid_ = true;
};

struct Fit {
  Form form;
  Parameters par;
  int64_t period = 1;
  double neg2_loglik = 0;  // −2 log L
  double aicc = 0;
  int parameters = 0;  // counted in the AICc (σ² included)
};

// The likelihood criterion n log Σ ε² + 2 Σ log |r_t| of one form on y (∞ when a state leaves
// its domain). Exposed for the tests.
double criterion(const Form& form, const Parameters& par, int64_t period,
                 const std::vector<double>& y);

// True when (α, β, γ, φ) lie in the usual region and in the admissible one of `form`.
bool admissible(const Form& form, const Parameters& par, int64_t period);

// Fits one form on y by maximum likelihood: Nelder–Mead from the book's heuristic initial states
// with several starting smoothing weights (a short search from each, a full one from the best).
// Throws std::runtime_error when the form cannot be fitted (too few rows, nonpositive data for a
// multiplicative component).
Fit fitForm(const Form& form, const std::vector<double>& y, int64_t period);

// Every admissible form that suits the data, the smallest AICc: a season only when
// 1 < m ≤ 24 and at least two seasons (plus room for the parameters) are observed;
// multiplicative error or season only for positive data; no additive error with a
// multiplicative season; no multiplicative trend.
Fit selectForm(const std::vector<double>& y, int64_t period);

}  // namespace rsalab::forecast::ets
