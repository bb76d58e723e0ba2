#include "engine/training/series_norm.h"

namespace rsalab {

WindowScale windowScale(const torch::Tensor& x, NormMode mode, const std::vector<double>& mean,
                        const std::vector<double>& stddev) {
  WindowScale s;
  if (mode == NormMode::Global) return s;
  if (mode == NormMode::Window) {
    s.shift = x.mean(1, /*keepdim=*/true);                      // (B, 1, C)
    auto var = (x - s.shift).pow(2).mean(1, /*keepdim=*/true);  // (B, 1, C)
    s.scale = (var + kWindowNormEps).sqrt();                    // (B, 1, C)
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
  auto o = out.view({B, T, H, C});                      // (B, T', H, C)
  o = o * s.scale.unsqueeze(2) + s.shift.unsqueeze(2);  // (B, T', H, C)
  return o.reshape({B, T, H * C});                      // (B, T', H·C)
}

}  // namespace rsalab
