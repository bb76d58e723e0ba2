// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/models/mamba2.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace rsalab {

torch::Tensor segmentSum(const torch::Tensor& s) {
  const int64_t T = s.size(-1);
  auto shape = s.sizes().vec();
  shape.push_back(T);
  auto rows = s.unsqueeze(-1).expand(shape);  // (..., T, T): [i, j] = s_i
  auto below = torch::ones({T, T}, s.options().dtype(torch::kBool)).tril(-1);  // i > j
  // Column j sums s_k over j < k ≤ i: a cumulative sum down the rows of the strictly lower part.
  auto sums = rows.masked_fill(below.logical_not(), 0.0).cumsum(-2);  // (..., T, T)
  return sums.masked_fill(torch::ones_like(below).triu(1),
                          -std::numeric_limits<double>::infinity());  // −inf for j > i
}

namespace {
torch::Tensor logDecays(const SsdInputs& in) {
  return in.dt * in.A.view({1, -1, 1});  // log a_t = Δ_t·A_h: (B, H, T)
}
}  // namespace

// M_ij = L_ij (C_i·B_j) Δ_j, L = exp(segmentSum(Δ·A))
torch::Tensor ssdMatrix(const SsdInputs& in) {
  auto L = torch::exp(segmentSum(logDecays(in)));                        // (B, H, T, T)
  auto CB = torch::matmul(in.Cm, in.Bm.transpose(-1, -2)).unsqueeze(1);  // (B, 1, T, T)
  return L * CB * in.dt.unsqueeze(-2);  // (B, H, T, T): Δ_j scales column j
}

// y = M x
torch::Tensor ssdQuadratic(const SsdInputs& in) { return torch::matmul(ssdMatrix(in), in.x); }

// The chunked SSD algorithm (§6): with blocks of Q positions, y = (inside each block, M's
// diagonal block times the block's inputs) + (C_i times the state entering the block, decayed to
// i). Each block's own state at its end is Σ_j (decay j → end) Δ_j x_j B_jᵀ; the states entering
// the blocks come from one small T/Q × T/Q product with the blocks' total decays.
torch::Tensor ssdChunked(const SsdInputs& in, int64_t chunk, torch::Tensor* final_state) {
  TORCH_CHECK(chunk >= 1, "ssdChunked: chunk must be at least 1");
  const int64_t B = in.x.size(0), H = in.x.size(1), T = in.x.size(2), P = in.x.size(3),
                N = in.Bm.size(-1);
  const int64_t Q = std::max<int64_t>(1, std::min(chunk, T)), n = (T + Q - 1) / Q;
  auto u = in.x * in.dt.unsqueeze(-1);  // (B, H, T, P): Δ x
  auto dA = logDecays(in);              // (B, H, T)
  auto Bm = in.Bm, Cm = in.Cm;          // (B, T, N)
  if (n * Q > T) {  // padded steps: Δ = 0 (a = 1) and x = B = 0, so they change no state
    const int64_t pad = n * Q - T;
    u = torch::constant_pad_nd(u, {0, 0, 0, pad});
    dA = torch::constant_pad_nd(dA, {0, pad});
    Bm = torch::constant_pad_nd(Bm, {0, 0, 0, pad});
    Cm = torch::constant_pad_nd(Cm, {0, 0, 0, pad});
  }
  auto uc = u.reshape({B, H, n, Q, P});   // (B, H, n, Q, P)
  auto dAc = dA.reshape({B, H, n, Q});    // (B, H, n, Q)
  auto Bc = Bm.reshape({B, 1, n, Q, N});  // (B, 1, n, Q, N)
  auto Cc = Cm.reshape({B, 1, n, Q, N});  // (B, 1, n, Q, N)
  auto within = dAc.cumsum(-1);           // (B, H, n, Q): log decay from the block's start
  // Inside each block: the quadratic form.
  // L_ij = exp(cs_i − cs_j) of the block's own cumulative sums: Q terms at most, so the
  // difference keeps its digits, at one subtraction where segmentSum sums Q × Q entries.
  auto above = torch::ones({Q, Q}, dAc.options().dtype(torch::kBool)).triu(1);
  auto Lc = torch::exp((within.unsqueeze(-1) - within.unsqueeze(-2))
                           .masked_fill(above, -std::numeric_limits<double>::infinity()));
  auto CB = torch::matmul(Cc, Bc.transpose(-1, -2));  // (B, 1, n, Q, Q)
  auto y = torch::matmul(Lc * CB, uc);                // (B, H, n, Q, P)
  if (n == 1 && !final_state) return y.reshape({B, H, Q, P}).narrow(2, 0, T);
  // Each block's own contribution to the state at its end.
  auto to_end = torch::exp(within.narrow(-1, Q - 1, 1) - within);               // (B, H, n, Q)
  auto own = torch::matmul((uc * to_end.unsqueeze(-1)).transpose(-1, -2), Bc);  // (B,H,n,P,N)
  // The states entering blocks 0..n (n: after the last): block c's state decays through blocks
  // c+1..z−1 on its way to block z.
  auto totals = torch::constant_pad_nd(within.select(-1, Q - 1), {1, 0});      // (B, H, n + 1)
  auto across = torch::exp(segmentSum(totals));                                // (B, H, n+1, n+1)
  auto starts = torch::cat({torch::zeros_like(own.narrow(2, 0, 1)), own}, 2);  // (B,H,n+1,P,N)
  auto entering = torch::matmul(across, starts.reshape({B, H, n + 1, P * N}))
                      .reshape({B, H, n + 1, P, N});      // (B, H, n + 1, P, N)
  if (final_state) *final_state = entering.select(2, n);  // (B, H, P, N)
  // C_i·(state entering i's block), decayed from the block's start to i.
  auto carried = torch::matmul(Cc, entering.narrow(2, 0, n).transpose(-1, -2));  // (B,H,n,Q,P)
  y = y + carried * torch::exp(within).unsqueeze(-1);                            // (B,H,n,Q,P)
  return y.reshape({B, H, n * Q, P}).narrow(2, 0, T);                            // (B,H,T,P)
}

