// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/rem_builder.h"

#include <cmath>
#include <stdexcept>

namespace rsalab {

std::vector<RemHeadSpec> assignRemHeads(const RemHeadCounts& c,
                                        const std::vector<int64_t>& dilations) {
  std::vector<RemHeadSpec> specs;
  size_t next_dilation = 0;
  auto add = [&](int64_t count, RemKind kind, bool dilated) {
    for (int64_t i = 0; i < count; ++i) {
      int64_t d = 1;
      if (dilated) {
        if (dilations.empty()) throw std::invalid_argument("dilated REM heads need dilations");
        d = dilations[next_dilation++ % dilations.size()];
      }
      specs.push_back({kind, d});
    }
  };
  add(c.regular, RemKind::Regular, false);
  add(c.cos, RemKind::Cos, false);
  add(c.sin, RemKind::Sin, false);
  add(c.dilated_regular, RemKind::Regular, true);
  add(c.dilated_cos, RemKind::Cos, true);
  add(c.dilated_sin, RemKind::Sin, true);
  return specs;
}

torch::Tensor lagMatrix(int64_t T, const torch::Device& device) {
  auto pos = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(device));
  return pos.unsqueeze(1) - pos.unsqueeze(0);  // (T, T)
}

RemBuilderImpl::RemBuilderImpl(std::vector<RemHeadSpec> specs, const RemInit& init, bool causal)
    : specs_(std::move(specs)), causal_(causal) {
  std::vector<int64_t> head_index, dilation;
  std::vector<float> selector;
  std::vector<float> eta0, nu0, theta0;
  int64_t n_regular = 0;
  for (const auto& s : specs_) n_regular += s.kind == RemKind::Regular ? 1 : 0;
  int64_t r = 0, c = 0;
  for (const auto& s : specs_) {
    if (s.dilation < 1) throw std::invalid_argument("REM dilation must be >= 1");
    dilation.push_back(s.dilation);
    if (s.kind == RemKind::Regular) {
      head_index.push_back(r++);
      // η ~ ±U(eta_min, eta_max), random sign (the RSA paper's default init) unless eta_sign
      // fixes it (both draws are made either way, so the other parameters' init is unchanged).
      const double mag =
          init.eta_min + (init.eta_max - init.eta_min) * torch::rand({1}).item<double>();
      const double coin = torch::rand({1}).item<double>() < 0.5 ? -1.0 : 1.0;
      const double sign = init.eta_sign != 0 ? static_cast<double>(init.eta_sign) : coin;
      eta0.push_back(static_cast<float>(sign * mag));
      selector.insert(selector.end(), {1.f, 0.f, 0.f});
    } else {
      head_index.push_back(n_regular + c);
      nu0.push_back(static_cast<float>(init.nu_min + (init.nu_max - init.nu_min) *
                                                         torch::rand({1}).item<double>()));
      const double th = c < static_cast<int64_t>(init.theta.size())
                            ? init.theta[static_cast<size_t>(c)]
                            : M_PI / static_cast<double>(c + 2);  // π/(k+1), k = c+1
      theta0.push_back(static_cast<float>(th));
      ++c;
      selector.insert(selector.end(), s.kind == RemKind::Cos
                                          ? std::initializer_list<float>{0.f, 1.f, 0.f}
                                          : std::initializer_list<float>{0.f, 0.f, 1.f});
    }
  }
  const auto R = static_cast<int64_t>(specs_.size());
  eta = register_parameter("eta", torch::tensor(eta0.empty() ? std::vector<float>{} : eta0));
  nu = register_parameter("nu", torch::tensor(nu0.empty() ? std::vector<float>{} : nu0));
  theta_raw =
      register_parameter("theta", torch::tensor(theta0.empty() ? std::vector<float>{} : theta0));
  // Not registered as buffers: Module::to(dtype) would turn the integer tensors into floats.
  // They follow the parameters' device on use.
  head_index_ = torch::tensor(head_index, torch::kInt64);
  dilation_ = torch::tensor(dilation, torch::kInt64);
  selector_ = torch::tensor(selector).view({R, 3});
}

