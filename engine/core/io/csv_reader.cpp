// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/csv_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace rsalab {
namespace {

struct Record {
  std::vector<std::string> fields;
  int64_t line = 0;  // 1-based physical line where the record starts
  bool blank() const {
    return fields.size() == 1 && std::all_of(fields[0].begin(), fields[0].end(),
                                             [](unsigned char c) { return std::isspace(c) != 0; });
  }
};

// Splits the text into records, honouring quotes; CRLF, LF and CR all end a line.
class Tokenizer {
 public:
  Tokenizer(std::string_view text, char sep, const std::string& source)
      : text_(text), sep_(sep), source_(source) {}

  bool next(Record& rec) {
    if (pos_ >= text_.size()) return false;
    rec.fields.assign(1, std::string());
    rec.line = line_;
    bool quoted = false, was_quoted = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      std::string& field = rec.fields.back();
      if (quoted) {
        if (c == '"') {
          if (pos_ < text_.size() && text_[pos_] == '"') {
            field += '"';
            ++pos_;
          } else {
            quoted = false;
          }
        } else {
          if (c == '\n' || (c == '\r' && !(pos_ < text_.size() && text_[pos_] == '\n'))) ++line_;
          field += c;
        }
      } else if (c == '"' && !was_quoted && isBlank(field)) {
        quoted = was_quoted = true;
        field.clear();
      } else if (c == sep_) {
        finish(field, was_quoted);
        rec.fields.emplace_back();
        was_quoted = false;
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
        ++line_;
        break;
      } else if (!was_quoted) {  // text after a closing quote is ignored
        field += c;
      }
    }
    if (quoted) {
      throw std::runtime_error(source_ + ": line " + std::to_string(rec.line) +
                               ": a quoted field opened here is never closed");
    }
    finish(rec.fields.back(), was_quoted);
    return true;
  }

 private:
  static bool isBlank(const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c == ' ' || c == '\t'; });
  }
  static void finish(std::string& field, bool was_quoted) {
    if (was_quoted) return;  // quoted content is kept verbatim
    const auto b = field.find_first_not_of(" \t");
    if (b == std::string::npos) {
      field.clear();
      return;
    }
    field = field.substr(b, field.find_last_not_of(" \t") - b + 1);
  }

  std::string_view text_;
  char sep_;
  const std::string& source_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

char detectSeparator(std::string_view text) {
  // First non-blank line, outside quotes.
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    bool quoted = false, tab = false, semi = false, nonblank = false;
    for (; end < text.size(); ++end) {
      const char c = text[end];
      if (c == '"') quoted = !quoted;
      if (!quoted && (c == '\n' || c == '\r')) break;
      if (!quoted && c == '\t') tab = true;
      if (!quoted && c == ';') semi = true;
      if (!std::isspace(static_cast<unsigned char>(c))) nonblank = true;
    }
    if (nonblank) return tab ? '\t' : semi ? ';' : ',';
    i = end + 1;
  }
  return ',';
}

bool isMissing(const std::string& s) { return isMissingCell(s); }

bool parseNumber(std::string s, char sep, double& out) {
  if (s.empty()) return false;
  if (sep != ',' && std::count(s.begin(), s.end(), ',') == 1 && s.find('.') == std::string::npos) {
    std::replace(s.begin(), s.end(), ',', '.');  // decimal comma
  }
  const size_t b = s[0] == '+' ? 1 : 0;
  if (b == s.size() || (b == 1 && s[1] == '-')) return false;
  // Plain decimal / scientific notation only: no "inf", "nan" or hexadecimal.
  for (size_t i = b; i < s.size(); ++i) {
    const char c = s[i];
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
          c == 'e' || c == 'E')) {
      return false;
    }
  }
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  const char* first = s.data() + b;
  const char* last = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && ptr == last && std::isfinite(out);
#else
  std::istringstream in(s.substr(b));
  in.imbue(std::locale::classic());  // independent of the process locale (Qt sets it)
  in >> out;
  return !in.fail() && in.peek() == std::char_traits<char>::eof() && std::isfinite(out);
#endif
}

bool looksLikeDate(const std::string& s) {
  const bool digit =
      std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
  return digit && s.find_first_of("-:/") != std::string::npos;
}

enum class CellKind { Number, Missing, Date, Text };

CellKind classify(const std::string& s, char sep) {
  double v;
  if (isMissing(s)) return CellKind::Missing;
  if (parseNumber(s, sep, v)) return CellKind::Number;
  return looksLikeDate(s) ? CellKind::Date : CellKind::Text;
}