// h_t = a_t h_{t−1} + Δ_t x_t B_tᵀ, y_t = h_t C_t
torch::Tensor ssdRecurrent(const SsdInputs& in, torch::Tensor& state) {
  const int64_t B = in.x.size(0), H = in.x.size(1), T = in.x.size(2), P = in.x.size(3),
                N = in.Bm.size(-1);
  auto a = torch::exp(logDecays(in));  // (B, H, T)
  if (!state.defined()) state = torch::zeros({B, H, P, N}, in.x.options());
  std::vector<torch::Tensor> ys;
  for (int64_t t = 0; t < T; ++t) {
    auto u = in.x.select(2, t) * in.dt.select(2, t).unsqueeze(-1);  // (B, H, P): Δ_t x_t
    state = state * a.select(2, t).view({B, H, 1, 1}) +
            u.unsqueeze(-1) * in.Bm.select(1, t).view({B, 1, 1, N});            // (B,H,P,N)
    ys.push_back(torch::matmul(state, in.Cm.select(1, t).view({B, 1, N, 1})));  // (B,H,P,1)
  }
  return torch::cat(ys, -1).transpose(-1, -2);  // (B, H, T, P)
}

RmsNormImpl::RmsNormImpl(int64_t width) {
  weight = register_parameter("weight", torch::ones({width}));
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + kMamba2NormEps) * weight;
}

Mamba2LayerImpl::Mamba2LayerImpl(int64_t d_model, int64_t heads)
    : d_model_(d_model),
      heads_(heads),
      inner_(kMamba2Expand * d_model),
      head_dim_(kMamba2Expand * d_model / heads) {
  if (heads < 1 || inner_ % heads != 0) {
    throw std::invalid_argument("Mamba-2: the inner width " + std::to_string(inner_) +
                                " is not divisible by heads = " + std::to_string(heads));
  }
  const int64_t E = inner_, N = kMamba2StateSize, H = heads, Cv = E + 2 * N;
  norm_ = register_module("norm", RmsNorm(d_model));
  in_proj_ = register_module(
      "in_proj",
      torch::nn::Linear(torch::nn::LinearOptions(d_model, 2 * E + 2 * N + H).bias(false)));
  // Depthwise (one kernel per channel); causal by left-padding K − 1 steps in project().
  conv1d_ = register_module(
      "conv1d", torch::nn::Conv1d(torch::nn::Conv1dOptions(Cv, Cv, kMamba2ConvWidth).groups(Cv)));
  torch::NoGradGuard no_grad;
  // Δ = softplus(dt_bias) log-uniform in [dt_min, dt_max]: dt_bias = Δ + log(1 − e^(−Δ)).
  auto dt = torch::exp(torch::rand({H}) * (std::log(kMamba2DtMax) - std::log(kMamba2DtMin)) +
                       std::log(kMamba2DtMin));
  dt_bias = register_parameter("dt_bias", dt + torch::log(-torch::expm1(-dt)));
  A_log =
      register_parameter("A_log", torch::log(torch::empty({H}).uniform_(kMamba2AMin, kMamba2AMax)));
  D = register_parameter("D", torch::ones({H}));
  out_norm_ = register_module("out_norm", RmsNorm(E));
  out_proj_ = register_module("out_proj",
                              torch::nn::Linear(torch::nn::LinearOptions(E, d_model).bias(false)));
}

torch::Tensor Mamba2LayerImpl::decays(const SsdInputs& in) { return torch::exp(logDecays(in)); }

