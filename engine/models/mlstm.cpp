// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/mlstm.h"

#include <cmath>
#include <limits>

#include "engine/models/transformer.h"

namespace rsalab {

namespace {

// The log-space gate arithmetic runs in float32 or wider whatever the activations' precision.
torch::ScalarType wideType(const torch::Tensor& t) {
  return t.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32;
}

}  // namespace

// log D_ij = F_i − F_j + ĩ_j, F_t = Σ_{k ≤ t} log f_k: F_i − F_j = Σ_{k=j+1..i} log f_k.
torch::Tensor mlstmLogDecayMatrix(const torch::Tensor& log_forget, const torch::Tensor& input_gate,
                                  const torch::Tensor& key_padding) {
  const int64_t T = log_forget.size(-1);
  auto cum = log_forget.cumsum(-1);                                                // (B, H, T): F
  auto log_d = cum.unsqueeze(-1) - cum.unsqueeze(-2) + input_gate.unsqueeze(-2);   // (B, H, T, T)
  auto future = torch::ones({T, T}, log_d.options().dtype(torch::kBool)).triu(1);  // j > i
  constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
  log_d = log_d.masked_fill(future, kMinusInf);
  if (key_padding.defined())
    log_d = log_d.masked_fill(key_padding.view({key_padding.size(0), 1, 1, T}), kMinusInf);
  return log_d;  // (B, H, T, T)
}

// H̃ = (C̃ / n) V, C̃ = Q(K/√Dh)ᵀ ⊙ exp(log D − m_i), n_i = max(|Σ_j C̃_ij|, exp(−m_i)).
// m is held out of autograd: H̃ does not depend on it (it scales C̃ and the floor alike), so its
// gradient is zero and only rounding would come back through it.
torch::Tensor mlstmParallel(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            const torch::Tensor& input_gate, const torch::Tensor& forget_gate,
                            const torch::Tensor& key_padding, torch::Tensor* weights) {
  const auto wide = wideType(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  auto log_d = mlstmLogDecayMatrix(torch::log_sigmoid(forget_gate.to(wide)), input_gate.to(wide),
                                   key_padding);                   // (B, H, T, T)
  auto m = std::get<0>(log_d.detach().max(-1, /*keepdim=*/true));  // (B, H, T, 1)
  // A query with every key padded has m = −∞: any finite m gives its row C̃ = 0 and H̃ = 0.
  if (key_padding.defined()) m = torch::where(torch::isinf(m), torch::zeros_like(m), m);
  auto decay = (log_d - m).exp().to(q.scalar_type());                 // (B, H, T, T)
  auto c = torch::matmul(q, (k * scale).transpose(-2, -1)) * decay;   // (B, H, T, T): C̃
  auto floor = (-m).exp().to(q.scalar_type());                        // (B, H, T, 1)
  auto n = torch::maximum(c.sum(-1, /*keepdim=*/true).abs(), floor);  // (B, H, T, 1)
  if (weights) *weights = c / n;                                      // C̃ / n
  return torch::matmul(c, v) / n;                                     // (B, H, T, Dh)
}

// m_t = max(log f_t + m_{t−1}, ĩ_t), i' = exp(ĩ_t − m_t), f' = exp(log f_t + m_{t−1} − m_t);
// C_t = f' C_{t−1} + i' v_t k_tᵀ, n_t = f' n_{t−1} + i' k_t,
// h̃_t = C_t q_t / max(|n_tᵀq_t|, exp(−m_t)).
torch::Tensor mlstmStep(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& input_gate, const torch::Tensor& forget_gate,
                        torch::Tensor& C, torch::Tensor& n, torch::Tensor& m) {
  const auto wide = wideType(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  auto qt = q.to(wide).squeeze(2);                        // (B, H, Dh)
  auto kt = k.to(wide).squeeze(2) * scale;                // (B, H, Dh)
  auto vt = v.to(wide).squeeze(2);                        // (B, H, Dh)
  auto ig = input_gate.to(wide);                          // (B, H): ĩ_t
  auto log_f = torch::log_sigmoid(forget_gate.to(wide));  // (B, H)
  torch::Tensor m_new, f_prime;
  if (!C.defined()) {  // t = 0: nothing to forget, m_0 = ĩ_0
    C = torch::zeros({qt.size(0), qt.size(1), vt.size(2), kt.size(2)}, qt.options());
    n = torch::zeros_like(kt);
    m_new = ig;
    f_prime = torch::zeros_like(ig);
  } else {
    m_new = torch::maximum(log_f + m, ig);  // (B, H)
    f_prime = (log_f + m - m_new).exp();    // (B, H)
  }
  auto i_prime = (ig - m_new).exp();  // (B, H)
  C = f_prime.unsqueeze(-1).unsqueeze(-1) * C +
      i_prime.unsqueeze(-1).unsqueeze(-1) * vt.unsqueeze(-1) * kt.unsqueeze(-2);  // (B, H, Dh, Dh)
  n = f_prime.unsqueeze(-1) * n + i_prime.unsqueeze(-1) * kt;                     // (B, H, Dh)
  m = m_new;
  auto num = torch::matmul(C, qt.unsqueeze(-1)).squeeze(-1);  // (B, H, Dh): C_t q_t
  auto den = torch::maximum((n * qt).sum(-1, /*keepdim=*/true).abs(),
                            (-m).exp().unsqueeze(-1));  // (B, H, 1)
  return (num / den).unsqueeze(2).to(q.scalar_type());  // (B, H, 1, Dh)
}

MlstmImpl::MlstmImpl(int64_t d_model, int64_t heads)
    : SelfAttentionImpl(d_model, heads, /*causal=*/true) {
  input_gate_ = register_module("input_gate", torch::nn::Linear(d_model, heads));
  forget_gate_ = register_module("forget_gate", torch::nn::Linear(d_model, heads));
  output_gate_ = register_module("output_gate", torch::nn::Linear(d_model, d_model));
  norm_ =
      register_module("norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(heads, d_model)));
  torch::NoGradGuard no_grad;
  input_gate_->bias.zero_();                                   // i = exp(0) = 1 (mlstm.h)
  forget_gate_->bias.copy_(torch::linspace(3.0, 6.0, heads));  // f = σ(3..6): 0.95 to 0.998
}

std::pair<torch::Tensor, torch::Tensor> MlstmImpl::gatePreactivations(const torch::Tensor& x) {
  return {input_gate_->forward(x).transpose(1, 2),    // (B, H, T): ĩ
          forget_gate_->forward(x).transpose(1, 2)};  // (B, H, T): f̃
}

torch::Tensor MlstmImpl::gateAndProject(const torch::Tensor& x, const torch::Tensor& y) {
  const auto B = y.size(0), T = y.size(1);
  auto normed = norm_->forward(y.reshape({B * T, d_model_})).view({B, T, d_model_});  // (B, T, D)
  return out_->forward(torch::sigmoid(output_gate_->forward(x)) * normed);            // (B, T, D)
}

// mLSTM: W_O(σ(W_o x) ⊙ GroupNorm_H((C̃ / n) V))
torch::Tensor MlstmImpl::forward(const torch::Tensor& x, const torch::Tensor& key_padding,
                                 const LayerObserver& observe) {
  auto [q, k, v] = projectQkv(x);         // (B, H, T, Dh) each
  auto [ig, fg] = gatePreactivations(x);  // (B, H, T) each
  torch::Tensor weights;
  auto y = mlstmParallel(q, k, v, ig, fg, key_padding,
                         observe ? &weights : nullptr);  // (B, H, T, Dh)
  if (observe) {
    observe.attention(weights);         // C̃ / n (B, H, T, T)
    observe.decay(torch::sigmoid(fg));  // f_t (B, H, T)
  }
  return gateAndProject(x, mergeHeads(y));  // (B, T, D)
}

torch::Tensor MlstmImpl::step(const torch::Tensor& x_t, AttentionState& state) {
  auto [q, k, v] = projectQkv(x_t);         // (B, H, 1, Dh) each
  auto [ig, fg] = gatePreactivations(x_t);  // (B, H, 1) each
  auto y = mlstmStep(q, k, v, ig.squeeze(-1), fg.squeeze(-1), state.S, state.z,
                     state.stabiliser);  // (B, H, 1, Dh)
  state.length += 1;
  return gateAndProject(x_t, mergeHeads(y));  // (B, 1, D)
}

namespace {

// The maker of the attention card named "mlstm" (makeSelfAttention, transformer.h).
[[maybe_unused]] const bool kMlstmMaker =
    registerAttentionMaker("mlstm", [](const ModelOptions& o, bool /*causal*/) -> SelfAttention {
      return std::make_shared<MlstmImpl>(o.d_model, o.heads);
    });

}  // namespace

}  // namespace rsalab
