// SPDX-License-Identifier: GPL-3.0-or-later
// Task "teacher": system identification of a linear-recurrence teacher. Inputs are white noise
// x_t ~ N(0, 1); the target is the strictly causal response
//   y_t = Σ_terms Σ_{s<t} base^(t−s) · k(t−s) · x_s,   k(d) = 1 (regular) or cos(θ d) (cos),
// whose kernel base^d·k(d) has the form of an REM row (RSA seed: regular REM λ^|i−j|, cyclical
// REM γ^|i−j| cos(θ|i−j|); causal REMs have a zero diagonal, like s < t here). The REM family
// contains the teacher's kernel, but an RSA model does not compute the teacher exactly: its
// values V = LN(W_in x + PE)·W_v pass x through the pre-attention LayerNorm and add the
// sinusoidal positional encoding, so V is not linear in x, and the gate mixes in softmax
// attention. The task shows how close a trained REM's λ (or γ, θ) comes to the truth, not an
// exact fit. Training, validation and test sequences are drawn from separate random streams.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/tasks/task.h"

namespace rsalab {

struct TeacherTerm {
  bool cos = false;  // false: regular λ^d; true: γ^d cos(θ d)
  double base = 0;   // λ ∈ (−1, 1) or γ ∈ [0, 1)
  double theta = 0;  // θ ∈ [0, π], cos terms only
};

// The validated terms of options.teacher_kinds / teacher_bases / teacher_thetas.
std::vector<TeacherTerm> teacherTerms(const TaskOptions& options);

// y (N, T) float64 from x (N, T) by one first-order (complex for cos) recursion per term.
torch::Tensor teacherTargets(const torch::Tensor& x, const std::vector<TeacherTerm>& terms);

TaskData makeTeacherTask(const TaskOptions& options, int64_t train_size, uint64_t seed);

}  // namespace rsalab