std::pair<SsdInputs, torch::Tensor> Mamba2LayerImpl::project(const torch::Tensor& u,
                                                             torch::Tensor* conv) {
  const int64_t B = u.size(0), T = u.size(1), E = inner_, N = kMamba2StateSize, H = heads_,
                K = kMamba2ConvWidth;
  auto parts = in_proj_->forward(u).split_with_sizes({E, E + 2 * N, H}, -1);
  auto z = parts[0];                    // (B, T, E)
  auto xbc = parts[1].transpose(1, 2);  // (B, Cv, T)
  // The conv reads the K − 1 inputs before the first: zeros (forward) or the state's (step).
  auto before = conv && conv->defined() ? *conv : torch::zeros({B, E + 2 * N, K - 1}, u.options());
  auto window = torch::cat({before, xbc}, -1);                  // (B, Cv, K − 1 + T)
  if (conv) *conv = window.narrow(-1, T, K - 1);                // the last K − 1 inputs
  xbc = torch::silu(conv1d_->forward(window)).transpose(1, 2);  // (B, T, Cv)
  auto dt = torch::softplus(parts[2] + dt_bias);                // (B, T, H)
  SsdInputs in;
  in.x = xbc.narrow(-1, 0, E).reshape({B, T, H, head_dim_}).permute({0, 2, 1, 3});  // (B,H,T,P)
  in.Bm = xbc.narrow(-1, E, N);                                                     // (B, T, N)
  in.Cm = xbc.narrow(-1, E + N, N);                                                 // (B, T, N)
  in.dt = dt.transpose(1, 2);                                                       // (B, H, T)
  in.A = -torch::exp(A_log);                                                        // (H)
  return {in, z};
}

// out_proj(RMSNorm((y + D x) ⊙ SiLU(z)))
torch::Tensor Mamba2LayerImpl::finish(const torch::Tensor& y, const SsdInputs& in,
                                      const torch::Tensor& z) {
  const int64_t B = y.size(0), T = y.size(2);
  auto skip = y + D.view({1, heads_, 1, 1}) * in.x;                        // (B, H, T, P)
  auto merged = skip.permute({0, 2, 1, 3}).reshape({B, T, inner_});        // (B, T, E)
  return out_proj_->forward(out_norm_->forward(merged * torch::silu(z)));  // (B, T, D)
}

// h + Mixer(RMSNorm(h)), the SSD scan chunked (training) or as M·x (inspection)
torch::Tensor Mamba2LayerImpl::forward(const torch::Tensor& h, const LayerObserver& observe) {
  auto [in, z] = project(norm_->forward(h), nullptr);
  torch::Tensor y;
  if (observe || !chunked_) {
    auto M = ssdMatrix(in);      // (B, H, T, T)
    y = torch::matmul(M, in.x);  // (B, H, T, P)
    observe.attention(M);
    observe.decay(decays(in));  // (B, H, T)
  } else {
    y = ssdChunked(in);  // (B, H, T, P)
  }
  return h + finish(y, in, z);  // (B, T, D)
}

torch::Tensor Mamba2LayerImpl::step(const torch::Tensor& h_t, Mamba2LayerState& state) {
  auto [in, z] = project(norm_->forward(h_t), &state.conv);
  auto y = ssdRecurrent(in, state.ssm);  // (B, H, T, P)
  return h_t + finish(y, in, z);         // (B, T, D)
}

Mamba2ModelImpl::Mamba2ModelImpl(const ModelOptions& options, const ModelIO& io)
    : SequenceModelImpl(options, io) {
  registerIoLayers(options_.d_model);
  for (int64_t l = 0; l < options_.layers; ++l) {
    layers_.push_back(register_module("layer" + std::to_string(l),
                                      Mamba2Layer(options_.d_model, options_.heads)));
  }
  norm_f_ = register_module("norm_f", RmsNorm(options_.d_model));
}

torch::Tensor Mamba2ModelImpl::forward(const torch::Tensor& x, InspectionRecord* record) {
  auto h = embed(x);  // (B, T, D)
  const InspectionObserver observe(record, options_.model, layers_.size());
  for (size_t l = 0; l < layers_.size(); ++l) h = layers_[l]->forward(h, observe.layer(l));
  return head(norm_f_->forward(h), x);  // (B, T, O) | (B, O)
}

torch::Tensor Mamba2ModelImpl::step(const torch::Tensor& x_t, Mamba2State& state) {
  if (io_.pooled || options_.skip_lags > 0) {
    throw std::logic_error("Mamba-2 step() needs per-position outputs without a skip path");
  }
  if (state.layers.size() != layers_.size())
    state.layers.assign(layers_.size(), Mamba2LayerState{});
  auto h = embed(x_t);  // (B, T, D)
  for (size_t l = 0; l < layers_.size(); ++l) h = layers_[l]->step(h, state.layers[l]);
  state.position += h.size(1);
  return output_->forward(norm_f_->forward(h));  // (B, T, O)
}

}  // namespace rsalab
