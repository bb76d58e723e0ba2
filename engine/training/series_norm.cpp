// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/series_norm.h"

#include "engine/models/sequence_model.h"

namespace rsalab {

WindowScale windowScale(const torch::Tensor& x, NormMode mode, const std::vector<double>& mean,
                        const std::vector<double>& stddev) {
  WindowScale s;
  if (mode == NormMode::Global) return s;
  if (mode == NormMode::Window || mode == NormMode::Revin) {
    // Running moments of the inputs 0..t, taken about the first input so that a series far from
    // zero loses no digits to cancellation in E[d²] − E[d]².
    const auto T = x.size(1);
    const auto count = torch::arange(1, T + 1, x.options()).view({1, T, 1});  // (1, T, 1)
    const auto d = x - x.narrow(1, 0, 1);                                     // (B, T, C)
    const auto mean_d = d.cumsum(1) / count;                                  // (B, T, C)
    const auto var = (d.pow(2).cumsum(1) / count - mean_d.pow(2)).clamp_min(0.0);
    s.shift = x.narrow(1, 0, 1) + mean_d;     // (B, T, C)
    s.scale = (var + kWindowNormEps).sqrt();  // (B, T, C)
    return s;
  }
  const auto options = torch::TensorOptions().dtype(x.dtype()).device(x.device());
  auto m = torch::tensor(mean, torch::kFloat64).to(options).view({1, 1, -1});     // (1, 1, C)
  auto sd = torch::tensor(stddev, torch::kFloat64).to(options).view({1, 1, -1});  // (1, 1, C)
  s.shift = -m / sd;
  s.scale = 1.0 / sd;
  return s;
}

torch::Tensor normaliseInput(const torch::Tensor& x, const WindowScale& s) {
  if (s.identity()) return x;
  return (x - s.shift) / s.scale;  // (B, T, C)
}

torch::Tensor restoreOutput(const torch::Tensor& out, const WindowScale& s) {
  if (s.identity()) return out;
  const auto C = s.shift.size(2);
  const auto B = out.size(0), T = out.size(1), H = out.size(2) / C;
  auto last = [T](const torch::Tensor& v) {  // the statistics of the last T' positions
    return v.size(1) > T ? v.narrow(1, v.size(1) - T, T) : v;
  };
  auto o = out.view({B, T, H, C});                                  // (B, T', H, C)
  o = o * last(s.scale).unsqueeze(2) + last(s.shift).unsqueeze(2);  // (B, T', H, C)
  return o.reshape({B, T, H * C});                                  // (B, T', H·C)
}

torch::Tensor revinAffine(const torch::Tensor& xn, const torch::Tensor& weight,
                          const torch::Tensor& bias) {
  return xn * weight.view({1, 1, -1}) + bias.view({1, 1, -1});  // (B, T, C)
}

torch::Tensor revinInverse(const torch::Tensor& out, const torch::Tensor& weight,
                           const torch::Tensor& bias) {
  const auto C = weight.size(0);
  const auto B = out.size(0), T = out.size(1), H = out.size(2) / C;
  auto o = out.view({B, T, H, C});  // (B, T', H, C)
  o = (o - bias.view({1, 1, 1, C})) / (weight.view({1, 1, 1, C}) + kRevinEps);
  return o.reshape({B, T, H * C});  // (B, T', H·C)
}

torch::Tensor normalisedForward(SequenceModelImpl& model, const torch::Tensor& x, NormMode mode,
                                const std::vector<double>& mean, const std::vector<double>& stddev,
                                InspectionRecord* record, const torch::Tensor& marks) {
  const auto scale = windowScale(x, mode, mean, stddev);
  const auto forward = [&](const torch::Tensor& in) {
    return marks.defined() && model.readsMarks() ? model.forwardMarked(in, marks, record)
                                                 : model.forward(in, record);
  };
  if (mode != NormMode::Revin) return restoreOutput(forward(normaliseInput(x, scale)), scale);
  const auto& w = model.revinWeight();
  const auto& b = model.revinBias();
  if (!w.defined())
    throw std::invalid_argument("norm revin: the model was built without RevIN's parameters");
  const auto out = forward(revinAffine(normaliseInput(x, scale), w, b));
  return restoreOutput(revinInverse(out, w, b), scale);
}

}  // namespace rsalab
