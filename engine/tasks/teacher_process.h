// SPDX-License-Identifier: GPL-3.0-or-later
// The teacher processes of the `teacher` and `mix` tasks (TaskOptions::teacher_process): the
// function y_t = f(x_0..x_{t−1}) of white-noise inputs x_s ~ N(0, 1) that the target follows.
// Every one is strictly causal and deterministic given the inputs (state 0 before x_0), so the
// tasks' Bayes floors stay 0 (teacher) and noise² (mix).
//   rem        Σ_terms base^k·{1 | cos θk}: RSA's own REM kernels (teacher_task.h); RSA's home
//   ground. power      w_k = k^(−α), k = 1..T: long memory; no finite sum of geometric decays is
//   exact. jordan     w_k = k·λ^k: the output of a 2×2 Jordan block z_t = J(z_{t−1} + e₂x_{t−1}),
//              J = [[λ, 1], [0, λ]], y_t = λ·z_t[0] (a repeated root).
//   nonlinear  h_t = tanh(W h_{t−1} + u x_{t−1}), y_t = v·h_t, h_0 = 0; W = gain·Q with Q a random
//              orthogonal matrix, u ~ N(0, input_scale²·I), v ~ N(0, I/H): drawn from teacher_seed.
//   selective  h_s = a_s h_{s−1} + x_s, a_s = min + (max − min)·σ(w x_s + b), y_t = h_{t−1}: the
//              decay at step s depends on the input at s (Mamba-2's, GLA's, FoX's home ground).
// Scale: each non-rem process is divided by σ, σ² = the mean over positions t = 0..T−1 of Var y_t:
// in closed form for the linear kernels (Σ_{k≤t} w_k²) and for selective (Σ_{j<t} m₂^j with
// m₂ = E[a(x)²], a one-dimensional integral by quadrature); by Monte Carlo for nonlinear (a fixed
// stream of teacher_seed, its standard error reported). E[y_t] = 0 for all of them (nonlinear:
// y(−x) = −y(x); selective: each x_s multiplies decays of later inputs only).
// Reach (task_registry.h, the difficulty rule): the lag by which Σ|w_k| reaches 90 % of its total
// over k = 1..32. For nonlinear and selective, w_k is the mean sensitivity E|∂y_32/∂x_{32−k}| over
// a fixed stream (for a linear kernel it is |w_k| itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/config/task_options.h"
#include "engine/core/registry/ground_truth.h"

namespace rsalab {

struct TeacherProcessModel {
  TeacherProcess process = TeacherProcess::Rem;
  // rem, power, jordan: the unscaled kernel w_1..w_L (L = max(T, 32)); empty otherwise.
  std::vector<double> kernel;
  // nonlinear: W (H × H, row-major), u (H), v (H).
  int64_t hidden = 0;
  std::vector<double> recurrent, input, readout;
  // selective
  double decay_min = 0, decay_max = 0, gate_weight = 0, gate_bias = 0;
  double lambda = 0;  // jordan
  // σ² (see above) at the task's length T, and its Monte-Carlo standard error (0: closed form).
  double variance = 1, variance_se = 0;
  int64_t variance_samples = 0;  // Monte-Carlo sequences (0: closed form)
  double scale() const;          // 1/σ
  double decay(double x) const;  // selective: a(x)
};

// The process of `options` for sequences of length T; throws std::invalid_argument for bad
// options (naming the field).
TeacherProcessModel makeTeacherProcess(const TaskOptions& options, int64_t length);

// Unscaled targets y (n × T, row-major) of inputs x (n × T, row-major). Linear kernels: the sum
// over s < t (power literally; jordan and rem by their recursions).
std::vector<double> runTeacherProcess(const TeacherProcessModel& p, const std::vector<double>& x,
                                      int64_t n, int64_t T);

// w_k, k = 1..lags: |kernel| for the linear processes, else E|∂y_lags/∂x_{lags−k}| over `samples`
// sequences of a fixed stream of teacher_seed.
std::vector<double> teacherSensitivity(const TeacherProcessModel& p, const TaskOptions& options,
                                       int64_t lags = kReachLength, int64_t samples = 4000);
// The lag (1-based) by which Σ_{j≤k} |w_j| reaches `share` of Σ|w|.
int64_t kernelReach(const std::vector<double>& w, double share = kReachShare);
int64_t teacherReach(const TaskOptions& options);

// The nonlinear teacher's defaults follow the reach rule plus two more (docs/TASKS.md): its
// nonlinear share at least kMinNonlinearShare, and its start state faded to at most
// kMaxStartStateFade by the task's default length.
constexpr double kMinNonlinearShare = 0.2;
constexpr double kMaxStartStateFade = 0.05;
// The share of Var y_t (t = kReachLength − 1, h_0 = 0) that no linear filter of the past inputs
// explains, 1 − Σ_k c_k² / E y_t², c_k = E[y_t x_{t−k}] (white inputs), over `samples` sequences
// of a fixed stream of teacher_seed. 0 for a linear kernel (up to sampling).
double teacherNonlinearShare(const TeacherProcessModel& p, const TaskOptions& options,
                             int64_t samples = 8000);
// nonlinear: how much of the start state is left after `steps` inputs: the RMS of
// y(h_0 = z) − y(h_0 = 0) over the RMS of y(h_0 = 0), z ~ U(−1, 1)^H, the same inputs, over
// `samples` sequences of a fixed stream of teacher_seed.
double teacherStartStateFade(const TeacherProcessModel& p, const TaskOptions& options,
                             int64_t steps, int64_t samples = 8000);

// The truth of a process without an REM form (no_rem_form, its reach, and for power and jordan
// the kernel of the target, w_k × kernel_scale for the first min(T, kTruthKernelLags) lags); the
// description names the process, its parameters and its reach.
constexpr int64_t kTruthKernelLags = 128;
GroundTruth processTruth(const TeacherProcessModel& p, const TaskOptions& options, int64_t length,
                         double kernel_scale);

// "power w_k ∝ k^(−1.1)": the process and its parameters, one line.
std::string teacherProcessFormula(const TeacherProcessModel& p, const TaskOptions& options);
// "σ² = 3.2 (closed form)" or "σ² = 0.1 ± 0.001 (Monte Carlo, 4096 sequences)".
std::string teacherScaleText(const TeacherProcessModel& p);

}  // namespace rsalab
