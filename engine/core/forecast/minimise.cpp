// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/forecast/minimise.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace rsalab::forecast {
namespace {

// GSL's default error handler aborts the process; the minimisers report failures through their
// status codes instead, which every loop below checks.
void quietGsl() {
  static std::once_flag once;
  std::call_once(once, [] { gsl_set_error_handler_off(); });
}

// A value the minimisers can compare: a wall instead of NaN or ±inf.
constexpr double kWall = 1e100;
double finiteOrWall(double v) { return std::isfinite(v) ? v : kWall; }

// The objective in scaled coordinates: x = x0 + scale ⊙ u, with its gradient in u either from
// the objective itself or by central differences.
struct Scaled {
  const Objective* f = nullptr;
  const DifferentiableObjective* df = nullptr;
  std::vector<double> x0, scale;
  std::vector<double> x, gx;  // scratch
  double difference_step = 1e-4;

  void toX(const gsl_vector* u) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = x0[i] + scale[i] * gsl_vector_get(u, i);
  }
  double at(const gsl_vector* u) {
    toX(u);
    return finiteOrWall(df ? (*df)(x, nullptr) : (*f)(x));
  }
  std::vector<double> point(const gsl_vector* u) const {
    std::vector<double> out(x0.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = x0[i] + scale[i] * gsl_vector_get(u, i);
    return out;
  }
  double both(const gsl_vector* u, gsl_vector* g) {
    if (df) {
      toX(u);
      gx.assign(x.size(), 0.0);
      const double v = (*df)(x, &gx);
      for (size_t i = 0; i < x.size(); ++i)
        gsl_vector_set(g, i, std::isfinite(gx[i]) ? gx[i] * scale[i] : 0.0);
      return finiteOrWall(v);
    }
    differences(u, g);
    return at(u);
  }
  // Central differences in u, one coordinate at a time.
  void differences(const gsl_vector* u, gsl_vector* g) {
    std::unique_ptr<gsl_vector, decltype(&gsl_vector_free)> v(gsl_vector_alloc(u->size),
                                                              &gsl_vector_free);
    gsl_vector_memcpy(v.get(), u);
    for (size_t i = 0; i < u->size; ++i) {
      const double ui = gsl_vector_get(u, i), h = difference_step;
      gsl_vector_set(v.get(), i, ui + h);
      const double up = at(v.get());
      gsl_vector_set(v.get(), i, ui - h);
      const double down = at(v.get());
      gsl_vector_set(v.get(), i, ui);
      double d = (up - down) / (2 * h);
      if (up >= kWall || down >= kWall) d = up >= kWall ? (down >= kWall ? 0 : 1e6) : -1e6;
      gsl_vector_set(g, i, d);
    }
  }
};

double scaledValue(const gsl_vector* u, void* self) { return static_cast<Scaled*>(self)->at(u); }
void scaledGradient(const gsl_vector* u, void* self, gsl_vector* g) {
  static_cast<Scaled*>(self)->both(u, g);
}
void scaledBoth(const gsl_vector* u, void* self, double* value, gsl_vector* g) {
  *value = static_cast<Scaled*>(self)->both(u, g);
}

Scaled makeScaled(const std::vector<double>& x0, const std::vector<double>& scale) {
  if (x0.empty() || scale.size() != x0.size())
    throw std::invalid_argument("minimise: the start point and its scales differ in size");
  Scaled s;
  s.x0 = x0;
  s.scale = scale;
  s.x = x0;
  for (double& v : s.scale)
    if (!(std::abs(v) > 0) || !std::isfinite(v)) v = 1;
  return s;
}

using Vector = std::unique_ptr<gsl_vector, decltype(&gsl_vector_free)>;
Vector vector(size_t n, double fill) {
  Vector v(gsl_vector_alloc(n), &gsl_vector_free);
  gsl_vector_set_all(v.get(), fill);
  return v;
}

}  // namespace

