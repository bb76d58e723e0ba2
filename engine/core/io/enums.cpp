// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/enums.h"

namespace rsalab {
namespace {

const EnumName<RunState> kRunStates[] = {
    {RunState::Idle, "idle"},         {RunState::Running, "running"},
    {RunState::Paused, "paused"},     {RunState::Finished, "finished"},
    {RunState::Stopped, "stopped"},   {RunState::Failed, "failed"},
    {RunState::Diverged, "diverged"}, {RunState::Interrupted, "interrupted"}};

const EnumName<Split> kSplits[] = {
    {Split::Train, "train"}, {Split::Validation, "validation"}, {Split::Test, "test"}};

const EnumName<RemKind> kRemKinds[] = {
    {RemKind::Regular, "regular"}, {RemKind::Cos, "cos"}, {RemKind::Sin, "sin"}};

}  // namespace

const char* runStateName(RunState state) { return nameOf(kRunStates, state); }
std::optional<RunState> parseRunState(const std::string& name) {
  return parseName(kRunStates, name);
}
const std::vector<RunState>& allRunStates() {
  static const std::vector<RunState> all = [] {
    std::vector<RunState> out;
    for (const auto& [value, text] : kRunStates) out.push_back(value);
    return out;
  }();
  return all;
}

const char* splitName(Split split) { return nameOf(kSplits, split); }
std::optional<Split> parseSplit(const std::string& name) { return parseName(kSplits, name); }

const char* remKindName(RemKind kind) { return nameOf(kRemKinds, kind); }
std::optional<RemKind> parseRemKind(const std::string& name) { return parseName(kRemKinds, name); }

const char* normModeName(NormMode mode) { return enumName(mode); }
std::optional<NormMode> parseNormMode(const std::string& name) { return parseEnum<NormMode>(name); }

const char* anchorModeName(AnchorMode mode) { return enumName(mode); }
std::optional<AnchorMode> parseAnchorMode(const std::string& name) {
  return parseEnum<AnchorMode>(name);
}

}  // namespace rsalab
