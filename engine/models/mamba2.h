// SPDX-License-Identifier: GPL-3.0-or-later
// Mamba-2: a stack of selective state-space mixers computed by state-space duality (SSD).
// Paper: Dao & Gu, "Transformers are SSMs: Generalized Models and Efficient Algorithms Through
// Structured State Space Duality", arXiv 2405.21060. Written from the paper, in our structure.
//
// Block (§7.1, Figure 6 "Mamba-2 block"): h ← h + Mixer(RMSNorm(h)); a final RMSNorm; no FFN and
// no positional encoding (the conv and the recurrence carry position). The mixer of width D:
//   [z, x, B, C, dt] = in_proj(u)                  z, x: E = 2D; B, C: N = 16 (one group shared
//                                                  by the H heads); dt: H
//   [x, B, C] = SiLU(causal depthwise conv1d_4([x, B, C]))
//   Δ_t = softplus(dt_t + dt_bias)   A_h = −exp(A_log_h)   a_t = exp(Δ_t·A_h) ∈ (0, 1)   (§3, SSM)
//   per head h (x_t of width P = E/H):
//     recurrent (eq. 1, the selective SSM of §2, with the scalar-times-identity A_t = a_t·I of
//     §3.3, the SSD layer's state matrix):
//       h_t = a_t·h_{t−1} + Δ_t·x_t B_tᵀ  (P × N),   y_t = h_t C_t + D_h·x_t
//     dual / parallel (eq. 3, y = M x with M_ij = C_iᵀ A_i…A_{j+1} B_j, §3.2; with scalar A_t
//     the mask is the 1-semiseparable L = 1SS(a) of §3.3, and M = L ∘ C Bᵀ is the structured
//     masked attention form of §4–5):
//       y = (L ∘ C Bᵀ)·(Δ x) + D_h·x,   L_ij = a_{i}·…·a_{j+1} for i ≥ j, 0 above the diagonal
//   (Equation numbers as in arXiv v1.)
//   out = out_proj(RMSNorm(y ⊙ SiLU(z)))           (the gated norm of §7.2 "extra normalization")
// L is a data-dependent regular REM (the RSA paper's P_ij = λ^(i−j), with a step-varying λ): with
// a_t held at γ, L_ij = γ^(i−j), RetNet's decay mask.
//
// Training runs the chunked SSD algorithm (§6): blocks of kMamba2Chunk positions use the
// quadratic form inside, and a state of size P × N passes between blocks. The full T × T form
// (inspection, reference) and the recurrent form (generation, reference) sit beside it; the tests
// hold all three to a literal loop.
//
// Shapes: B batch, T length, D width, E = 2D inner width, H heads, P = E/H head width, N = 16
// state size, K = 4 conv width, Cv = E + 2N conv channels.
//
// A departure: N = 16 is Mamba-1's state size (Gu & Dao, arXiv 2312.00752); the Mamba-2 paper's
// point is that SSD affords larger states, and its experiments use N = 64 to 128. Choosing N is
// not yet offered: kMamba2StateSize is fixed here, and an option comes with the family's speed
// work.
#pragma once

#include <vector>

#include "engine/models/inspection_observer.h"
#include "engine/models/sequence_model.h"