MinimiseResult minimiseSimplex(const Objective& f, const std::vector<double>& x0,
                               const std::vector<double>& scale, const SimplexOptions& options) {
  quietGsl();
  Scaled s = makeScaled(x0, scale);
  s.f = &f;
  const size_t n = x0.size();
  gsl_multimin_function fn{&scaledValue, n, &s};
  auto u = vector(n, 0.0), steps = vector(n, 1.0);
  std::unique_ptr<gsl_multimin_fminimizer, decltype(&gsl_multimin_fminimizer_free)> m(
      gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n),
      &gsl_multimin_fminimizer_free);
  MinimiseResult out;
  if (gsl_multimin_fminimizer_set(m.get(), &fn, u.get(), steps.get()) != GSL_SUCCESS) {
    out.x = x0;
    out.value = f(x0);
    return out;
  }
  const int window =
      options.stall_window > 0 ? options.stall_window : 10 * static_cast<int>(n) + 20;
  std::vector<double> history;  // the best value after each iteration
  for (out.iterations = 1; out.iterations <= options.max_iterations; ++out.iterations) {
    if (gsl_multimin_fminimizer_iterate(m.get()) != GSL_SUCCESS) break;
    if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m.get()), options.size_tolerance) ==
        GSL_SUCCESS) {
      out.converged = true;
      break;
    }
    history.push_back(gsl_multimin_fminimizer_minimum(m.get()));
    if (static_cast<int>(history.size()) > window) {
      const double before = history[history.size() - 1 - static_cast<size_t>(window)];
      const double now = history.back();
      if (before - now <= options.stall_tolerance * (std::abs(now) + options.stall_tolerance)) {
        out.converged = true;
        break;
      }
    }
  }
  out.iterations = std::min(out.iterations, options.max_iterations);
  out.x = s.point(gsl_multimin_fminimizer_x(m.get()));
  out.value = gsl_multimin_fminimizer_minimum(m.get());
  return out;
}

namespace {

MinimiseResult runBfgs(Scaled& s, const BfgsOptions& options) {
  quietGsl();
  const std::vector<double>& x0 = s.x0;
  const size_t n = x0.size();
  gsl_multimin_function_fdf fn{&scaledValue, &scaledGradient, &scaledBoth, n, &s};
  auto u = vector(n, 0.0);
  std::unique_ptr<gsl_multimin_fdfminimizer, decltype(&gsl_multimin_fdfminimizer_free)> m(
      gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, n),
      &gsl_multimin_fdfminimizer_free);
  MinimiseResult out;
  if (gsl_multimin_fdfminimizer_set(m.get(), &fn, u.get(), options.first_step,
                                    options.line_tolerance) != GSL_SUCCESS) {
    out.x = x0;
    out.value = s.at(u.get());
    return out;
  }
  // When a line search makes no progress the curvature estimate may be stale: restart from the
  // current point with a fresh one (steepest descent), a few times while that still helps.
  int restarts = 0;
  double at_restart = gsl_multimin_fdfminimizer_minimum(m.get());
  std::vector<double> history;  // the value after each iteration
  for (out.iterations = 1; out.iterations <= options.max_iterations; ++out.iterations) {
    const int status = gsl_multimin_fdfminimizer_iterate(m.get());
    if (status == GSL_ENOPROG) {
      const double now = gsl_multimin_fdfminimizer_minimum(m.get());
      if (restarts < 3 && now < at_restart - 1e-12 * (std::abs(now) + 1e-12)) {
        ++restarts;
        at_restart = now;
        gsl_multimin_fdfminimizer_restart(m.get());
        continue;
      }
      out.converged = true;  // no further descent along any line tried: a (local) minimum
      break;
    }
    if (status != GSL_SUCCESS) break;
    if (gsl_multimin_test_gradient(gsl_multimin_fdfminimizer_gradient(m.get()),
                                   options.gradient_tolerance) == GSL_SUCCESS) {
      out.converged = true;
      break;
    }
    history.push_back(gsl_multimin_fdfminimizer_minimum(m.get()));
    const auto window = static_cast<size_t>(std::max(1, options.stall_window));
    if (history.size() > window) {
      const double before = history[history.size() - 1 - window], now = history.back();
      if (before - now <= options.stall_tolerance * (std::abs(now) + options.stall_tolerance)) {
        out.converged = true;
        break;
      }
    }
  }
  out.iterations = std::min(out.iterations, options.max_iterations);
  out.x = s.point(gsl_multimin_fdfminimizer_x(m.get()));
  out.value = gsl_multimin_fdfminimizer_minimum(m.get());
  return out;
}

}  // namespace

MinimiseResult minimiseBfgs(const Objective& f, const std::vector<double>& x0,
                            const std::vector<double>& scale, const BfgsOptions& options) {
  Scaled s = makeScaled(x0, scale);
  s.f = &f;
  s.difference_step = options.difference_step;
  return runBfgs(s, options);
}

MinimiseResult minimiseBfgs(const DifferentiableObjective& f, const std::vector<double>& x0,
                            const std::vector<double>& scale, const BfgsOptions& options) {
  Scaled s = makeScaled(x0, scale);
  s.df = &f;
  return runBfgs(s, options);
}

}  // namespace rsalab::forecast
