// SPDX-License-Identifier: GPL-3.0-or-later
// Plain-data inspection records (no LibTorch types): what a model computed for one chosen sample,
// copied to the CPU so the GUI, the CLI and tests can read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/io/enums.h"

namespace rsalab {

// Row-major float matrix.
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;
  float at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
  bool empty() const { return values.empty(); }
};

struct HeadInspection {
  Matrix attention;     // weights applied to V (for RSA: the gated mix), Tq × Tk
  Matrix softmax_part;  // RSA only: softmax(QKᵀ/√Dh + mask)
  Matrix rem;           // RSA only: the REM P_h as used
  bool has_rem = false;
  RemKind rem_kind = RemKind::Regular;  // REM heads (has_rem); written as remKindName()
  int64_t dilation = 1;
  double lambda = 0;  // regular REM: λ = tanh(η)
  double gamma = 0;   // cyclical REM: γ = σ(ν)
  double theta = 0;   // cyclical REM: θ (radians); period 2π/θ
  double gate = 0;    // σ(µ)
  // A decaying head without REMs (RetNet's γ_h, Mamba-2's a_t = exp(Δ_t·A_h)): the factor its
  // memory is multiplied by per step. One value for a decay that does not depend on the token
  // (RetNet), or one per query position (Mamba-2); empty for heads without one. The decay view
  // draws it as a memory horizon (half-life ln ½ / ln a, and 1/(1 − a)). RSA's heads carry theirs
  // as lambda / gamma above.
  std::vector<float> decay;
};

struct LayerInspection {
  std::vector<HeadInspection> heads;    // self-attention per head (may be empty)
  std::vector<Matrix> cross_attention;  // encoder–decoder: per head, Ttarget × Tsource
  bool has_alpha = false;               // StarSaber
  double alpha = 0;                     // StarSaber α_l
  double residual = 0;                  // StarSaber ‖h^{l+1} − h^l‖ / ‖h^l‖
  double update = 0;                    // StarSaber ‖h^{l+1} − h^l‖
  // StarSaber: ‖h^l − tanh(A^l(h^l) + V^l x)‖ / ‖h^l‖, the relative residual of the fixed-point
  // equation h = tanh(A(h) + V x) at the layer's input, with the layer's own weights; α does not
  // enter (the fixed-point claim's quantity). 0: not recorded (records written before 2026-11-27).
  double equation_residual = 0;
  // StarSaber's last layer: how far its output h^L lies from the fixed point h* of its own map
  // F(h) = tanh(A^L(h) + V^L x) (the last layer's weights, x the stack's input), h* found by
  // iterating F from h^L: at most kFixedPointIterations steps, converged once a step changes h by
  // ≤ kFixedPointTolerance relative to ‖h‖. fixed_point_distance = ‖h^L − h*‖ / ‖h*‖ (the last
  // iterate when not converged). fixed_point_iterations 0: not recorded (other layers, other
  // models, records written before 2026-11-29).
  int64_t fixed_point_iterations = 0;
  bool fixed_point_converged = false;
  double fixed_point_distance = 0;
};

// The iteration of F above: its budget K and tolerance ε.
constexpr int64_t kFixedPointIterations = 500;
constexpr double kFixedPointTolerance = 1e-5;

// LSTM i, f, g, o or GRU r, z, n activations of one layer: T × units.
struct GateTrace {
  int64_t layer = 0;
  std::string gate;
  Matrix values;
};

struct InspectionRecord {
  int64_t sample = 0;  // batch index recorded
  std::string model;
  std::vector<LayerInspection> layers;          // encoder layers for the encoder–decoder
  std::vector<LayerInspection> decoder_layers;  // encoder–decoder only
  std::vector<GateTrace> gates;
};

}  // namespace rsalab