torch::Tensor RemBuilderImpl::base() const {
  auto all = torch::cat({torch::tanh(eta), torch::sigmoid(nu)});  // (n_reg + n_cyc)
  return all.index_select(0, head_index_.to(all.device()));       // (R)
}

torch::Tensor RemBuilderImpl::theta() const {
  auto all = torch::cat({torch::zeros_like(eta), theta_raw});
  return all.index_select(0, head_index_.to(all.device()));  // (R)
}

// f_h(m) = base_h^k · {1 | cos(θ_h k) | sin(θ_h k)} with k = m/d_h where d_h divides m > 0,
// else 0, for lags m = 0..max_lag: (R, max_lag + 1).
torch::Tensor RemBuilderImpl::lagValues(int64_t max_lag) const {
  const int64_t R = size();
  auto m =
      torch::arange(max_lag + 1, torch::TensorOptions().dtype(torch::kInt64).device(eta.device()))
          .unsqueeze(0);  // (1, M)
  auto d = dilation_.to(eta.device()).view({R, 1});
  auto valid = m.gt(0) & (m.remainder(d) == 0);  // (R, M)
  auto k = torch::div(m, d, "floor")
               .masked_fill(valid.logical_not(), 1)
               .to(eta.scalar_type());       // (R, M)
  auto powers = base().view({R, 1}).pow(k);  // (R, M)
  auto angle = theta().view({R, 1}) * k;     // (R, M)
  auto sel = selector_.to(eta.device(), eta.scalar_type());
  auto trig = sel.select(1, 0).view({R, 1}) + sel.select(1, 1).view({R, 1}) * torch::cos(angle) +
              sel.select(1, 2).view({R, 1}) * torch::sin(angle);                  // (R, M)
  return torch::where(valid, powers * trig, torch::zeros({}, powers.options()));  // (R, M)
}

// REM: P_h[i,j] = f_h(dist[i,j]). P depends on (i, j) only through the lag, so f_h is evaluated
// once per lag and gathered into (R, Tq, Tk): one pass over the T × T entries forward and one (a
// scatter-add) backward, instead of one per elementwise op.
torch::Tensor RemBuilderImpl::build(const torch::Tensor& lag) const {
  const int64_t R = size();
  auto dist = (causal_ ? lag : lag.abs()).clamp_min(0);  // (Tq, Tk); future lags (< 0) -> 0
  const int64_t max_lag = dist.numel() > 0 ? dist.max().item<int64_t>() : 0;
  return lagValues(max_lag)
      .index_select(1, dist.flatten())
      .view({R, lag.size(0), lag.size(1)});  // (R, Tq, Tk)
}

// e[h, m] = P_h at lag T − 1 − m: flip(f(0..T−1)) then the future lags −1..−(T−1), which are 0
// when causal and f(1..T−1) (|lag|) when bidirectional.
torch::Tensor RemBuilderImpl::diagonals(int64_t T) const {
  auto values = lagValues(std::max<int64_t>(T - 1, 0));  // (R, T)
  auto future = causal_ ? torch::zeros({size(), T - 1}, values.options())
                        : values.narrow(1, 1, T - 1);  // (R, T − 1)
  return torch::cat({values.flip(1), future}, 1);      // (R, 2T − 1)
}

torch::Tensor RemBuilderImpl::build(int64_t T) {
  if (torch::GradMode::is_enabled()) {
    cached_T_ = -1;
    return build(lagMatrix(T, eta.device()));
  }
  std::vector<int64_t> versions = {eta._version(), nu._version(), theta_raw._version()};
  if (cached_T_ == T && versions == cached_versions_ && cached_.defined() &&
      cached_.device() == eta.device() && cached_.scalar_type() == eta.scalar_type()) {
    return cached_;
  }
  cached_ = build(lagMatrix(T, eta.device()));
  cached_T_ = T;
  cached_versions_ = versions;
  return cached_;
}

}  // namespace rsalab
