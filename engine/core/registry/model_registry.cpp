// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/registry/model_registry.h"

#include <stdexcept>

#include "engine/core/io/enums.h"
#include "engine/core/io/text.h"

namespace rsalab {

namespace {
const EnumName<ModelFamily> kModelFamilies[] = {
    {ModelFamily::Recurrent, "recurrent"},    {ModelFamily::Attention, "attention"},
    {ModelFamily::FixedPoint, "fixed-point"}, {ModelFamily::Seq2Seq, "seq2seq"},
    {ModelFamily::Linear, "linear"},          {ModelFamily::StateSpace, "state-space"},
    {ModelFamily::Forecaster, "forecaster"}};
const EnumName<ModelFlag> kFlagNames[] = {{CausalOnly, "causal_only"},
                                          {NoPositionalEncoding, "no_positional_encoding"},
                                          {HasRems, "has_rems"},
                                          {HasGates, "has_gates"},
                                          {RecordsDecays, "records_decays"},
                                          {SeriesOnly, "series_only"},
                                          {DefaultLaunch, "default_launch"},
                                          {HasPeer, "has_peer"},
                                          {LongHorizonOnly, "long_horizon_only"}};
}  // namespace

const char* modelFamilyName(ModelFamily family) { return nameOf(kModelFamilies, family); }
const char* modelFlagName(ModelFlag flag) { return nameOf(kFlagNames, flag); }

const ModelCard* findModel(const std::string& name) {
  // A named variant ("rsa[rem_heads=regular]", model_variant.h) is its card's model.
  const size_t open = name.find('[');
  const std::string card =
      open != std::string::npos && name.back() == ']' ? name.substr(0, open) : name;
  for (const auto& row : modelRegistry()) {
    if (card == row.name) return &row;
  }
  return nullptr;
}

const ModelCard& modelInfo(const std::string& name) {
  if (const auto* row = findModel(name)) return *row;
  throw std::invalid_argument("model '" + name + "' is unknown: use " + modelNameList());
}

bool modelFitsObjective(const ModelCard& model, Objective objective) {
  if ((model.family == ModelFamily::Seq2Seq) != (objective == Objective::Seq2Seq)) return false;
  return !model.has(SeriesOnly) || objective == Objective::Regression;
}

std::vector<std::string> modelNames(bool sequence_only) {
  std::vector<std::string> out;
  for (const auto& row : modelRegistry()) {
    if (sequence_only && (row.family == ModelFamily::Seq2Seq || row.has(LongHorizonOnly))) continue;
    out.emplace_back(row.name);
  }
  return out;
}

std::vector<std::string> defaultModelNames() {
  std::vector<std::string> out;
  for (const auto& row : modelRegistry()) {
    if (row.has(DefaultLaunch)) out.emplace_back(row.name);
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

const char* attentionKindName(AttentionKind kind) {
  const ModelCard* card = findAttention(kind);
  return card ? card->attention_name : "?";
}

std::optional<AttentionKind> parseAttentionKind(const std::string& name) {
  for (const auto& card : modelRegistry())
    if (card.attention_name && name == card.attention_name) return card.attention;
  return std::nullopt;
}

AttentionKind attentionKind(const std::string& name) {
  if (const auto kind = parseAttentionKind(name)) return *kind;
  throw std::invalid_argument("attention '" + name + "' is unknown: use " + attentionKindList());
}

template <>
const char* enumName<AttentionKind>(AttentionKind value) {
  return attentionKindName(value);
}
template <>
std::optional<AttentionKind> parseEnum<AttentionKind>(const std::string& name) {
  return parseAttentionKind(name);
}
template <>
std::vector<std::string> enumNames<AttentionKind>() {
  std::vector<std::string> out;
  for (AttentionKind kind : attentionKinds()) out.emplace_back(attentionKindName(kind));
  return out;
}

std::string attentionKindList() {
  return joined(attentionKinds(), ", ",
                [](AttentionKind kind) { return std::string(attentionKindName(kind)); });
}

std::vector<AttentionKind> encoderAttentionKinds() {
  std::vector<AttentionKind> out;
  for (AttentionKind kind : attentionKinds()) {
    if (!findAttention(kind)->causalOnly()) out.push_back(kind);
  }
  return out;
}

std::string encoderAttentionKindList() {
  return joined(encoderAttentionKinds(), ", ",
                [](AttentionKind kind) { return std::string(attentionKindName(kind)); });
}

const ModelCard* findAttention(AttentionKind kind) {
  for (const auto& row : modelRegistry()) {
    if (row.family == ModelFamily::Attention && row.attention == kind) return &row;
  }
  return nullptr;
}

}  // namespace rsalab