namespace rsalab {

constexpr int64_t kMamba2Expand = 2;      // E = 2D (the paper's expansion factor)
constexpr int64_t kMamba2StateSize = 16;  // N
constexpr int64_t kMamba2ConvWidth = 4;   // the depthwise causal conv's kernel
constexpr int64_t kMamba2Chunk = 64;      // the chunked algorithm's block length Q
constexpr double kMamba2NormEps = 1e-5;   // RMSNorm's ε
// Δ starts log-uniform in [kMamba2DtMin, kMamba2DtMax] (the paper's reference initialisation):
// slow and fast heads from the first step; A_h = −exp(A_log_h) starts uniform in [1, 16].
constexpr double kMamba2DtMin = 1e-3, kMamba2DtMax = 0.1;
constexpr double kMamba2AMin = 1.0, kMamba2AMax = 16.0;

// The SSD scan's inputs for one layer, heads split: x (B, H, T, P), dt = Δ (B, H, T),
// A (H) negative, Bm and Cm (B, T, N) shared by the heads. Δ scales the inputs: u_j = Δ_j·x_j.
struct SsdInputs {
  torch::Tensor x, dt, A, Bm, Cm;
};

// Stable segment sums of log-decays: s (..., T) -> (..., T, T) with [i, j] = s_{j+1} + … + s_i
// = cumsum(s)_i − cumsum(s)_j for i ≥ j (0 on the diagonal) and −inf above it, summed directly
// so that no difference of two long cumulative sums loses digits. exp() of it is L.
torch::Tensor segmentSum(const torch::Tensor& s);
// M = L ∘ (C Bᵀ) with Δ_j folded into column j: (B, H, T, T), the implied attention of the heads.
torch::Tensor ssdMatrix(const SsdInputs& in);
// The three forms of y = Σ_{j≤i} L_ij (C_i·B_j) Δ_j x_j (without the D skip): (B, H, T, P).
torch::Tensor ssdQuadratic(const SsdInputs& in);  // M·x, the full T × T form
// Blocks of `chunk` positions; `final_state`, when given, gets h_T (B, H, P, N).
torch::Tensor ssdChunked(const SsdInputs& in, int64_t chunk = kMamba2Chunk,
                         torch::Tensor* final_state = nullptr);
// h_t = a_t h_{t−1} + Δ_t x_t B_tᵀ, y_t = h_t C_t, from `state` (B, H, P, N; undefined: zeros),
// which ends as h_T.
torch::Tensor ssdRecurrent(const SsdInputs& in, torch::Tensor& state);

// x·rsqrt(mean(x²) + ε)·weight over the last dimension.
class RmsNormImpl : public torch::nn::Module {
 public:
  explicit RmsNormImpl(int64_t width);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight;  // (width), init 1
};
TORCH_MODULE(RmsNorm);

// Generation state of one layer: the conv's last K − 1 inputs and the SSM state.
struct Mamba2LayerState {
  torch::Tensor conv;  // (B, Cv, K − 1), oldest first; zeros before the first token
  torch::Tensor ssm;   // (B, H, P, N) h_t
};

struct Mamba2State {
  std::vector<Mamba2LayerState> layers;
  int64_t position = 0;
};

// One residual block: h + Mixer(RMSNorm(h)).
class Mamba2LayerImpl : public torch::nn::Module {
 public:
  Mamba2LayerImpl(int64_t d_model, int64_t heads);
  // (B, T, D) -> (B, T, D). With an observer: the full T × T form, reporting M (B, H, T, T) and
  // a_t (B, H, T).
  torch::Tensor forward(const torch::Tensor& h, const LayerObserver& observe = {});
  torch::Tensor step(const torch::Tensor& h_t, Mamba2LayerState& state);  // (B, 1, D)
  // Training path: chunked SSD (true) or the full T × T form (false); the values are the same.
  void setChunked(bool on) { chunked_ = on; }

  // The layer's SSD inputs and gate for a normed input u (B, T, D): (SsdInputs, z (B, T, E)),
  // with the conv run from zeros (forward) or from `conv` (step, which then updates it).
  std::pair<SsdInputs, torch::Tensor> project(const torch::Tensor& u, torch::Tensor* conv);
  // a_t = exp(Δ_t·A_h): (B, H, T).
  static torch::Tensor decays(const SsdInputs& in);

  torch::Tensor dt_bias, A_log, D;  // (H) each

 private:
  // y (B, H, T, P) of the scan, plus the skip, gated and projected: -> (B, T, D).
  torch::Tensor finish(const torch::Tensor& y, const SsdInputs& in, const torch::Tensor& z);

  int64_t d_model_, heads_, inner_, head_dim_;
  bool chunked_ = true;
  RmsNorm norm_{nullptr}, out_norm_{nullptr};
  torch::nn::Linear in_proj_{nullptr}, out_proj_{nullptr};
  torch::nn::Conv1d conv1d_{nullptr};
};
TORCH_MODULE(Mamba2Layer);

class Mamba2ModelImpl : public SequenceModelImpl {
 public:
  Mamba2ModelImpl(const ModelOptions& options, const ModelIO& io);
  // head(RMSNorm_f(h_L)), h_{l+1} = h_l + Mixer_l(RMSNorm_l(h_l)), h_0 = embed(x)
  torch::Tensor forward(const torch::Tensor& x, InspectionRecord* record = nullptr) override;
  bool causal() const override { return true; }  // whatever options.causal says, as the RNNs
  // One position of generation (per-position heads): x_t (B, 1, F) or (B, 1) -> (B, 1, O), equal
  // to forward() on the whole prefix, in O(1) time and memory per token.
  torch::Tensor step(const torch::Tensor& x_t, Mamba2State& state);
  const std::vector<Mamba2Layer>& layers() const { return layers_; }
  void setChunked(bool on) {
    for (auto& layer : layers_) layer->setChunked(on);
  }

 private:
  std::vector<Mamba2Layer> layers_;
  RmsNorm norm_f_{nullptr};
};

}  // namespace rsalab
