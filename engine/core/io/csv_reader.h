// SPDX-License-Identifier: GPL-3.0-or-later
// Reader for user CSV time series (no LibTorch, so it is tested on strings without files).
//
// Accepted: one or more numeric columns; an optional header; date/time columns (skipped);
// UTF-8 BOM; LF, CRLF or CR line endings; comma, semicolon or tab separators; RFC 4180 quoted
// fields ("a ""b""", separators and newlines inside quotes); blank lines (ignored).
//
// Rules, in order:
// - Separator: from the first non-blank line — tab if it has one, else ';' if it has one, else ','.
//   With ';' or tab, a decimal comma is read as a point ("1,5" → 1.5).
// - Header: the first row is a header when one of its cells is text (neither a number, a missing
//   marker nor date-like), or is date-like where the second row has a number. Column names come
//   from it ("column K", K 1-based, when there is no header or the name is empty).
// - Date/time column: a column whose first non-missing cell is not a number but looks like a
//   date or time (a digit and one of - : /, e.g. 2024-01-31, 12:30, 31/01/2024). It is not a
//   series: its cells are kept as text (date_cells) for the calendar (engine/core/io/calendar.h),
//   which reads them. Any other non-numeric cell is an error naming the line and the column.
// - Numeric time column: a numeric column named time, date, year, month, week, day, ds, index or
//   timestamp (any case), or strictly increasing in equal steps (1871, 1872, …), is the time
//   index, not a series: it is set aside too (skipped_columns, time_columns), its values kept so
//   that --target can still choose it. Only while another numeric column is left (named ones
//   first); a file whose only numeric columns look like time keeps them.
// - Missing values: empty cells and NA, N/A, NaN, null, None, #N/A (any case). Each is filled with
//   the previous value of its column; missing values before a column's first value are filled
//   with that first value. A column with no value at all is an error, except an unnamed one
//   (a trailing separator), which is dropped.
// - Every row must have as many fields as the first row.
// - Line numbers in messages are 1-based physical lines of the file, counting the header.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace rsalab {

struct CsvLimits {
  int64_t max_rows = 10'000'000;          // data rows
  int64_t max_columns = 1000;             // fields per row, date columns included
  int64_t max_bytes = int64_t{64} << 20;  // 64 MiB
};

struct CsvTable {
  std::vector<std::string> columns;          // numeric columns kept, in file order
  std::vector<int64_t> source_columns;       // their 1-based column index in the file
  std::vector<std::string> skipped_columns;  // date/time columns left out, numeric ones included
  std::vector<std::string> time_columns;     // the numeric time columns among them
  std::vector<std::vector<double>> time_values;      // their values (possibly missing: NaN)
  std::vector<std::string> date_columns;             // the date/time (text) columns, in file order
  std::vector<std::vector<std::string>> date_cells;  // their cells, one per row, as in the file
  std::vector<double> values;  // rows × columns, row-major, no missing values left
  int64_t rows = 0;
  bool has_header = false;
  char separator = ',';
  int64_t filled = 0;  // missing cells that were filled
  double at(int64_t row, int64_t column) const {
    return values[static_cast<size_t>(row * static_cast<int64_t>(columns.size()) + column)];
  }
};

// A missing cell as parseCsv reads it: empty, NA, N/A, NaN, null, None or #N/A (any case).
bool isMissingCell(const std::string& cell);

// Fills missing values (NaN) as parseCsv does: each with the previous value, a leading gap with
// the first value; returns how many were filled (an all-missing column stays NaN).
int64_t fillMissing(std::vector<double>& values);

// `source` names the input in error messages (e.g. the file name). Throws std::runtime_error.
CsvTable parseCsv(const std::string& text, const std::string& source = "CSV",
                  const CsvLimits& limits = {});
CsvTable parseCsv(std::istream& in, const std::string& source = "CSV",
                  const CsvLimits& limits = {});
CsvTable readCsvFile(const std::string& path, const CsvLimits& limits = {});

}  // namespace rsalab
