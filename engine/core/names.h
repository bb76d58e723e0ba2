// Enums that cross files (run state, data split, REM kind) with their one set of names. Every
// writer writes these names and every reader parses them here, so a bundle, a CSV or a status
// line written by one part of the app is read by every other. Plain C++: no LibTorch, no Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rsalab {

// Diverged: a non-finite loss or gradient paused the run (restorable); Failed: an error ended it;
// Interrupted: Ctrl+C / SIGTERM ended it after writing what it had.
enum class RunState { Idle, Running, Paused, Finished, Stopped, Failed, Diverged, Interrupted };
const char* runStateName(RunState state);
std::optional<RunState> parseRunState(const std::string& name);
const std::vector<RunState>& allRunStates();

enum class Split { Train, Validation, Test };
const char* splitName(Split split);  // train | validation | test
std::optional<Split> parseSplit(const std::string& name);

// The RSA paper's REMs ("Encoding Recurrence into Transformers"): regular λ^|i−j|; cyclical
// γ^|i−j| cos/sin.
enum class RemKind { Regular, Cos, Sin };
const char* remKindName(RemKind kind);  // regular | cos | sin
std::optional<RemKind> parseRemKind(const std::string& name);

}  // namespace rsalab
