// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/model_registry.h"

#include <stdexcept>
#include <utility>

#include "engine/core/io/enums.h"
#include "engine/core/io/text.h"

namespace rsalab {

namespace {
const EnumName<ModelFamily> kModelFamilies[] = {
    {ModelFamily::Recurrent, "recurrent"},    {ModelFamily::Attention, "attention"},
    {ModelFamily::FixedPoint, "fixed-point"}, {ModelFamily::Seq2Seq, "seq2seq"},
    {ModelFamily::Linear, "linear"},          {ModelFamily::StateSpace, "state-space"}};
}  // namespace

const char* modelFamilyName(ModelFamily family) { return nameOf(kModelFamilies, family); }

const std::vector<ModelInfo>& modelRegistry() {
  using F = ModelFamily;
  using A = AttentionKind;
  using C = RecurrentCell;
  // clang-format off
  static const std::vector<ModelInfo> rows = {
    // name, title, equation, family, causal, bidirectional, REMs, gates, attention, recurrent
    // cell, gate blocks, default launch[, series only[, positional encoding]]
    {"rnn", "RNN (tanh)", "h_t = tanh(W_ih x_t + W_hh h_{t-1} + b)",
     F::Recurrent, true, false, false, false, std::nullopt, C::Rnn, 1, true},
    {"lstm", "LSTM", "c_t = f*c_{t-1} + i*g, h_t = o*tanh(c_t)",
     F::Recurrent, true, false, false, true, std::nullopt, C::Lstm, 4, false},
    {"gru", "GRU", "h_t = (1-z)*n + z*h_{t-1}",
     F::Recurrent, true, false, false, true, std::nullopt, C::Gru, 3, false},
    {"transformer", "Softmax Transformer",
     "softmax(QK^T/sqrt(Dh) + mask) V, pre-LN, sinusoidal PE",
     F::Attention, true, true, false, false, A::Softmax, std::nullopt, 0, true},
    {"rsa", "RSA (self-attention with recurrence)",
     "((1-s(mu)) softmax(QK^T/sqrt(Dh)) + s(mu) P) V",
     F::Attention, true, true, true, true, A::Rsa, std::nullopt, 0, true},
    {"linear", "Linear attention (elu+1)", "phi(Q_i)^T S_i / (phi(Q_i)^T z_i + eps)",
     F::Attention, true, true, false, false, A::Linear, std::nullopt, 0, false},
    // Sun et al., "Retentive Network", arXiv 2307.08621 (engine/models/retention.h): causal
    // only, and no positional encoding: the decay γ^(n-m) (and the rotation, when on) carry it.
    {"retnet", "RetNet (multi-scale retention)",
     "W_O(swish(X W_G) * GroupNorm((QK^T/sqrt(Dh) * D) V)), D_nm = gamma^(n-m)",
     F::Attention, true, false, false, false, A::Retention, std::nullopt, 0, false, false, false},
    // The rest of the recurrence-in-attention family (docs/FAMILY.md), each the token mixer of
    // the same pre-LN block, causal only and without positional encoding: the decay carries it.
    // Press et al., "Train Short, Test Long", arXiv 2108.12409 (engine/models/alibi.h).
    {"alibi", "ALiBi (linear distance bias)", "softmax(QK^T/sqrt(Dh) - m_h (i-j)) V, m_h = 2^(-8h/H)",
     F::Attention, true, false, false, false, A::Alibi, std::nullopt, 0, false, false, false},
    // Lin et al., "Forgetting Transformer", arXiv 2503.02130 (engine/models/fox.h).
    {"fox", "FoX (Forgetting Transformer)",
     "softmax(QK^T/sqrt(Dh) + log F) V, F_ij = f_{j+1}...f_i, f_t = sigmoid(w.x_t + b)",
     F::Attention, true, false, false, false, A::Fox, std::nullopt, 0, false, false, false},
    // Yang et al., "Gated Linear Attention Transformers", arXiv 2312.06635 (engine/models/gla.h).
    {"gla", "GLA (gated linear attention)",
     "S_t = diag(alpha_t) S_{t-1} + k_t v_t^T, o_t = q_t^T S_t, alpha_t = sigmoid(x W_a)^(1/16)",
     F::Attention, true, false, false, false, A::Gla, std::nullopt, 0, false, false, false},
    // Beck et al., "xLSTM", arXiv 2405.04517, the mLSTM (engine/models/mlstm.h).
    {"mlstm", "mLSTM (xLSTM matrix memory)",
     "C_t = f_t C_{t-1} + i_t v_t k_t^T, n_t = f_t n_{t-1} + i_t k_t, h_t = o_t * C_t q_t / max(|n_t.q_t|, 1)",
     F::Attention, true, false, false, false, A::Mlstm, std::nullopt, 0, false, false, false},
    {"starsaber", "StarSaber (fixed-point attention)", "h^{l+1} = h^l + a_l tanh(A^l + V^l x)",
     F::FixedPoint, true, true, false, true, std::nullopt, std::nullopt, 0, false},
    // Dao & Gu, "Transformers are SSMs" (arXiv 2405.21060): a selective SSM whose T x T form is
    // L o (C B^T), L a data-dependent regular REM: engine/models/mamba2.h.
    {"mamba2", "Mamba-2 (SSD)", "y = (L o C B^T)(dt x) + D x, L_ij = a_{j+1}...a_i, a = exp(dt A)",
     F::StateSpace, true, false, false, false, std::nullopt, std::nullopt, 0, false},
    {"encdec", "Encoder-decoder", "bidirectional encoder; causal decoder + cross-attention",
     F::Seq2Seq, true, false, false, false, std::nullopt, std::nullopt, 0, false},
    // The linear forecasters reported beside forecasting transformers (Zeng et al., "Are
    // Transformers Effective for Time Series Forecasting?", arXiv 2205.13504), on the lookback
    // window x_{t-L+1..t} of each position: engine/models/linear_forecasters.h.
    {"dlinear", "DLinear (trend + remainder maps)", "y = W_t MA25(w) + W_r (w - MA25(w)) + b",
     F::Linear, true, false, false, false, std::nullopt, std::nullopt, 0, false, true},
    {"nlinear", "NLinear (last value subtracted)", "y = W (w - w_L) + b + w_L",
     F::Linear, true, false, false, false, std::nullopt, std::nullopt, 0, false, true},
  };
  // clang-format on
  return rows;
}

const ModelInfo* findModel(const std::string& name) {
  for (const auto& row : modelRegistry()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

const ModelInfo& modelInfo(const std::string& name) {
  if (const auto* row = findModel(name)) return *row;
  throw std::invalid_argument("model '" + name + "' is unknown: use " + modelNameList());
}

bool modelFitsObjective(const ModelInfo& model, Objective objective) {
  if ((model.family == ModelFamily::Seq2Seq) != (objective == Objective::Seq2Seq)) return false;
  return !model.series_only || objective == Objective::Regression;
}

std::vector<std::string> modelNames(bool sequence_only) {
  std::vector<std::string> out;
  for (const auto& row : modelRegistry()) {
    if (sequence_only && row.family == ModelFamily::Seq2Seq) continue;
    out.emplace_back(row.name);
  }
  return out;
}

std::vector<std::string> defaultModelNames() {
  std::vector<std::string> out;
  for (const auto& row : modelRegistry()) {
    if (row.default_selected) out.emplace_back(row.name);
  }
  return out;
}

int modelIndex(const std::string& name) {
  const auto& rows = modelRegistry();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (name == rows[i].name) return static_cast<int>(i);
  }
  return -1;
}

std::string modelNameList(bool sequence_only) { return joined(modelNames(sequence_only)); }

std::optional<RecurrentCell> recurrentCell(const std::string& name) {
  const auto* row = findModel(name);
  return row ? row->cell : std::nullopt;
}

const char* defaultModelName() { return "rsa"; }

std::vector<AttentionKind> attentionKinds() {
  std::vector<AttentionKind> out;
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Attention && row.attention) out.push_back(*row.attention);
  }
  return out;
}

