// How close a learned REM is to the task's true recurrence, from plain numbers (no LibTorch), so
// the REM view can score every head while training.
//
// The REM of one head over T positions (causal, as the series tasks use; spec/models.md "Lag
// matrix and REMs"): P[i, j] = 0 unless i > j and d divides k·d = i − j (dilation d), else
//   regular  P[i, j] = λ^k
//   cos      P[i, j] = γ^k · cos(θk)
//   sin      P[i, j] = γ^k · sin(θk)
// Similarity of two REMs A, B of the same T: the cosine of the angle between them as vectors,
//   sim(A, B) = Σ_ij A_ij B_ij / (‖A‖_F · ‖B‖_F)      ∈ [−1, 1], NaN when either is all zeros.
// A head's score against the ground truth is the best sim over the true components: every true λ
// gives a regular REM, every true (γ, θ) pair gives both a cos and a sin REM, all undilated
// (d = 1: the data were generated step by step). The learned REM is built with the head's own
// kind, parameters and dilation. A cos head that learned θ → 0 thus matches a true λ = γ, and a
// dilated head is scored fairly low against an undilated truth, which is the truth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/inspection.h"

namespace rsalab {

// Row-major T × T causal REM in double precision; kind is "regular", "cos" or "sin".
std::vector<double> remClosedForm(const std::string& kind, double base, double theta,
                                  int64_t dilation, int64_t T);
// Cosine similarity of two equally sized matrices; NaN if sizes differ or a norm is 0.
double cosineSimilarity(const std::vector<double>& a, const std::vector<double>& b);

struct RemTruth {
  std::vector<double> lambdas;
  std::vector<double> gammas;  // paired with thetas
  std::vector<double> thetas;
  bool empty() const { return lambdas.empty() && gammas.empty(); }
};

// The head's score as defined above at length T; NaN when the head has no REM, the truth is empty
// or T < 2. `best` (optional) receives a label of the matching true component, e.g. "λ=0.8".
double remTruthSimilarity(const HeadInspection& head, const RemTruth& truth, int64_t T,
                          std::string* best = nullptr);

}  // namespace rsalab
