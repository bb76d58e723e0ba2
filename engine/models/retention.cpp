// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/retention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/models/transformer.h"

namespace rsalab {

torch::Tensor retentionDefaultDecays(int64_t heads) {
  auto h = torch::arange(heads, torch::TensorOptions().dtype(torch::kFloat64));  // (H)
  return 1.0 - torch::pow(2.0, -5.0 - h);                                        // (H)
}

torch::Tensor retentionRotate(const torch::Tensor& x, int64_t offset) {
  const int64_t T = x.size(-2), Dh = x.size(-1);
  TORCH_CHECK(Dh % 2 == 0, "retention rotation needs an even head width, got ", Dh);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(x.device());
  auto theta = torch::pow(10000.0, -2.0 * torch::arange(Dh / 2, f64) / Dh);  // (Dh/2)
  auto pos = torch::arange(offset, offset + T, f64);                         // (T)
  auto angle = pos.unsqueeze(1) * theta.unsqueeze(0);                        // (T, Dh/2)
  auto cos = angle.cos().to(x.scalar_type()), sin = angle.sin().to(x.scalar_type());
  auto pairs = x.unflatten(-1, {Dh / 2, 2});                // (..., T, Dh/2, 2)
  auto x0 = pairs.select(-1, 0), x1 = pairs.select(-1, 1);  // (..., T, Dh/2)
  return torch::stack({x0 * cos - x1 * sin, x0 * sin + x1 * cos}, -1).flatten(-2);  // (..., T, Dh)
}

torch::Tensor retentionDecayMatrix(const torch::Tensor& log_gamma, int64_t T,
                                   const torch::Tensor& key_padding) {
  const int64_t H = log_gamma.size(0);
  auto n = torch::arange(T, log_gamma.options());
  auto lag = n.unsqueeze(1) - n.unsqueeze(0);  // (T, T): n − m
  auto future = torch::ones({T, T}, log_gamma.options().dtype(torch::kBool)).triu(1);  // m > n
  // log D_nm = (n − m)·log γ_h; −∞ above the diagonal, so exp gives exactly 0 there.
  auto log_d = (log_gamma.view({H, 1, 1}) * lag)
                   .masked_fill(future, -std::numeric_limits<double>::infinity());  // (H, T, T)
  auto d = log_d.exp();                                                             // (H, T, T)
  if (key_padding.defined()) {
    const int64_t B = key_padding.size(0);
    d = d.unsqueeze(0).masked_fill(key_padding.view({B, 1, 1, T}), 0.0);  // (B, H, T, T)
  }
  auto sum = d.sum(-1, /*keepdim=*/true);  // Σ_m D_nm: ≥ 1 (the diagonal) unless all padded
  return d / torch::where(sum > 0, sum, torch::ones_like(sum)).sqrt();  // D̃
}

// R̃ V with R = Q Kᵀ/√Dh ⊙ D̃ and R̃_nm = R_nm / max(|Σ_m R_nm|, 1). The 1/√Dh goes into D̃
// (H × T × T, shared by the batch) and the row divisor onto R V (B × H × T × Dh): two fewer
// passes over the B × H × T × T scores, forward and backward.
torch::Tensor retentionParallel(const torch::Tensor& q, const torch::Tensor& k,
                                const torch::Tensor& v, const torch::Tensor& log_gamma,
                                const torch::Tensor& key_padding, torch::Tensor* weights) {
  const int64_t T = q.size(2), Dh = q.size(3);
  auto d = retentionDecayMatrix(log_gamma.to(q.options()), T, key_padding) *
           (1.0 / std::sqrt(static_cast<double>(Dh)));              // (B|1, H, T, T): D̃/√Dh
  auto r = torch::matmul(q, k.transpose(-2, -1)) * d;               // (B, H, T, T)
  auto divisor = r.sum(-1, /*keepdim=*/true).abs().clamp_min(1.0);  // (B, H, T, 1)
  if (weights) *weights = r / divisor;                              // R̃
  return torch::matmul(r, v) / divisor;                             // (B, H, T, Dh)
}

// S_n = γ S_{n−1} + k_nᵀ v_n, z_n = γ z_{n−1} + k_n, s_n = γ s_{n−1} + 1;
// y_n = q_n S_n / max(|q_n·z_n|, √Dh √s_n)  (both scaled by 1/(√Dh √s_n) in the parallel form)
torch::Tensor retentionStep(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            const torch::Tensor& gamma, torch::Tensor& S, torch::Tensor& z,
                            torch::Tensor& s) {
  // State kept in float32 (or wider) whatever the activations' precision.
  const auto state_type = q.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  auto qt = q.to(state_type).squeeze(2);  // (B, H, Dh)
  auto kt = k.to(state_type).squeeze(2);  // (B, H, Dh)
  auto vt = v.to(state_type).squeeze(2);  // (B, H, Dv)
  const int64_t H = qt.size(1), Dh = qt.size(2);
  auto g = gamma.to(qt.options());  // (H)
  if (!S.defined()) {
    S = torch::zeros({qt.size(0), H, Dh, vt.size(2)}, qt.options());
    z = torch::zeros_like(kt);
    s = torch::zeros({H}, qt.options());
  }
  S = g.view({1, H, 1, 1}) * S + kt.unsqueeze(-1) * vt.unsqueeze(-2);  // (B, H, Dh, Dv)
  z = g.view({1, H, 1}) * z + kt;                                      // (B, H, Dh)
  s = g * s + 1;                                                       // (H)
  auto scale = (s.sqrt() * std::sqrt(static_cast<double>(Dh))).reciprocal().view({1, H, 1});
  auto num = torch::matmul(qt.unsqueeze(-2), S).squeeze(-2) * scale;  // (B, H, Dv): Σ_m R_nm v_m
  auto den = (qt * z).sum(-1, /*keepdim=*/true) * scale;              // (B, H, 1):  Σ_m R_nm
  return (num / den.abs().clamp_min(1.0)).unsqueeze(2).to(q.scalar_type());  // (B, H, 1, Dv)
}

RetentionImpl::RetentionImpl(int64_t d_model, int64_t heads, bool learnable_decay, bool rotation)
    : SelfAttentionImpl(d_model, heads, /*causal=*/true), rotation_(rotation) {
  if (rotation && head_dim_ % 2 != 0) {
    throw std::invalid_argument(
        "retnet_rotation turns pairs of channels: the head width d_model / "
        "heads = " +
        std::to_string(head_dim_) + " must be even");
  }
  gate_ = register_module("gate", torch::nn::Linear(d_model, d_model));  // W_G
  norm_ =
      register_module("norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(heads, d_model)));
  const auto gamma = retentionDefaultDecays(heads);  // (H) float64
  fixed_log_gamma_ = gamma.log();
  if (learnable_decay) {
    // ν = logit(γ) = log(γ / (1 − γ)): σ(ν) starts at the paper's γ and stays in (0, 1).
    decay_logit =
        register_parameter("decay_logit", (gamma / (1 - gamma)).log().to(torch::kFloat32));
  }
}

torch::Tensor RetentionImpl::logDecays() const {
  return decay_logit.defined() ? torch::log_sigmoid(decay_logit) : fixed_log_gamma_;  // (H)
}

torch::Tensor RetentionImpl::decays() const { return logDecays().exp(); }  // (H)

torch::Tensor RetentionImpl::gateAndProject(const torch::Tensor& x, const torch::Tensor& y) {
  const auto B = y.size(0), T = y.size(1);
  auto normed = norm_->forward(y.reshape({B * T, d_model_})).view({B, T, d_model_});  // (B, T, D)
  return out_->forward(torch::silu(gate_->forward(x)) * normed);                      // (B, T, D)
}

// MSR(X) = W_O(swish(X W_G) ⊙ GroupNorm_H(R̃ V))
torch::Tensor RetentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_padding,
                                     const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);  // (B, H, T, Dh) each
  if (rotation_) {
    q = retentionRotate(q, 0);  // q_n e^{inθ}
    k = retentionRotate(k, 0);  // k_m e^{imθ}
  }
  const auto log_gamma = logDecays().to(q.device());  // (H)
  torch::Tensor weights;
  auto y = retentionParallel(q, k, v, log_gamma, key_padding,
                             observe ? &weights : nullptr);  // (B, H, T, Dh)
  if (observe) {
    observe.attention(weights);  // R̃ (B, H, T, T)
    observe.decay(log_gamma.exp());
  }
  return gateAndProject(x, mergeHeads(y));  // (B, T, D)
}

torch::Tensor RetentionImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k, v] = projectQkv(x_t);  // (B, H, 1, Dh) each
  if (rotation_) {
    q = retentionRotate(q, state.length);
    k = retentionRotate(k, state.length);
  }
  auto y = retentionStep(q, k, v, decays().to(q.device()), state.S, state.z,
                         state.decay_sum);  // (B, H, 1, Dh)
  state.length += 1;
  return gateAndProject(x_t, mergeHeads(y));  // (B, 1, D)
}

namespace {

// The maker of the attention card named "retention" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kRetentionMaker = registerAttentionMaker(
    "retention", [](const ModelOptions& o, bool /*causal*/) -> SelfAttention {
      return std::make_shared<RetentionImpl>(o.d_model, o.heads, o.retnet_learnable_decay,
                                             o.retnet_rotation);
    });

}  // namespace

}  // namespace rsalab
