// SPDX-License-Identifier: GPL-3.0-or-later
// One minimiser for every anchor's likelihood: GSL's Nelder–Mead simplex (nmsimplex2), or, where an
// anchor must land on the same local optimum as its R reference, R's optim() Nelder–Mead rules.
#pragma once

#include <functional>
#include <vector>

namespace rsalab::forecast {

struct MinimiseOptions {
  double initial_step = 0.1;  // the simplex's initial size per coordinate (or `steps`)
  std::vector<double> steps;  // per-coordinate steps; empty: initial_step for each
  double size_tolerance = 1e-8;
  int max_iterations = 2000;

  // kRNelderMead follows R's optim(method = "Nelder-Mead") (nmmin, as forecast::ets calls it):
  // one step for every coordinate, 0.1 · max |x0_i| (0.1 when x0 = 0; `initial_step` and `steps`
  // are ignored); reflection 1, contraction 0.5, expansion 2; it stops when the simplex's values
  // agree within relative_tolerance · (|f(x0)| + relative_tolerance), when a shrink no longer
  // shrinks, or after max_iterations function evaluations. Its landing point depends on all of
  // these, and ETS likelihoods have several optima: matching R needs R's rules, not just a minimum.
  enum class Method { kGslSimplex2, kRNelderMead };
  Method method = Method::kGslSimplex2;
  double relative_tolerance = 1.4901161193847656e-08;  // R's default reltol, sqrt(DBL_EPSILON)
};

struct MinimiseResult {
  std::vector<double> x;
  double value = 0;
  int iterations = 0;  // simplex iterations (kRNelderMead: function evaluations)
  bool converged = false;
};

// Minimises f from x0. f may return +inf (or NaN, read as +inf) outside its admissible region.
// kRNelderMead throws std::runtime_error when f(x0) is not finite (R stops there too).
MinimiseResult minimiseNelderMead(const std::function<double(const std::vector<double>&)>& f,
                                  std::vector<double> x0, const MinimiseOptions& options = {});

}  // namespace rsalab::forecast
