// SPDX-License-Identifier: GPL-3.0-or-later
// Size limits of the tasks, shared by the option checks (task_validation.cpp, torch-free) and the
// task builders. docs/CLI.md's "Limits" section states them.
#pragma once

#include <cstdint>

namespace rsalab {

constexpr int64_t kMaxTaskLength = 100000;            // T of series windows, LM context, seq2seq
constexpr int64_t kMaxTrainSize = 1'000'000;          // training sequences / windows
constexpr int64_t kMaxEvalSize = 1'000'000;           // validation and test sequences each
constexpr int64_t kMaxTaskValues = int64_t{1} << 26;  // tokens or time steps over all splits
constexpr int64_t kMaxHorizon = 1024;                 // series and CSV forecast horizon
constexpr int64_t kMaxTaskLanguageLength = 1000;      // longest regular-language string
constexpr int64_t kMaxTaskSymbols = 65536;            // seq2seq / MLM symbols

}  // namespace rsalab
