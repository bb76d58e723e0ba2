// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/forecast/optimise.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rsalab::forecast {
namespace {

using Objective = std::function<double(const std::vector<double>&)>;

double trampoline(const gsl_vector* v, void* params) {
  const auto& f = *static_cast<const Objective*>(params);
  std::vector<double> x(v->size);
  for (size_t i = 0; i < v->size; ++i) x[i] = gsl_vector_get(v, i);
  const double value = f(x);
  return std::isfinite(value) ? value : std::numeric_limits<double>::max();
}

// R's nmmin rules (see MinimiseOptions::Method). Vertex bookkeeping (which vertex counts as best
// when values tie, which point is returned after the evaluation budget runs out) follows R's, as
// those choices decide where a flat likelihood's search ends.
MinimiseResult minimiseRStyle(const Objective& f, const std::vector<double>& x0,
                              const MinimiseOptions& options) {
  constexpr double kBig = 1.0e35;  // R's stand-in for a value that is not finite
  constexpr double kReflect = 1.0, kContract = 0.5, kExpand = 2.0;
  const size_t n = x0.size();
  MinimiseResult r;
  const double f0 = f(x0);
  if (!std::isfinite(f0)) throw std::runtime_error("Nelder-Mead: f(x0) is not finite");
  int count = 1;
  const auto eval = [&](const std::vector<double>& x) {
    ++count;
    const double v = f(x);
    return std::isfinite(v) ? v : kBig;
  };
  const double tolerance =
      options.relative_tolerance * (std::fabs(f0) + options.relative_tolerance);

  std::vector<std::vector<double>> vertex(n + 1, x0);
  std::vector<double> value(n + 1, f0);
  double step = 0;
  for (const double xi : x0) step = std::max(step, 0.1 * std::fabs(xi));
  if (step == 0) step = 0.1;
  double size = 0;
  for (size_t j = 1; j <= n; ++j) {
    double trial = step;
    // A step lost to rounding is retried ten times larger, as R does.
    while (vertex[j][j - 1] == x0[j - 1]) {
      vertex[j][j - 1] = x0[j - 1] + trial;
      trial *= 10;
    }
    size += trial;
  }
  double old_size = size;
  bool recompute = true;
  size_t best = 0;
  std::vector<double> centroid(n), trial(n), other(n);
  do {
    if (recompute) {
      for (size_t j = 0; j <= n; ++j)
        if (j != best) value[j] = eval(vertex[j]);
      recompute = false;
    }
    double low = value[best], high = low;
    size_t worst = best;
    for (size_t j = 0; j <= n; ++j) {
      if (j == best) continue;
      if (value[j] < low) {
        best = j;
        low = value[j];
      }
      if (value[j] > high) {
        worst = j;
        high = value[j];
      }
    }
    if (high <= low + tolerance) {
      r.converged = true;
      break;
    }
    for (size_t i = 0; i < n; ++i) {
      double sum = -vertex[worst][i];
      for (size_t j = 0; j <= n; ++j) sum += vertex[j][i];
      centroid[i] = sum / static_cast<double>(n);
    }
    for (size_t i = 0; i < n; ++i)
      trial[i] = (1 + kReflect) * centroid[i] - kReflect * vertex[worst][i];
    const double reflected = eval(trial);
    if (reflected < low) {
      for (size_t i = 0; i < n; ++i) other[i] = kExpand * trial[i] + (1 - kExpand) * centroid[i];
      const double expanded = eval(other);
      vertex[worst] = expanded < reflected ? other : trial;
      value[worst] = std::min(expanded, reflected);
      continue;
    }
    if (reflected < high) {
      vertex[worst] = trial;
      value[worst] = reflected;
    }
    for (size_t i = 0; i < n; ++i)
      other[i] = (1 - kContract) * vertex[worst][i] + kContract * centroid[i];
    const double contracted = eval(other);
    if (contracted < value[worst]) {
      vertex[worst] = other;
      value[worst] = contracted;
    } else if (reflected >= high) {
      recompute = true;
      size = 0;
      for (size_t j = 0; j <= n; ++j) {
        if (j == best) continue;
        for (size_t i = 0; i < n; ++i) {
          vertex[j][i] = kContract * (vertex[j][i] - vertex[best][i]) + vertex[best][i];
          size += std::fabs(vertex[j][i] - vertex[best][i]);
        }
      }
      if (size >= old_size) break;  // the shrink no longer shrinks: R gives up here
      old_size = size;
    }
  } while (count <= options.max_iterations);
  r.x = vertex[best];
  r.value = value[best];
  r.iterations = count;
  return r;
}

}  // namespace

MinimiseResult minimiseNelderMead(const Objective& f, std::vector<double> x0,
                                  const MinimiseOptions& options) {
  if (options.method == MinimiseOptions::Method::kRNelderMead && !x0.empty())
    return minimiseRStyle(f, x0, options);
  MinimiseResult r;
  const size_t n = x0.size();
  if (n == 0) {
    r.x = x0;
    r.value = f(x0);
    r.converged = true;
    return r;
  }
  gsl_set_error_handler_off();  // GSL reports through return codes, never abort()
  gsl_multimin_function fn{&trampoline, n, const_cast<Objective*>(&f)};
  gsl_vector* x = gsl_vector_alloc(n);
  gsl_vector* step = gsl_vector_alloc(n);
  for (size_t i = 0; i < n; ++i) {
    gsl_vector_set(x, i, x0[i]);
    gsl_vector_set(step, i, i < options.steps.size() ? options.steps[i] : options.initial_step);
  }
  gsl_multimin_fminimizer* s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
  if (!s || gsl_multimin_fminimizer_set(s, &fn, x, step) != GSL_SUCCESS) {
    if (s) gsl_multimin_fminimizer_free(s);
    gsl_vector_free(x);
    gsl_vector_free(step);
    throw std::runtime_error("Nelder-Mead: the starting point is not admissible");
  }
  int it = 0;
  for (; it < options.max_iterations; ++it) {
    if (gsl_multimin_fminimizer_iterate(s) != GSL_SUCCESS) break;
    if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), options.size_tolerance) ==
        GSL_SUCCESS) {
      r.converged = true;
      break;
    }
  }
  r.iterations = it;
  r.x.resize(n);
  for (size_t i = 0; i < n; ++i) r.x[i] = gsl_vector_get(s->x, i);
  r.value = s->fval;
  gsl_multimin_fminimizer_free(s);
  gsl_vector_free(x);
  gsl_vector_free(step);
  return r;
}

}  // namespace rsalab::forecast