// A cell or column name as it appears in a message: at most 40 characters, control bytes as \xNN.
std::string shortCell(const std::string& s) {
  std::string out;
  size_t i = 0;
  for (; i < s.size() && out.size() < 40; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return i < s.size() ? out + "..." : out;
}

enum class ColumnKind { Unknown, Numeric, Date };

// A numeric column that is the time index (named like one, or strictly increasing in equal steps:
// 1871, 1872, …) would otherwise be forecast as a series, and its trivially predictable values
// would be averaged into every loss. It is set aside like a date column, its values kept for
// --target. Only while another column is left: named ones first, then the evenly spaced ones.
bool timeName(std::string name) {
  for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* n : {"time", "date", "year", "month", "week", "day", "ds", "index", "timestamp"})
    if (name == n) return true;
  return false;
}

bool evenlySpacedIncreasing(const std::vector<double>& v) {
  if (v.size() < 3) return false;
  const double step = v[1] - v[0];
  if (!(step > 0)) return false;
  for (size_t i = 1; i < v.size(); ++i) {
    const double d = v[i] - v[i - 1];  // NaN (a missing cell) fails too
    if (!(std::abs(d - step) <= 1e-9 * std::max(std::abs(step), std::abs(v[i])))) return false;
  }
  return true;
}

std::vector<size_t> setAsideTimeColumns(const std::vector<size_t>& keep,
                                        const std::vector<std::string>& names,
                                        const std::vector<std::vector<double>>& cols,
                                        CsvTable& table) {
  std::vector<bool> named(keep.size()), spaced(keep.size());
  for (size_t k = 0; k < keep.size(); ++k) {
    named[k] = table.has_header && timeName(names[keep[k]]);
    spaced[k] = evenlySpacedIncreasing(cols[keep[k]]);
  }
  for (bool with_spaced : {true, false}) {
    std::vector<size_t> left, aside;
    for (size_t k = 0; k < keep.size(); ++k)
      ((named[k] || (with_spaced && spaced[k])) ? aside : left).push_back(keep[k]);
    if (left.empty()) continue;
    for (size_t c : aside) {
      table.skipped_columns.push_back(names[c]);
      table.time_columns.push_back(names[c]);
      table.time_values.push_back(cols[c]);
    }
    return left;
  }
  return keep;
}

}  // namespace

bool isMissingCell(const std::string& s) {
  if (s.empty()) return true;
  if (s.size() > 4) return false;
  std::string l;
  for (unsigned char c : s) l += static_cast<char>(std::tolower(c));
  return l == "na" || l == "n/a" || l == "nan" || l == "null" || l == "none" || l == "#n/a";
}

int64_t fillMissing(std::vector<double>& v) {
  int64_t filled = 0;
  double last = std::numeric_limits<double>::quiet_NaN();
  for (double& x : v) {  // carry the previous value forward
    if (std::isnan(x)) {
      if (!std::isnan(last)) {
        x = last;
        ++filled;
      }
    } else {
      last = x;
    }
  }
  const auto first = std::find_if(v.begin(), v.end(), [](double x) { return !std::isnan(x); });
  if (first == v.end()) return filled;
  for (auto it = v.begin(); it != first; ++it, ++filled) *it = *first;  // leading gap
  return filled;
}

