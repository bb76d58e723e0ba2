// SPDX-License-Identifier: GPL-3.0-or-later
// Unconstrained minimisers for the forecasting anchors, over GSL's multimin:
//   minimiseSimplex  Nelder–Mead (gsl_multimin_fminimizer_nmsimplex2): no derivatives; used where
//                    the objective has hard edges (ETS's parameter region is a penalty wall);
//   minimiseBfgs     quasi-Newton BFGS (gsl_multimin_fdfminimizer_vector_bfgs2) on a smooth
//                    objective, with its own gradient or one by central differences (ARIMA's
//                    CSS and exact likelihoods on transformed, unconstrained parameters).
// Both work in scaled coordinates u = (x − x0) / scale, so that one tolerance fits parameters of
// very different sizes (a smoothing weight near 0.1, a level near 400). A non-finite objective
// value is read as a very large one (a wall), so a minimiser steps back from it.
#pragma once

#include <functional>
#include <vector>

namespace rsalab::forecast {

using Objective = std::function<double(const std::vector<double>&)>;
// The value at x and, when `gradient` is not null, the gradient ∂f/∂x written into it.
using DifferentiableObjective =
    std::function<double(const std::vector<double>& x, std::vector<double>* gradient)>;

struct MinimiseResult {
  std::vector<double> x;  // the best point found
  double value = 0;       // f(x)
  int iterations = 0;
  bool converged = false;  // the stopping test was met before the iteration budget ran out
};

struct SimplexOptions {
  int max_iterations = 2000;
  double size_tolerance = 1e-6;  // the simplex's characteristic size, in scaled units
  // Extra stop: the best value has not improved by more than this (relative) over the last
  // `stall_window` iterations.
  double stall_tolerance = 1e-10;
  int stall_window = 0;  // 0: 10 × the dimension + 20
};

// Nelder–Mead from x0 with an initial simplex of one step `scale[i]` along each coordinate.
MinimiseResult minimiseSimplex(const Objective& f, const std::vector<double>& x0,
                               const std::vector<double>& scale,
                               const SimplexOptions& options = {});

struct BfgsOptions {
  int max_iterations = 200;
  double gradient_tolerance = 1e-5;  // on the gradient's Euclidean norm, in scaled units
  double difference_step = 1e-4;     // central-difference step, in scaled units
  double first_step = 0.1;           // the first line search's trial step
  double line_tolerance = 0.1;       // the line searches' accuracy (GSL's recommended value)
  // Extra stop: the value fell by less than this (relative) over the last `stall_window`
  // iterations (a long, nearly flat valley, where the gradient test alone would creep on).
  double stall_tolerance = 1e-9;
  int stall_window = 5;
};

// BFGS from x0; `scale[i]` sets coordinate i's unit (its typical change). f should be smooth.
MinimiseResult minimiseBfgs(const Objective& f, const std::vector<double>& x0,
                            const std::vector<double>& scale, const BfgsOptions& options = {});
// The same with the objective's own gradient (no differences taken).
MinimiseResult minimiseBfgs(const DifferentiableObjective& f, const std::vector<double>& x0,
                            const std::vector<double>& scale, const BfgsOptions& options = {});

}  // namespace rsalab::forecast
