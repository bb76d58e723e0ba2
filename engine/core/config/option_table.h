// SPDX-License-Identifier: GPL-3.0-or-later
// Settings as data: one row per field of a settings struct (TrainerOptions, ModelOptions and its
// rem / rem_init parts, TaskOptions) with its JSON key, label, unit, its one range, the field
// itself and rsalab-cli's flag. Every reader of a setting reads its row: validate (the range), the
// JSON reader and writer (key, enum names), the GUI's spin boxes (range) and the CLI's flags (flag,
// help, range). A new setting is a member of its struct plus a row of its table.
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/forecast/long_horizon.h"  // LongHorizonFeatures
#include "engine/core/io/enums.h"

namespace rsalab {

// The field of S behind a row: numbers, flags, text, lists and the option enums (each written and
// read by its EnumTable names).
template <typename S>
using OptionMember =
    std::variant<double S::*, int64_t S::*, uint64_t S::*, bool S::*, std::string S::*,
                 std::vector<double> S::*, std::vector<int64_t> S::*, NormMode S::*,
                 AnchorMode S::*, AttentionKind S::*, OptimizerKind S::*,
                 std::vector<TeacherKind> S::*, TeacherProcess S::*, SeriesProtocol S::*,
                 forecast::LongHorizonFeatures S::*>;

// Which models a searched row applies to (rsalab-cli tune, engine/core/config/search_space.h):
// every model, every model with a width and layers (not the linear forecasters, a map of their
// window), the models with attention heads (the attention family), those with REM heads, RetNet's
// retention only.
enum class SearchScope { Every, Network, Heads, Rems, Retention };
// How `rsalab-cli tune` draws a row's value: not at all (None), uniform on [low, high] (Linear) or
// uniform in log [low, high] (Log). Integer rows land on the grid low + k·step (step 0: 1); flag
// rows (bool) draw false or true with equal odds (low 0, high 1, Linear). The search range lies
// inside the validation range [minimum, maximum].
enum class SearchScale { None, Linear, Log };
struct SearchRange {
  double low = 0, high = 0;
  SearchScale scale = SearchScale::None;
  SearchScope scope = SearchScope::Every;
  double step = 0;
  bool searched() const { return scale != SearchScale::None; }
};

template <typename S>
struct OptionInfo {
  std::string name;   // JSON key in S's section ("d_model", "learning_rate")
  std::string label;  // for forms
  std::string unit;   // "", "steps", "s", ...
  // The one allowed range of a numeric row (validate, spin boxes, flags); unused by the others.
  double minimum = 0, maximum = 0;
  bool log_scale = false;
  bool hot = false;  // true: applies at the next training step; false: needs a restart
  OptionMember<S> member;
  const char* flag = nullptr;  // rsalab-cli's flag ("--d-model"); nullptr: none
  std::string help = "";       // the flag's help text
  SearchRange search = {};     // rsalab-cli tune's range for this row (none: not searched)

  // A number with a range (double and int64_t fields): range-checked by validate, shown by forms
  // and editable as a number. The others are JSON keys and flags only.
  bool numeric() const {
    return std::holds_alternative<double S::*>(member) ||
           std::holds_alternative<int64_t S::*>(member);
  }
  bool integral() const { return std::holds_alternative<int64_t S::*>(member); }
  // The field as a number (numeric rows; NaN for the others).
  double get(const S& s) const {
    if (const auto* d = std::get_if<double S::*>(&member); d && *d) return s.**d;
    if (const auto* i = std::get_if<int64_t S::*>(&member); i && *i)
      return static_cast<double>(s.**i);
    return NAN;
  }
  // Sets the field from a number (integer fields round to the nearest whole number); no effect
  // for rows that are not numeric.
  void set(S& s, double value) const {
    if (const auto* d = std::get_if<double S::*>(&member); d && *d) s.** d = value;
    if (const auto* i = std::get_if<int64_t S::*>(&member); i && *i)
      s.** i = static_cast<int64_t>(std::llround(value));
  }
  // Sets a searched row's field (numbers as set; a flag row: value >= 0.5 is true).
  void setSearched(S& s, double value) const {
    if (const auto* b = std::get_if<bool S::*>(&member); b && *b) s.** b = value >= 0.5;
    set(s, value);
  }
  // A searched row's field as a number (a flag row: 0 or 1).
  double searchedValue(const S& s) const {
    if (const auto* b = std::get_if<bool S::*>(&member); b && *b) return s.**b ? 1.0 : 0.0;
    return get(s);
  }
  // A value of this row as text: whole numbers for integer rows ("1000000"), else "%g"-like.
  std::string text(double value) const {
    std::ostringstream out;
    if (integral() && std::isfinite(value) && std::abs(value) < 9e18)
      out << static_cast<int64_t>(std::llround(value));
    else
      out << value;
    return out.str();
  }
  std::string rangeText() const { return text(minimum) + ".." + text(maximum); }
  bool inRange(double value) const {
    return std::isfinite(value) && value >= minimum && value <= maximum;
  }
  // Throws std::invalid_argument "<prefix><name> = <value> is out of range: <min>..<max>" when
  // the field of `s` is outside the row's range (numeric rows only).
  void check(const S& s, const std::string& prefix = "") const {
    if (!numeric()) return;
    const double value = get(s);
    if (inRange(value)) return;
    throw std::invalid_argument(prefix + name + " = " + text(value) +
                                " is out of range: " + rangeText());
  }
};

// The row named `name`; nullptr when no row has it.
template <typename S>
const OptionInfo<S>* findOption(const std::vector<OptionInfo<S>>& rows, const std::string& name) {
  for (const auto& row : rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

// Every numeric row's range, in table order (the first field outside its range throws).
template <typename S>
void checkRanges(const std::vector<OptionInfo<S>>& rows, const S& s,
                 const std::string& prefix = "") {
  for (const auto& row : rows) row.check(s, prefix);
}

}  // namespace rsalab
