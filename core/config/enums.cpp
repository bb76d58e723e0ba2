#include "core/config/enums.h"

#include <utility>

namespace rsalab {
namespace {

template <typename E, size_t N>
std::optional<E> parse(const std::pair<E, const char*> (&table)[N], const std::string& name) {
  for (const auto& [value, text] : table) {
    if (name == text) return value;
  }
  return std::nullopt;
}

template <typename E, size_t N>
const char* nameOf(const std::pair<E, const char*> (&table)[N], E value) {
  for (const auto& [v, text] : table) {
    if (v == value) return text;
  }
  return "?";
}

const std::pair<RunState, const char*> kRunStates[] = {
    {RunState::Idle, "idle"},         {RunState::Running, "running"},
    {RunState::Paused, "paused"},     {RunState::Finished, "finished"},
    {RunState::Stopped, "stopped"},   {RunState::Failed, "failed"},
    {RunState::Diverged, "diverged"}, {RunState::Interrupted, "interrupted"}};

const std::pair<Split, const char*> kSplits[] = {
    {Split::Train, "train"}, {Split::Validation, "validation"}, {Split::Test, "test"}};

const std::pair<RemKind, const char*> kRemKinds[] = {
    {RemKind::Regular, "regular"}, {RemKind::Cos, "cos"}, {RemKind::Sin, "sin"}};

const std::pair<NormMode, const char*> kNormModes[] = {
    {NormMode::Window, "window"}, {NormMode::Global, "global"}, {NormMode::None, "none"}};

}  // namespace

const char* runStateName(RunState state) { return nameOf(kRunStates, state); }
std::optional<RunState> parseRunState(const std::string& name) { return parse(kRunStates, name); }
const std::vector<RunState>& allRunStates() {
  static const std::vector<RunState> all = [] {
    std::vector<RunState> out;
    for (const auto& [value, text] : kRunStates) out.push_back(value);
    return out;
  }();
  return all;
}

const char* splitName(Split split) { return nameOf(kSplits, split); }
std::optional<Split> parseSplit(const std::string& name) { return parse(kSplits, name); }

const char* remKindName(RemKind kind) { return nameOf(kRemKinds, kind); }
std::optional<RemKind> parseRemKind(const std::string& name) { return parse(kRemKinds, name); }

const char* normModeName(NormMode mode) { return nameOf(kNormModes, mode); }
std::optional<NormMode> parseNormMode(const std::string& name) { return parse(kNormModes, name); }

}  // namespace rsalab
