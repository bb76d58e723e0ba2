// SPDX-License-Identifier: GPL-3.0-or-later
// Enums that cross files (run state, data split, REM kind, attention kind, the options' modes)
// with their one set of names. Every writer writes these names and every reader parses them here,
// so a bundle, a CSV or a status line written by one part of the app is read by every other. Plain
// C++: no LibTorch, no Qt.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rsalab {

// The name table behind every enum-with-names: one row {value, name} per value, in the order the
// enum lists them. nameOf gives the row's name ("?" for a value without a row), parseName the
// value of a name (nullopt for an unknown one), so writer and reader share the one table.
template <typename E>
using EnumName = std::pair<E, const char*>;

template <typename E, size_t N>
const char* nameOf(const EnumName<E> (&table)[N], E value) {
  for (const auto& [v, text] : table) {
    if (v == value) return text;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> parseName(const EnumName<E> (&table)[N], const std::string& name) {
  for (const auto& [value, text] : table) {
    if (name == text) return value;
  }
  return std::nullopt;
}

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

// The enums that are options (ModelOptions, TaskOptions, TrainerOptions): their name tables are
// here so that the option tables (engine/core/config/option_table.h) read and write any of them
// through EnumTable<E>: JSON keeps the names, a bad name is an error listing enumChoices<E>().
template <typename E>
struct EnumTable;  // EnumTable<E>::rows: E's name table

// The attention inside a transformer block (ModelCard::attention, ModelOptions::encoder_attention):
// one value per attention card, in registry order, named by its card (ModelCard::attention_name:
// "softmax", "rsa", "linear", "retention", …). A new kind is a card (model_cards.cpp), never a
// line here; code names a kind by attentionKind("softmax") (model_registry.h). Configs keep the
// name, never the number.
enum class AttentionKind : int {};
// The card's name of `kind` ("?" for a value no card has); the kind of a card's name.
const char* attentionKindName(AttentionKind kind);
std::optional<AttentionKind> parseAttentionKind(const std::string& name);

// Normalisation of a series task's values (TaskOptions::norm). Every loss is reported in the units
// of the train part's global normalisation whatever the mode, so modes and baselines compare.
//   window: each input window is shifted and scaled by its own mean and std (per column) and the
//           prediction mapped back (reversible instance normalisation): survives trends;
//   global: the train part's mean and std (per column) for every window;
//   none:   raw values in and out;
//   revin:  window's statistics plus a learned scale and shift per column (RevIN's affine),
//           reversed at the output (engine/training/series_norm.h).
enum class NormMode { Window, Global, None, Revin };
const char* normModeName(NormMode mode);  // window | global | none | revin
std::optional<NormMode> parseNormMode(const std::string& name);
template <>
struct EnumTable<NormMode> {
  static constexpr EnumName<NormMode> rows[] = {{NormMode::Window, "window"},
                                                {NormMode::Global, "global"},
                                                {NormMode::None, "none"},
                                                {NormMode::Revin, "revin"}};
};

// The protocol of a real-series task (TaskOptions::protocol, --protocol):
//   split:        the 70/15/15 % split in time, rolling-origin validation and test
//                 (engine/tasks/csv_series.h);
//   long-horizon: the ETT papers' protocol (engine/core/forecast/long_horizon.h): 12/4/4 months,
//                 direct windows of input length L and horizon H, an epochs budget;
//   auto:         long-horizon on the bundled hourly ETT series (etth1, etth2), split elsewhere.
enum class SeriesProtocol { Auto, Split, LongHorizon };
template <>
struct EnumTable<SeriesProtocol> {
  static constexpr EnumName<SeriesProtocol> rows[] = {
      {SeriesProtocol::Auto, "auto"},
      {SeriesProtocol::Split, "split"},
      {SeriesProtocol::LongHorizon, "long-horizon"}};
};

// Which forecasting anchors a real-series task fits (TaskOptions::anchors, --anchors):
//   all:  ETS, auto ARIMA and Theta on every column, on at most the train part's last 8,192 rows
//         and 48,000 / period rows (2,000 for hourly data), with auto ARIMA's seasonal orders
//         P, Q ≤ 1 for periods above 12;
//   fast: the same three on at most the last 2,000 and 12,000 / period rows (500 for hourly data),
//         and seasonal orders P, Q ≤ 1 for every period;
//   none: no anchors (the baselines stay: persistence, seasonal naive, AR, mean).
enum class AnchorMode { All, Fast, None };
const char* anchorModeName(AnchorMode mode);  // all | fast | none
std::optional<AnchorMode> parseAnchorMode(const std::string& name);
template <>
struct EnumTable<AnchorMode> {
  static constexpr EnumName<AnchorMode> rows[] = {
      {AnchorMode::All, "all"}, {AnchorMode::Fast, "fast"}, {AnchorMode::None, "none"}};
};

// The trainer's optimizer (TrainerOptions::optimizer): Adam (L2 weight decay) or AdamW (decoupled).
enum class OptimizerKind { Adam, AdamW };
template <>
struct EnumTable<OptimizerKind> {
  static constexpr EnumName<OptimizerKind> rows[] = {{OptimizerKind::Adam, "adam"},
                                                     {OptimizerKind::AdamW, "adamw"}};
};

// A term of the linear-recurrence teacher (TaskOptions::teacher_kinds): base^(t−s) (regular) or
// base^(t−s)·cos θ(t−s) (cos).
enum class TeacherKind { Regular, Cos };
template <>
struct EnumTable<TeacherKind> {
  static constexpr EnumName<TeacherKind> rows[] = {{TeacherKind::Regular, "regular"},
                                                   {TeacherKind::Cos, "cos"}};
};

// The process behind the `teacher` and `mix` tasks' recurrent target (TaskOptions::teacher_process;
// one line each in the task registry, teacherProcessDescription): rem (the regular and cos kernels
// of teacher_kinds, RSA's home ground), power (k^(−α)), jordan (k·λ^k), nonlinear (a random tanh
// RNN), selective (an input-dependent decay). engine/tasks/teacher_process.h builds them.
enum class TeacherProcess { Rem, Power, Jordan, Nonlinear, Selective };
template <>
struct EnumTable<TeacherProcess> {
  static constexpr EnumName<TeacherProcess> rows[] = {{TeacherProcess::Rem, "rem"},
                                                      {TeacherProcess::Power, "power"},
                                                      {TeacherProcess::Jordan, "jordan"},
                                                      {TeacherProcess::Nonlinear, "nonlinear"},
                                                      {TeacherProcess::Selective, "selective"}};
};

// The cell of a recurrent model (ModelCard::cell): tanh RNN, LSTM or GRU.
enum class RecurrentCell { Rnn, Lstm, Gru };
template <>
struct EnumTable<RecurrentCell> {
  static constexpr EnumName<RecurrentCell> rows[] = {
      {RecurrentCell::Rnn, "rnn"}, {RecurrentCell::Lstm, "lstm"}, {RecurrentCell::Gru, "gru"}};
};

// Any enum with an EnumTable: its name, the value of a name (nullopt when unknown) and the names
// for messages ("window, global or none").
template <typename E>
const char* enumName(E value) {
  return nameOf(EnumTable<E>::rows, value);
}
template <typename E>
std::optional<E> parseEnum(const std::string& name) {
  return parseName(EnumTable<E>::rows, name);
}
template <typename E>
std::vector<std::string> enumNames() {
  std::vector<std::string> out;
  for (const auto& row : EnumTable<E>::rows) out.emplace_back(row.second);
  return out;
}
template <typename E>
std::string enumChoices() {
  const auto names = enumNames<E>();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// The attention kinds' names come from the cards (model_registry.cpp), not from an EnumTable.
template <>
const char* enumName<AttentionKind>(AttentionKind value);
template <>
std::optional<AttentionKind> parseEnum<AttentionKind>(const std::string& name);
template <>
std::vector<std::string> enumNames<AttentionKind>();

}  // namespace rsalab
