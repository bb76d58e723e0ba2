// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/tasks/demo_series.h"

#include <cmath>

namespace rsalab {

torch::Tensor makeSeasonalSeries(const SeasonalSeriesOptions& o) {
  auto gen = at::detail::createCPUGenerator(o.seed);
  auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto t = torch::arange(o.length, f64);
  auto s = torch::zeros({o.length}, f64);
  for (size_t k = 0; k < o.periods.size(); ++k) {
    const double phase = 2 * M_PI * torch::rand({1}, gen, f64).item<double>();
    s += std::pow(0.7, static_cast<double>(k)) * torch::sin(2 * M_PI * t / o.periods[k] + phase);
  }
  // AR(1): a_t = λ a_{t−1} + e_t
  auto e = torch::randn({o.length}, gen, f64) * 0.3;
  auto e_acc = e.accessor<double, 1>();
  std::vector<double> a(static_cast<size_t>(o.length), 0.0);
  for (int64_t i = 1; i < o.length; ++i)
    a[static_cast<size_t>(i)] = o.ar_lambda * a[static_cast<size_t>(i - 1)] + e_acc[i];
  s += torch::tensor(a, f64);
  s += torch::randn({o.length}, gen, f64) * o.noise;
  return s.to(torch::kFloat32);
}

std::pair<torch::Tensor, torch::Tensor> nextStepWindows(const torch::Tensor& series, int64_t T,
                                                        int64_t stride) {
  auto windows = series.unfold(0, T + 1, stride);               // (N, T+1)
  auto x = windows.narrow(1, 0, T).unsqueeze(-1).contiguous();  // (N, T, 1)
  auto y = windows.narrow(1, 1, T).unsqueeze(-1).contiguous();  // (N, T, 1)
  return {x, y};
}

}  // namespace rsalab
