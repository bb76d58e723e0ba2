// SPDX-License-Identifier: GPL-3.0-or-later
// What a series model sees (TaskData::norm, NormMode): the task's tensors are in the train part's
// global normalisation (z units, where losses are measured); the trainer maps each input window
// before the model and each prediction back after it, so losses stay in z units whatever the mode.
//   window: causal reversible instance normalisation, per column: position t is shifted by the
//           mean of the window's inputs 0..t and scaled by sqrt(their variance + kWindowNormEps),
//           and its prediction is mapped back with the same two numbers. Statistics over the whole
//           window would hand position t the mean of inputs after t, which are its own targets
//           (training scores every position): the prediction at t would see its answer.
//   none:   shift = −mean/std, scale = 1/std of the global normalisation: the model sees raw values
//   global: identity.
//   revin:  RevIN (Kim, Kim, Tae, Park, Choi & Choo, "Reversible Instance Normalization for
//           Accurate Time-Series Forecasting against Distribution Shift", ICLR 2022): window's
//           statistics µ, σ, then a learned affine per column c, x̃ = γ_c·(x − µ)/σ + β_c, before
//           the model; its output ỹ goes back by y = ((ỹ − β_c) / (γ_c + kRevinEps))·σ + µ (the
//           paper's denormalisation, step h of column c with column c's γ, β and statistics).
//           γ, β are the model's parameters (SequenceModelImpl::revinWeight / revinBias), trained
//           with it and saved with it; the statistics stay causal (position t: inputs 0..t).
#pragma once

#include <vector>

#include "engine/core/io/enums.h"
#include "engine/core/io/inspection.h"
#include "engine/torch_api.h"

namespace rsalab {

// In z units: a window flatter than 1% of the train part's std is not blown up into noise.
constexpr double kWindowNormEps = 1e-4;

struct WindowScale {
  torch::Tensor shift, scale;  // (B, T, C) (window), (1, 1, C) (none); undefined for global
  bool identity() const { return !shift.defined(); }
};

// x (B, T, C); mean / stddev: the global normalisation per column (used by none).
WindowScale windowScale(const torch::Tensor& x, NormMode mode, const std::vector<double>& mean,
                        const std::vector<double>& stddev);
torch::Tensor normaliseInput(const torch::Tensor& x, const WindowScale& s);  // (B, T, C)
// out (B, T', H·C), column c of step h at h·C + c: out·scale + shift per column, position t′ with
// the statistics of input position T − T′ + t′ (T′ < T: the model's outputs are the last T′).
torch::Tensor restoreOutput(const torch::Tensor& out, const WindowScale& s);

// RevIN's guard against a scale γ_c at 0 in the division (the authors' eps², eps = 1e-5).
constexpr double kRevinEps = 1e-10;
// The affine on a normalised input xn (B, T, C): γ_c·xn + β_c; and its inverse on a normalised
// output (B, T', H·C): (out − β_c) / (γ_c + kRevinEps) for column c of every step h.
torch::Tensor revinAffine(const torch::Tensor& xn, const torch::Tensor& weight,
                          const torch::Tensor& bias);
torch::Tensor revinInverse(const torch::Tensor& out, const torch::Tensor& weight,
                           const torch::Tensor& bias);

class SequenceModelImpl;
// The whole forward of a series model as the trainer runs it: normalise, forward, restore.
// One function, so that tests/test_causality.cpp checks exactly what training and scoring use.
torch::Tensor normalisedForward(SequenceModelImpl& model, const torch::Tensor& x, NormMode mode,
                                const std::vector<double>& mean, const std::vector<double>& stddev,
                                InspectionRecord* record = nullptr,
                                const torch::Tensor& marks = {});  // DataSplit::marks' rows

}  // namespace rsalab
