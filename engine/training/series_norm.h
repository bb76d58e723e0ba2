// What a series model sees (TaskData::norm, NormMode): the task's tensors are in the train part's
// global normalisation (z units, where losses are measured); the trainer maps each input window
// before the model and each prediction back after it, so losses stay in z units whatever the mode.
//   window: shift = the window's own mean, scale = sqrt(its variance + kWindowNormEps), per column
//           (reversible instance normalisation; the statistics use the inputs only, never targets)
//   none:   shift = −mean/std, scale = 1/std of the global normalisation: the model sees raw values
//   global: identity.
#pragma once

#include <vector>

#include "engine/core/names.h"
#include "engine/torch_api.h"

namespace rsalab {

// In z units: a window flatter than 1% of the train part's std is not blown up into noise.
constexpr double kWindowNormEps = 1e-4;

struct WindowScale {
  torch::Tensor shift, scale;  // (B, 1, C) each; undefined for global (identity)
  bool identity() const { return !shift.defined(); }
};

// x (B, T, C); mean / stddev: the global normalisation per column (used by none).
WindowScale windowScale(const torch::Tensor& x, NormMode mode, const std::vector<double>& mean,
                        const std::vector<double>& stddev);
torch::Tensor normaliseInput(const torch::Tensor& x, const WindowScale& s);  // (B, T, C)
// out (B, T', H·C), column c of step h at h·C + c: out·scale + shift per column.
torch::Tensor restoreOutput(const torch::Tensor& out, const WindowScale& s);

}  // namespace rsalab
