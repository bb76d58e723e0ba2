// SPDX-License-Identifier: GPL-3.0-or-later
// Options of every model, as plain data that is saved as JSON beside each run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/config/option_table.h"
#include "engine/core/io/enums.h"
#include "engine/core/registry/model_registry.h"

namespace rsalab {

// How many attention heads carry each REM type, in this order; heads beyond the sum are plain
// softmax heads (the RSA paper, "Encoding Recurrence into Transformers").
struct RemHeadCounts {
  int64_t regular = 1;
  int64_t cos = 1;
  int64_t sin = 1;
  int64_t dilated_regular = 0;
  int64_t dilated_cos = 0;
  int64_t dilated_sin = 0;
  int64_t total() const {
    return regular + cos + sin + dilated_regular + dilated_cos + dilated_sin;
  }
};

// The one rule for which heads of an H-head RSA layer carry a REM (GUI, CLI, sweeps, bench): one
// regular head, a cos head from H = 2, a sin head from H = 3; heads beyond them stay plain softmax.
RemHeadCounts defaultRemHeads(int64_t heads);

struct RemInit {
  double eta_min = 1.0, eta_max = 2.0;  // |η| ~ U(eta_min, eta_max), random sign
  // 0: η's sign is random (the paper); +1 / −1: λ starts positive / negative. A lone REM head
  // cannot change λ's sign by training: its output is a·λ·x_{t−1} + a·λ²·x_{t−2} + …, and
  // keeping a·λ while λ crosses 0 needs a → ∞ ("Recover a recurrence", docs/TASKS.md).
  int64_t eta_sign = 0;
  double nu_min = 1.0, nu_max = 2.0;  // ν ~ U(nu_min, nu_max)
  double mu = 0.0;                    // gate logit; σ(0) = 0.5
  bool learn_gate = true;             // false: µ stays at its init (e.g. held open, µ = 20)
  // θ of the k-th cyclical head (k = 1..) is π/(k+1) unless theta is given (one per head).
  std::vector<double> theta;
};

struct ModelOptions {
  std::string model = defaultModelName();  // a name of the model registry
  int64_t d_model = 32;                    // width D
  int64_t heads = 4;                       // H; D must be divisible by H
  int64_t layers = 2;                      // L (encoder layers for encdec; stacked cells for RNNs)
  int64_t ff_mult = 4;                     // FFN width = ff_mult·D
  bool causal = true;                      // false: bidirectional attention / REMs
  RemHeadCounts rem;                       // RSA head assignment
  std::vector<int64_t> dilations = {2};    // factors for dilated heads, used in turn
  RemInit rem_init;
  bool starsaber_gated = false;  // highway-gated StarSaber variant
  // The seq2seq family's self-attention: one of encoderAttentionKinds() (softmax | rsa | linear;
  // configs keep the name). A causal-only kind (retention) is refused: the encoder is
  // bidirectional.
  AttentionKind encoder_attention{};  // the first attention card's kind: softmax
  int64_t decoder_layers = 0;         // 0: same as layers
  bool linear_cumulative = true;  // causal linear: running-sum form, chunked (else masked T x T)
  // Attention stacks only: no positional encoding, no LayerNorm and no feed-forward block, so the
  // output is linear in the input given the attention weights. With REM heads held open (µ fixed
  // high) an RSA layer then computes y_t = Σ_h a_h Σ_{s<t} P_h[t, s] x_s + const, and the true REM
  // of a linear-recurrence teacher is identifiable ("Recover a recurrence", docs/TASKS.md). Models
  // without an attention stack ignore it (as recurrent models ignore `causal`).
  bool linear_value_path = false;
  // RetNet (engine/models/retention.h): false keeps the paper's fixed decays γ_h = 1 − 2^(−5−h);
  // true learns them as γ_h = σ(ν_h), ν_h starting at that value.
  bool retnet_learnable_decay = false;
  // RetNet: q_n and k_m turned by nθ and mθ (the paper's e^{inθ}, RoPE's angles), so that scores
  // also carry a relative rotation. Off by default: the decay alone carries position.
  bool retnet_rotation = false;
  // ALiBi (engine/models/alibi.h) with H not a power of two: false (the default) takes the
  // paper's text, m_h = 2^(−8h/H); true the authors' code (get_slopes): the slopes of the largest
  // power of two P ≤ H, then every other slope of 2P. The two agree when H is a power of two.
  bool alibi_code_slopes = false;
  // > 0: a linear skip path beside the model (DLinear's linear map, channel-independent): output
  // column c of step h at position t gets + Σ_k W[h, k] x_{t−K+1+k, c} + b_h over the K latest
  // inputs (earlier than the window's first: its first value). Causal; W starts at zero, so the
  // model starts as without it. Real inputs with per-position outputs of H·C values only.
  int64_t skip_lags = 0;
  // The linear family's (dlinear, nlinear) lookback window L: output t maps x_{t−L+1..t}
  // (earlier than the series' first value: its first value). 24 is two years of monthly data,
  // the real-series protocol's; the paper's long-horizon tables use 336. The linear family is
  // itself a linear map of the window: it has no skip path and ignores skip_lags, as every other
  // model ignores lookback.
  int64_t lookback = 24;
  // The forecaster family (Informer, engine/models/informer.h): ProbSparse attention's factor c
  // (u = c·⌈ln L⌉ active queries, as many sampled keys) and the decoder's start token length
  // (label_len: the window's last known steps before the H placeholders).
  int64_t informer_factor = 5;
  int64_t label_length = 48;
};

// What goes in and comes out: real-valued features or tokens; per position or pooled.
struct ModelIO {
  int64_t input_dim = 1;   // features per position (real input)
  int64_t vocab = 0;       // > 0: inputs are token ids in [0, vocab)
  int64_t output_dim = 1;  // regression targets or classes per output
  bool pooled = false;     // true: mean over positions -> one output per sequence
  int64_t pad_token = -1;  // >= 0: token inputs equal to it are padding, left out of the mean
  // A series task with norm revin: the model holds RevIN's per-column affine (input_dim scales
  // and shifts, engine/training/series_norm.h) among its parameters.
  bool revin = false;
};

// The rows of ModelOptions' fields (engine/core/config/option_table.h), and of its "rem" and
// "rem_init" sections (the JSON's model.rem and model.rem_init objects): key, label, the one range
// validate, the run setup's spin boxes and the CLI's flags use, flag.
const std::vector<OptionInfo<ModelOptions>>& modelOptionTable();
const std::vector<OptionInfo<RemHeadCounts>>& remHeadTable();
const std::vector<OptionInfo<RemInit>>& remInitTable();
// nullptr when `name` is no row's of modelOptionTable().
const OptionInfo<ModelOptions>* findModelOption(const std::string& name);

// options.encoder_attention; throws std::invalid_argument (as validate does) when it is no kind
// of encoderAttentionKinds().
AttentionKind encoderAttention(const ModelOptions& options);
// Throws std::invalid_argument naming the field and its allowed range.
void validate(const ModelOptions& options);
void validate(const ModelIO& io);

}  // namespace rsalab
