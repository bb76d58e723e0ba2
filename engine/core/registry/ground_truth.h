// SPDX-License-Identifier: GPL-3.0-or-later
// What a task knows about itself, as plain data (no LibTorch, no Qt): the recurrence its data were
// generated with (matched against learned REMs) and the loss of the optimal predictor (the Bayes
// floor, so "excess loss = test loss − floor" measures learning rather than noise).
//
// REM truth is matched per kind (../shared/spec/models.md "Lag matrix and REMs"; causal, P[i, j] =
// 0 unless i > j and the dilation d divides i − j = k·d):
//   regular  P[i, j] = λ^k           cos  P[i, j] = γ^k cos(θk)           sin  P[i, j] = γ^k
//   sin(θk)
// A learned head is compared only with true components of its own kind (regular ↔ regular,
// cos ↔ cos, sin ↔ sin); with none, it is "no true component of this kind", not a number. Among
// those of its kind it is matched to the one with the smallest relative Frobenius error
//   ‖P − P*‖_F / ‖P*‖_F   at the task's length T,
// P built from the head's learned parameters and dilation, P* from the true component (d = 1: the
// data were generated step by step). The parameter differences are reported in their own units:
// |Δλ|, or |Δγ| and |Δθ| in radians (and the periods 2π/θ). A learned θ is first folded into
// [0, π] (θ + 2π and −θ give the same cos REM, and the negated sin REM, whose sign the amplitude
// carries), so equivalent parameters are not reported as different.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/core/io/enums.h"
#include "engine/core/io/inspection.h"

namespace rsalab {

// A REM counts as recovered when every parameter difference (|Δλ|, or |Δγ| and |Δθ| in radians)
// is at most this ("Recover a recurrence" preset, its test, the REM tab's dashed line).
constexpr double kRecoveryTolerance = 0.01;

struct TrueRem {
  RemKind kind = RemKind::Regular;
  double base = 0;   // λ (regular) or γ (cos, sin)
  double theta = 0;  // radians (cos, sin)
};

struct GroundTruth {
  // True REM components. A complex pole γe^{±iθ} of a linear recurrence contributes both a cos and
  // a sin REM (the RSA seed), so series tasks list both; the teacher lists exactly its kernel
  // terms.
  std::vector<TrueRem> components;
  std::string description;  // one line, e.g. "AR(1) λ=0.8 + season P=12 γ=0.97 + noise 0.1"
  // What "true" means for this task, shown beside the numbers, e.g. "generating REM (the loss
  // optimum)" or "generating poles (not the optimum of this loss)".
  std::string meaning;
  // Expected test loss (the task's loss, in the model's output units) of the optimal predictor;
  // NaN where the task does not know it (CSV series, token tasks).
  double bayes_floor = std::numeric_limits<double>::quiet_NaN();
  std::string floor_note;  // how the floor was computed, one line
  // bayes_floor is only a lower bound on the floor (an oracle that knows a hidden state the
  // window cannot recover; the series tasks' nonlinear and selective processes): the excess loss
  // test − floor is then an upper bound.
  bool floor_is_bound = false;
  // A teacher process without an REM form (power, jordan, nonlinear, selective;
  // engine/tasks/teacher_process.h): `components` stay empty and no head is matched. `kernel` is
  // the true kernel of the target, w_1..w_T with y_t = Σ_k w_k x_{t−k} (power, jordan; empty for
  // nonlinear and selective), `reach` the difficulty rule's lag (task_registry.h; NaN: unknown).
  bool no_rem_form = false;
  std::vector<double> kernel;
  double reach = std::numeric_limits<double>::quiet_NaN();

  bool empty() const { return components.empty(); }
  bool hasFloor() const { return bayes_floor == bayes_floor; }
  // The distinct true λ, and (γ, θ) pairs (for reference lines), in component order.
  std::vector<double> lambdas() const;
  std::vector<std::pair<double, double>> cyclical() const;
};

// Row-major T × T causal REM in double precision.
std::vector<double> remClosedForm(RemKind kind, double base, double theta, int64_t dilation,
                                  int64_t T);

struct RemMatch {
  bool has_rem = false;  // the head carries a REM
  bool matched = false;  // a true component of the head's kind exists (and T ≥ 2)
  RemKind kind = RemKind::Regular;
  double learned_base = 0, learned_theta = 0;
  TrueRem truth;             // the matched component
  double delta_base = 0;     // |Δλ| or |Δγ|
  double delta_theta = 0;    // |Δθ| in radians (cyclical kinds; 0 for regular)
  double rel_frobenius = 0;  // ‖P − P*‖_F / ‖P*‖_F at T
  // The largest of the parameter differences (the recovery criterion); NaN when not matched.
  double maxDelta() const;
  std::string status() const;  // "no REM", "no true component of this kind", or a summary
};

RemMatch matchRem(RemKind kind, double base, double theta, int64_t dilation,
                  const GroundTruth& truth, int64_t T);
RemMatch matchRem(const HeadInspection& head, const GroundTruth& truth, int64_t T);

struct HeadMatch {
  int64_t layer = 0, head = 0;
  RemMatch match;
};
// Every REM head of the record's (encoder) layers, matched.
std::vector<HeadMatch> matchRems(const InspectionRecord& record, const GroundTruth& truth,
                                 int64_t T);
// True when there is at least one matched head and every REM head is matched within `tolerance`.
bool remsRecovered(const std::vector<HeadMatch>& matches, double tolerance = kRecoveryTolerance);

// Expected one-step (and up to H-step) squared error of the optimal predictor of a zero-mean
// stationary Gaussian series with autocovariance acov[0..], when position t of a window predicts
// rows t+1..t+H from rows 0..t of the same window (as the series tasks train and score): the mean
// over t < T and h ≤ H of Var(s_{t+h} | s_0..s_t). Needs acov.size() ≥ T + H. Divide by the
// normalisation variance for the normalised loss.
double gaussianWindowFloor(const std::vector<double>& acov, int64_t T, int64_t H);

}  // namespace rsalab