CsvTable parseCsv(const std::string& input, const std::string& source, const CsvLimits& limits) {
  if (static_cast<int64_t>(input.size()) > limits.max_bytes) {
    throw std::runtime_error(source + " is " + std::to_string(input.size()) +
                             " bytes; the limit is " + std::to_string(limits.max_bytes) + " bytes");
  }
  if (const auto nul = input.find('\0'); nul != std::string::npos) {
    throw std::runtime_error(source + " is a binary file, not CSV text (a NUL byte at offset " +
                             std::to_string(nul) + ")");
  }
  std::string_view text(input);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  CsvTable table;
  table.separator = detectSeparator(text);
  Tokenizer tok(text, table.separator, source);

  Record first, second;
  do {
    if (!tok.next(first)) throw std::runtime_error(source + " has no data");
  } while (first.blank());
  const auto ncols = static_cast<int64_t>(first.fields.size());
  if (ncols > limits.max_columns) {
    throw std::runtime_error(source + " has " + std::to_string(ncols) + " columns; the limit is " +
                             std::to_string(limits.max_columns));
  }
  bool have_second = false;
  while (tok.next(second)) {
    if (!second.blank()) {
      have_second = true;
      break;
    }
  }
  for (int64_t c = 0; c < ncols; ++c) {
    const auto kind = classify(first.fields[static_cast<size_t>(c)], table.separator);
    const bool second_number =
        have_second && c < static_cast<int64_t>(second.fields.size()) &&
        classify(second.fields[static_cast<size_t>(c)], table.separator) == CellKind::Number;
    if (kind == CellKind::Text || (kind == CellKind::Date && second_number)) {
      table.has_header = true;
    }
  }
  std::vector<std::string> names(static_cast<size_t>(ncols));
  std::vector<bool> named(static_cast<size_t>(ncols), false);
  for (int64_t c = 0; c < ncols; ++c) {
    const std::string& h = first.fields[static_cast<size_t>(c)];
    named[static_cast<size_t>(c)] = table.has_header && !h.empty();
    names[static_cast<size_t>(c)] =
        named[static_cast<size_t>(c)] ? h : "column " + std::to_string(c + 1);
  }

  std::vector<ColumnKind> kinds(static_cast<size_t>(ncols), ColumnKind::Unknown);
  std::vector<std::vector<double>> cols(static_cast<size_t>(ncols));
  std::vector<std::vector<std::string>> texts(static_cast<size_t>(ncols));  // date columns' cells
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  int64_t rows = 0;
  auto addRow = [&](const Record& rec) {
    if (static_cast<int64_t>(rec.fields.size()) != ncols) {
      throw std::runtime_error(source + ": line " + std::to_string(rec.line) + " has " +
                               std::to_string(rec.fields.size()) + " fields but line " +
                               std::to_string(first.line) + " has " + std::to_string(ncols));
    }
    if (++rows > limits.max_rows) {
      throw std::runtime_error(source + " has more than " + std::to_string(limits.max_rows) +
                               " data rows; the limit is " + std::to_string(limits.max_rows));
    }
    for (size_t c = 0; c < static_cast<size_t>(ncols); ++c) {
      const std::string& cell = rec.fields[c];
      if (kinds[c] == ColumnKind::Date) {
        texts[c].push_back(cell);
        continue;
      }
      double v = kNaN;
      if (isMissing(cell)) {
        cols[c].push_back(kNaN);
      } else if (parseNumber(cell, table.separator, v)) {
        cols[c].push_back(v);
        kinds[c] = ColumnKind::Numeric;
      } else if (kinds[c] == ColumnKind::Unknown && looksLikeDate(cell)) {
        kinds[c] = ColumnKind::Date;
        cols[c].clear();
        texts[c].assign(static_cast<size_t>(rows - 1), std::string());  // missing until here
        texts[c].push_back(cell);
      } else {
        throw std::runtime_error(source + ": line " + std::to_string(rec.line) + ", column '" +
                                 shortCell(names[c]) + "' (" + std::to_string(c + 1) + "): '" +
                                 shortCell(cell) + "' is not a number");
      }
    }
  };
  if (!table.has_header) addRow(first);
  if (have_second) {
    addRow(second);
    Record rec;
    while (tok.next(rec)) {
      if (!rec.blank()) addRow(rec);
    }
  }
  if (rows == 0) throw std::runtime_error(source + " has a header but no data rows");

  std::vector<size_t> keep;
  for (size_t c = 0; c < static_cast<size_t>(ncols); ++c) {
    if (kinds[c] == ColumnKind::Date) {
      table.skipped_columns.push_back(names[c]);
      table.date_columns.push_back(names[c]);
      table.date_cells.push_back(std::move(texts[c]));
    } else if (kinds[c] == ColumnKind::Numeric) {
      keep.push_back(c);
    } else if (named[c]) {
      throw std::runtime_error(source + ": column '" + shortCell(names[c]) + "' (" +
                               std::to_string(c + 1) + ") has no values");
    }  // an unnamed, empty column (trailing separator) is dropped
  }
  if (keep.empty()) throw std::runtime_error(source + " has no numeric column");
  keep = setAsideTimeColumns(keep, names, cols, table);

  for (size_t c : keep) {
    table.filled += fillMissing(cols[c]);
    table.columns.push_back(names[c]);
    table.source_columns.push_back(static_cast<int64_t>(c) + 1);
  }
  table.rows = rows;
  table.values.resize(static_cast<size_t>(rows) * keep.size());
  for (size_t k = 0; k < keep.size(); ++k) {
    for (int64_t r = 0; r < rows; ++r) {
      table.values[static_cast<size_t>(r) * keep.size() + k] =
          cols[keep[k]][static_cast<size_t>(r)];
    }
  }
  return table;
}

CsvTable parseCsv(std::istream& in, const std::string& source, const CsvLimits& limits) {
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(text.size()) > limits.max_bytes) break;  // parseCsv reports it
  }
  return parseCsv(text, source, limits);
}

CsvTable readCsvFile(const std::string& path, const CsvLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the CSV file");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<int64_t>(in.tellg());
  if (size > limits.max_bytes) {
    throw std::runtime_error(path + " is " + std::to_string(size) + " bytes; the limit is " +
                             std::to_string(limits.max_bytes) + " bytes");
  }
  in.seekg(0, std::ios::beg);
  return parseCsv(in, path, limits);
}

}  // namespace rsalab
