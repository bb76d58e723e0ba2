// SPDX-License-Identifier: GPL-3.0-or-later
// The model list: one row per model, read by the factory, the CLI's help and `models` command,
// the GUI's check boxes, the sweep dialog, the legend colours, the FLOP counts and the bench.
// Adding a model = one row here + one model file (and its case in the factory's family switch
// when it opens a new family). Plain C++: no LibTorch, no Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/io/enums.h"
#include "engine/core/registry/task_registry.h"

namespace rsalab {

// Linear: linear forecasters of the lookback window (DLinear, NLinear), series tasks only.
// StateSpace: selective state-space stacks (Mamba-2), causal whatever `causal` says.
enum class ModelFamily { Recurrent, Attention, FixedPoint, Seq2Seq, Linear, StateSpace };
// recurrent | attention | fixed-point | seq2seq | linear | state-space
const char* modelFamilyName(ModelFamily family);

struct ModelInfo {
  const char* name;      // as given to --model, saved in configs and bundles
  const char* title;     // human name (GUI check boxes, legends, `rsalab-cli models`)
  const char* equation;  // the seed paper's equation, one line
  ModelFamily family;
  bool supports_causal;
  bool supports_bidirectional;
  bool has_rems;   // RSA-style recurrence encoding matrices in its attention
  bool has_gates;  // gates the inspector shows (LSTM/GRU gates, StarSaber's α)
  // Attention family: the attention inside the transformer block; nullopt for the other families.
  std::optional<AttentionKind> attention;
  // Recurrent family: the cell the model stacks (engine/models/recurrent_model.h builds it);
  // nullopt for the other families.
  std::optional<RecurrentCell> cell;
  // Recurrent family: gate blocks per cell (FLOP count): rnn 1, gru 3, lstm 4.
  int gate_blocks;
  // In the GUI's default launch and the bench's default comparison.
  bool default_selected;
  // Forecasts a real-valued series only: real inputs and per-position outputs of H steps × the
  // input's C columns (a regression task); token inputs, pooled outputs and seq2seq are refused.
  bool series_only = false;
  // Attention family: the sinusoidal positional encoding is added to the input projection. false
  // where the attention carries position itself (retention's decay and rotation).
  bool positional_encoding = true;
};

// Every model, in display order (colours are assigned by this order).
const std::vector<ModelInfo>& modelRegistry();
// nullptr when `name` is unknown.
const ModelInfo* findModel(const std::string& name);
// Throws std::invalid_argument naming the unknown model and the known ones.
const ModelInfo& modelInfo(const std::string& name);
// Whether `model` can train on a task of `objective`: the seq2seq family on seq2seq tasks only,
// series-only models on regression tasks only, every other model on every other task.
bool modelFitsObjective(const ModelInfo& model, Objective objective);
// Every name, in registry order; `sequence_only` leaves out the seq2seq family.
std::vector<std::string> modelNames(bool sequence_only = false);
// Names of the default launch (GUI) in registry order.
std::vector<std::string> defaultModelNames();
// Index of `name` in the registry (stable colour index); -1 when unknown.
int modelIndex(const std::string& name);
// "rnn, lstm, …" for messages and help texts.
std::string modelNameList(bool sequence_only = false);
// The recurrent cell of model `name` (ModelInfo::cell); nullopt for an unknown or non-recurrent
// model.
std::optional<RecurrentCell> recurrentCell(const std::string& name);
// The model of a config that names none (ModelOptions' default).
const char* defaultModelName();
// The attention kinds of the attention family (ModelInfo::attention), in registry order.
std::vector<AttentionKind> attentionKinds();
// "softmax, rsa, linear, retention": the names of attentionKinds() for messages and help texts.
std::string attentionKindList();
// What the model's T × T matrix in the Attention view is (HeadInspection::attention: the weights
// that multiply V, explicit or implied) and how it is normalised, one line for the view's caption;
// nullptr for a model without one (the recurrent and linear families).
const char* implicitMatrixRule(const std::string& model);
// Whether the model's inspection records learned or fixed decays (memory_horizon.h): REM heads,
// and the decaying token mixers (retention, ALiBi, FoX, GLA, mLSTM, Mamba-2's state space).
bool recordsDecays(const ModelInfo& model);
// The kinds the encoder–decoder's encoder_attention takes: those of attentionKinds() whose row
// supports the bidirectional form (its encoder is bidirectional), so not a causal-only kind.
std::vector<AttentionKind> encoderAttentionKinds();
// "softmax, rsa, linear": the names of encoderAttentionKinds().
std::string encoderAttentionKindList();
// The attention-family row whose attention is `kind` (its has_rems says whether that attention
// carries REMs); nullptr when no row has that kind.
const ModelInfo* findAttention(AttentionKind kind);

}  // namespace rsalab
