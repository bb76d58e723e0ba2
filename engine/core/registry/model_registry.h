// SPDX-License-Identifier: GPL-3.0-or-later
// The model list: one card per model (model_card.h, the cards in model_cards.cpp), read by the
// factory, the CLI's help and `models` command, the GUI's check boxes, the sweep dialog, the
// legend colours, the FLOP counts, the bench and the peer scripts (`rsalab-cli models --json`).
// Plain C++: no LibTorch, no Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/io/enums.h"
#include "engine/core/registry/model_card.h"
#include "engine/core/registry/task_registry.h"

namespace rsalab {

// Every card, in display order (colours are assigned by this order): model_cards.cpp.
const std::vector<ModelCard>& modelRegistry();
// The card of `name`, or of a named variant "name[…]" (model_variant.h); nullptr when `name` is
// unknown.
const ModelCard* findModel(const std::string& name);
// Throws std::invalid_argument naming the unknown model and the known ones.
const ModelCard& modelInfo(const std::string& name);
// Whether `model` can train on a task of `objective`: the seq2seq family on seq2seq tasks only,
// series-only models on regression tasks only, every other model on every other task.
bool modelFitsObjective(const ModelCard& model, Objective objective);
// Every name, in registry order; `sequence_only` keeps the models with per-position outputs (the
// default sweep, the demo, the report, the bench): it leaves out the seq2seq family and the
// forecaster family (LongHorizonOnly: the paper table's --informer runs them).
std::vector<std::string> modelNames(bool sequence_only = false);
// Names of the default launch (GUI) in registry order.
std::vector<std::string> defaultModelNames();
// Index of `name` in the registry (stable colour index); -1 when unknown or a variant (which gets
// a colour of its own).
int modelIndex(const std::string& name);
// "rnn, lstm, …" for messages and help texts.
std::string modelNameList(bool sequence_only = false);
// The recurrent cell of model `name` (ModelCard::cell); nullopt for an unknown or non-recurrent
// model.
std::optional<RecurrentCell> recurrentCell(const std::string& name);
// The model of a config that names none (ModelOptions' default).
const char* defaultModelName();
// The attention kinds of the attention family (ModelCard::attention), in registry order.
std::vector<AttentionKind> attentionKinds();
// The kind of the attention card whose attention_name is `name` ("softmax"); throws
// std::invalid_argument naming the known kinds for an unknown name.
AttentionKind attentionKind(const std::string& name);
// "softmax, rsa, linear, retention": the names of attentionKinds() for messages and help texts.
std::string attentionKindList();
// The kinds the encoder–decoder's encoder_attention takes: those of attentionKinds() whose card
// is not CausalOnly (the encoder is bidirectional).
std::vector<AttentionKind> encoderAttentionKinds();
// "softmax, rsa, linear": the names of encoderAttentionKinds().
std::string encoderAttentionKindList();
// The attention-family card whose attention is `kind` (its HasRems says whether that attention
// carries REMs); nullptr when no card has that kind.
const ModelCard* findAttention(AttentionKind kind);

}  // namespace rsalab
