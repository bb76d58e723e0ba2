// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/training/flat_adam.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace rsalab {

FlatAdam::FlatAdam(const std::vector<torch::Tensor>& decay,
                   const std::vector<torch::Tensor>& no_decay, double learning_rate,
                   double weight_decay, bool decoupled)
    : decay_(decay),
      no_decay_(no_decay),
      lr_(learning_rate),
      wd_(weight_decay),
      decoupled_(decoupled) {
  for (const auto* group : {&decay_, &no_decay_}) {
    for (const auto& p : *group) {
      if (!p.requires_grad()) continue;
      if (!params_.empty() &&
          (p.scalar_type() != params_[0].scalar_type() || p.device() != params_[0].device()))
        throw std::invalid_argument("FlatAdam: parameters of more than one dtype or device");
      params_.push_back(p);
      if (group == &decay_) decay_numel_ += p.numel();
    }
  }
  int64_t n = 0;
  for (const auto& p : params_) n += p.numel();
  const auto options = params_.empty() ? torch::TensorOptions() : params_[0].options();
  flat_ = torch::empty({n}, options);
  grad_ = torch::zeros({n}, options);
  m_ = torch::zeros({n}, options);
  v_ = torch::zeros({n}, options);
  bind();
}

void FlatAdam::bind() {
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (auto& p : params_) {
    const int64_t n = p.numel();
    auto values = flat_.narrow(0, at, n);
    values.copy_(p.detach().reshape({n}));
    p.set_data(values.view(p.sizes()));
    p.mutable_grad() = grad_.narrow(0, at, n).view(p.sizes());
    at += n;
  }
}

void FlatAdam::rebind() { bind(); }

void FlatAdam::zeroGrad() { grad_.zero_(); }

double FlatAdam::gradNorm() const { return grad_.numel() ? grad_.norm().item<double>() : 0.0; }

void FlatAdam::clipGradNorm(double max_norm, double norm) {
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1) grad_.mul_(coef);
}

void FlatAdam::step() {
  if (flat_.numel() == 0) return;
  torch::NoGradGuard no_grad;
  ++step_;
  const double bc1 = 1 - std::pow(kBeta1, static_cast<double>(step_));
  const double bc2 = 1 - std::pow(kBeta2, static_cast<double>(step_));
  torch::Tensor g = grad_;
  if (wd_ != 0 && decay_numel_ > 0) {
    auto decayed = flat_.narrow(0, 0, decay_numel_);
    if (decoupled_) {
      decayed.mul_(1 - lr_ * wd_);
    } else {
      g = grad_.clone();
      g.narrow(0, 0, decay_numel_).add_(decayed, wd_);
    }
  }
  m_.mul_(kBeta1).add_(g, 1 - kBeta1);
  v_.mul_(kBeta2).addcmul_(g, g, 1 - kBeta2);
  auto denom = (v_.sqrt() / std::sqrt(bc2)).add_(kEps);
  flat_.addcdiv_(m_, denom, -lr_ / bc1);
}

void FlatAdam::save(torch::serialize::OutputArchive& archive) const {
  archive.write("flat_m", m_);
  archive.write("flat_v", v_);
  archive.write("flat_step", torch::tensor(step_, torch::kInt64));
}

namespace {

// The key of a parameter's state in a LibTorch optimizer: the TensorImpl's address printed as text
// in LibTorch 1.x, the address itself in 2.x.
template <typename StateMap>
typename StateMap::key_type stateKey(const StateMap&, c10::TensorImpl* impl) {
  if constexpr (std::is_same_v<typename StateMap::key_type, std::string>) {
    std::ostringstream text;
    text << impl;
    return text.str();
  } else {
    return impl;
  }
}

// The per-tensor optimizer RSA Lab used before, over the same groups, to read its archive.
template <typename Optimizer, typename Options, typename State>
void readPerTensor(const std::vector<torch::Tensor>& decay, const std::vector<torch::Tensor>& rest,
                   torch::serialize::InputArchive& archive, const std::vector<torch::Tensor>& order,
                   torch::Tensor& m, torch::Tensor& v, int64_t& step) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<Options>(Options(1e-3)));
  groups.emplace_back(rest, std::make_unique<Options>(Options(1e-3)));
  Optimizer legacy(groups);
  legacy.load(archive);
  auto& state = legacy.state();
  int64_t at = 0;
  step = 0;
  for (const auto& p : order) {
    const int64_t n = p.numel();
    const auto found = state.find(stateKey(state, p.unsafeGetTensorImpl()));
    if (found != state.end()) {
      auto& s = static_cast<State&>(*found->second);
      m.narrow(0, at, n).copy_(s.exp_avg().reshape({n}));
      v.narrow(0, at, n).copy_(s.exp_avg_sq().reshape({n}));
      step = std::max<int64_t>(step, s.step());
    }
    at += n;
  }
}

}  // namespace

void FlatAdam::load(torch::serialize::InputArchive& archive) {
  torch::Tensor m, v, step;
  if (archive.try_read("flat_step", step)) {
    archive.read("flat_m", m);
    archive.read("flat_v", v);
    if (m.numel() != m_.numel() || v.numel() != v_.numel())
      throw std::runtime_error("optimizer state of " + std::to_string(m.numel()) + " values for " +
                               std::to_string(m_.numel()) + " parameters");
    torch::NoGradGuard no_grad;
    m_.copy_(m);
    v_.copy_(v);
    step_ = step.item<int64_t>();
    return;
  }
  torch::NoGradGuard no_grad;
  m_.zero_();
  v_.zero_();
  if (decoupled_) {
    readPerTensor<torch::optim::AdamW, torch::optim::AdamWOptions, torch::optim::AdamWParamState>(
        decay_, no_decay_, archive, params_, m_, v_, step_);
  } else {
    readPerTensor<torch::optim::Adam, torch::optim::AdamOptions, torch::optim::AdamParamState>(
        decay_, no_decay_, archive, params_, m_, v_, step_);
  }
}

}  // namespace rsalab
