// SPDX-License-Identifier: GPL-3.0-or-later
// Task "mix": the RSA paper's Figure 1 axis, a signal whose recurrent share a is a knob.
// Every position t carries three inputs (F = K + 2 features): x_t ~ N(0, 1), a key k_t drawn
// uniformly from K keys (one-hot) and a value v_t ~ N(0, 1). The target is
//   y_t = √a · r_t / σ_r + √(1 − a) · l_t / σ_l + noise · ε_t,   ε_t ~ N(0, 1),
// with
//   r_t = Σ_{s<t} kernel(t − s) x_s     the recurrent part: the linear-recurrence teacher's REM
//                                        (task "teacher": teacher_kinds / bases / thetas), which
//                                        a linear RNN computes exactly and an REM head represents;
//   l_t = mean{ v_s : s ≤ t, k_s = k_t } the content-addressed lookup: the average of the values
//                                        stored under the current key so far, which one causal
//                                        softmax head computes exactly (query = key = the key's
//                                        one-hot, scaled up; uniform weights over the matches),
//                                        while an RNN must hold a running mean per key.
// teacher_process (engine/tasks/teacher_process.h) replaces r_t by another process of x (power,
// jordan, nonlinear, selective), scaled to unit variance the same way; the lookup stays.
// σ_r² and σ_l² are the parts' variances averaged over the T positions, in closed form
// (Var r_t = Σ_{d=1..t} kernel(d)², Var l_t = E[1/(1 + Binomial(t, 1/K))]), so both parts have
// unit variance and a is the recurrent share of the signal's variance: the signal's variance is
// 1 at every a, and the losses on the regime map's x axis are on one scale. (The weights a and
// 1 − a, with variance a² + (1 − a)², would halve the signal at a = 0.5.)
// a = 1 is the teacher (scaled by 1/σ_r), a = 0 the lookup (scaled by 1/σ_l). Both parts are
// deterministic functions of inputs at or before t, so the Bayes floor is noise² exactly.
#pragma once

#include <cstdint>

#include "engine/tasks/task.h"

namespace rsalab {

struct MixParts {
  torch::Tensor x;          // (N, T) float64 recurrent input
  torch::Tensor keys;       // (N, T) int64 in [0, K)
  torch::Tensor values;     // (N, T) float64
  torch::Tensor recurrent;  // (N, T) r_t / σ_r
  torch::Tensor lookup;     // (N, T) l_t / σ_l
  torch::Tensor target;     // (N, T) √a·recurrent + √(1 − a)·lookup + noise·ε
  double sigma_recurrent = 1, sigma_lookup = 1;
};

// The parts of `n` sequences drawn from the stream `seed` (tests check the task against these).
MixParts mixParts(const TaskOptions& options, int64_t n, uint64_t seed);

// σ_r², σ_l²: the parts' variances averaged over positions 0..T−1 (closed form).
double mixRecurrentVariance(const TaskOptions& options);
double mixLookupVariance(int64_t keys, int64_t length);

TaskData makeMixTask(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
