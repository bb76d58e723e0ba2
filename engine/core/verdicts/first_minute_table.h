// SPDX-License-Identifier: GPL-3.0-or-later
// The first minute's measurement as plain data (core library: no LibTorch, no Qt): the GUI's
// default launch trained headless over several seeds (engine/training/first_minute.h runs it),
// stored as resources/first_minute.json, rendered as the README's first-minute block and summed up
// in the window's headline. One file, three readers: the numbers are written once.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rsalab {

struct FirstMinuteRun {
  std::string model;
  uint64_t seed = 0;
  int64_t steps = 0;      // steps trained (fewer than asked when the run stopped by itself)
  std::string stop;       // "" while still training at the step limit, else the stop reason
  double validation = 0;  // the last validation evaluation (what the runs table shows)
  double best_validation = 0;
  // The test loss at the run's last weights (those of its last validation evaluation); NaN in a
  // record measured before it was kept.
  double test = std::numeric_limits<double>::quiet_NaN();
  double bayes_floor = std::numeric_limits<double>::quiet_NaN();  // NaN: the task has none
};

struct FirstMinuteTable {
  std::string config;  // toJson(defaultLaunchConfig()) when measured
  std::vector<std::string> models;
  int64_t steps = 0, seeds = 0;
  std::vector<FirstMinuteRun> runs;
};

// A table for today's default launch (config and models), no runs yet.
FirstMinuteTable firstMinuteTableForLaunch(int64_t seeds, int64_t steps);
// Measured on today's default launch (same config, same models)?
bool firstMinuteTableMatchesLaunch(const FirstMinuteTable& table);

std::string firstMinuteTableJson(const FirstMinuteTable& table);
// std::runtime_error naming `what` on malformed input.
FirstMinuteTable firstMinuteTableFromJson(const std::string& text, const std::string& what);
// resources/first_minute.json when it is there and matches today's launch; else none (false).
bool readLaunchFirstMinuteTable(FirstMinuteTable* table);

// The README's block, markers included: a row per model (a column per seed with the validation
// and test loss, then the mean ± sd of each), then how RSA compares with each other model on the
// test loss, seed by seed.
std::string firstMinuteBlock(const FirstMinuteTable& table);
// The block's table alone (a row per model of table.models, a column per seed, then the means),
// and its sentence of verdicts ("On the test loss, RSA beats rnn (…); …"; "" without an RSA row).
std::string firstMinuteRows(const FirstMinuteTable& table);
std::string firstMinuteVerdicts(const FirstMinuteTable& table);
// One line for the window's headline: "Over 5 seeds (README, measured headless), test loss: rnn
// 0.222 ± 0.0048, transformer 0.0192 ± 0.0059, rsa 0.0185 ± 0.0031; RSA beats rnn, ties
// transformer."
std::string firstMinuteSummary(const FirstMinuteTable& table);
// `markdown` with its block replaced by `block`; std::runtime_error naming `what` when it has none.
std::string replaceFirstMinuteBlock(const std::string& markdown, const std::string& block,
                                    const std::string& what);
// The block in `markdown`; std::runtime_error naming `what` when there is none.
std::string firstMinuteBlockIn(const std::string& markdown, const std::string& what);

constexpr const char* kFirstMinuteResource = "first_minute.json";  // under resources/

}  // namespace rsalab