std::string attentionKindList() {
  return joined(attentionKinds(), ", ",
                [](AttentionKind kind) { return std::string(attentionKindName(kind)); });
}

const char* implicitMatrixRule(const std::string& model) {
  static const std::pair<const char*, const char*> rules[] = {
      {"transformer", "softmax(QKᵀ/√Dh + causal mask): each row sums to 1, every weight in [0, 1]"},
      {"rsa",
       "(1−σ(µ))·softmax + σ(µ)·P: the softmax part's rows sum to 1; the REM P is not "
       "normalised and is signed for cos/sin REMs (and for a negative λ)"},
      {"linear",
       "φ(q_i)ᵀφ(k_j) / Σ_j φ(q_i)ᵀφ(k_j), φ = elu+1: never materialised by the model; each row "
       "sums to 1, every weight ≥ 0"},
      {"starsaber",
       "G = softmax(h_nᵀ W h_i/√D), applied through U to i < n and Q to i ≥ n: each row sums to 1"},
      {"encdec", "softmax weights (self- and cross-attention): each row sums to 1"},
      {"retnet",
       "Q̃K̃ᵀ/√d ⊙ D̃ after RetNet's normalisers (D's rows divided by √Σ_m D_nm, then each row by "
       "max(|row sum|, 1)): signed, rows need not sum to 1; GroupNorm follows, so a row's scale "
       "does not matter, only its shape"},
      {"alibi",
       "softmax(QKᵀ/√Dh − m_h·(i−j) + causal mask), m_h = 2^(−8h/H): each row sums to 1, every "
       "weight in [0, 1]; the bias is a regular REM e^(−m_h(i−j)) inside the softmax"},
      {"fox",
       "softmax(QKᵀ/√Dh + log F + causal mask), F_ij = f_{j+1}···f_i: each row sums to 1, every "
       "weight in [0, 1]; F is a data-dependent regular REM inside the softmax"},
      {"gla",
       "W_ij = Σ_c q_ic k_jc/√Dh · Π_{l=j+1..i} α_lc (j ≤ i): the gated linear attention's implied "
       "matrix (o = W V), never materialised in training; signed, not normalised; GroupNorm "
       "follows, so a row's scale does not matter, only its shape"},
      {"mlstm",
       "C̃ / n: QKᵀ/√Dh ⊙ exp(log D − m_i), log D_ij = Σ_{k=j+1..i} log f_k + ĩ_j, each row "
       "divided by max(|row sum|, exp(−m_i)) (the stabilised max(|nᵀq|, 1)): signed, rows need not "
       "sum to 1; GroupNorm and the output gate follow, so a row's scale does not matter, only its "
       "shape"},
      {"mamba2",
       "L ∘ (C Bᵀ) with Δ_j folded in, L_ij = a_{j+1}···a_i: y_i = Σ_j M_ij x_j (plus the skip "
       "D·x_i); signed and not normalised"},
  };
  for (const auto& [name, rule] : rules)
    if (model == name) return rule;
  return nullptr;
}

bool recordsDecays(const ModelInfo& model) {
  if (model.has_rems || model.family == ModelFamily::StateSpace) return true;
  if (!model.attention) return false;
  switch (*model.attention) {
    case AttentionKind::Retention:
    case AttentionKind::Alibi:
    case AttentionKind::Fox:
    case AttentionKind::Gla:
    case AttentionKind::Mlstm:
      return true;
    case AttentionKind::Softmax:
    case AttentionKind::Rsa:
    case AttentionKind::Linear:
      break;
  }
  return false;
}

std::vector<AttentionKind> encoderAttentionKinds() {
  std::vector<AttentionKind> out;
  for (AttentionKind kind : attentionKinds()) {
    if (findAttention(kind)->supports_bidirectional) out.push_back(kind);
  }
  return out;
}

std::string encoderAttentionKindList() {
  return joined(encoderAttentionKinds(), ", ",
                [](AttentionKind kind) { return std::string(attentionKindName(kind)); });
}

const ModelInfo* findAttention(AttentionKind kind) {
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Attention && row.attention == kind) return &row;
  }
  return nullptr;
}

}  // namespace rsalab
