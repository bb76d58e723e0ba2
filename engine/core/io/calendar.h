// SPDX-License-Identifier: GPL-3.0-or-later
// Calendar times of a CSV time column and the seasonal period its step implies (no LibTorch, no
// Qt, so it is tested on strings).
//
// Date cells (parseCalendarTime), in the proleptic Gregorian calendar with astronomical years
// (year 0 is 1 BC, -6000 is 6001 BC); a year has 1 to 6 digits (treering has -6000, -999, 0, 1)
// and an optional sign:
//   YYYY-MM-DD                       ISO date (also YYYY/MM/DD), e.g. -6000-01-01
//   YYYY-MM-DD hh:mm[:ss[.000]]      ISO date-time, 'T' or a space between; an offset Z, ±hh,
//                                    ±hhmm or ±hh:mm after it is read as UTC
//   YYYY-MM                          a month (its first day; also YYYY/MM)
//   YYYY-Qn, YYYY Qn, YYYYQn         a quarter (its first day)
//   YYYY                             a year written as text (its first day)
// Anything else (day-first or month-first dates, a time without a date, 24:00, a fraction of a
// second) does not parse. Numeric time columns hold years: plain years (1871, 1872, …) or
// fractional years (1974, 1974.0833, …, R's time() of a monthly ts).
//
// The step between two times: a whole number of months when both fall on the same day of the
// month at the same time of day, or both on the last day of their months (so months of 28–31
// days are one month; 31 Jan, 28 Feb, 31 Mar is monthly); otherwise the time between them.
// A column's step is the one between most pairs of adjacent rows. The column is even when every
// other pair of rows with times is that step times the rows between them (a missing cell leaves
// a row without a time, nothing else), except for gaps: a whole multiple of the step longer than
// the rows between (missing rows), in at most 5 % of the pairs. Weekday-only daily data (a step
// of three days from every Friday to the Monday after it, no Saturday or Sunday) is counted in
// business days. Every cell of the column is read (the whole series, not its train part: the
// calendar is not learned from the values).
//
// The period of an even column's step (a season of one year for steps of a week or longer, of
// one day below a day, of one week for days):
//   1 month 12 (monthly) · 2 months 6 · 3 months 4 (quarterly) · 4 months 3 · 6 months 2
//   (half-yearly) · a year or whole years 1 (no season) · 1/52 year or 1 week 52 (weekly) ·
//   2, 4, 13 or 26 weeks 52 / weeks · 1 day 7 (daily) · 1 business day 5 · a whole number of
//   minutes that divides a day: the steps in a day (1 hour 24, 30 minutes 48, 15 minutes 96,
//   1 minute 1440). Any other step (2 days, 5 months, seconds) has no calendar period.
// Numeric time columns are years when named "year" (any case) or when every value lies in
// 1000 .. 2999: whole months (12·v within 0.02 of an integer: fractional years written to 3
// decimals or more) or else weeks of 1/52 year (52·v likewise).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/io/csv_reader.h"

namespace rsalab {

struct CalendarTime {
  int64_t year = 1970;
  int month = 1;         // 1 .. 12
  int day = 1;           // 1 .. 31
  int64_t second = 0;    // of the day, 0 .. 86399 (UTC when the cell had an offset)
  int64_t days() const;  // since 1970-01-01 (negative before)
  int64_t monthIndex() const { return year * 12 + month - 1; }
  int64_t epochSeconds() const { return days() * 86400 + second; }
  bool operator==(const CalendarTime& o) const {
    return year == o.year && month == o.month && day == o.day && second == o.second;
  }
};

// The cell's time, or nothing when it is not one of the formats above (or not a valid date).
std::optional<CalendarTime> parseCalendarTime(std::string_view cell);

// The calendar period of one time column, or why there is none.
struct CalendarPeriod {
  std::string column;   // the time column read ("" when the table has none)
  int64_t period = 0;   // > 0: the calendar's period; 0: none (see problem)
  std::string step;     // the step, for notes: "monthly", "hourly", "15-minute", …
  int64_t gaps = 0;     // tolerated gaps of missing rows
  std::string problem;  // period 0: why ("the time column 'date' has uneven steps: …")
  // "from the time column 'time' (monthly steps)"; "" when period is 0.
  std::string rule() const;
};

// `cells`: a date column's text, one per row ("" or a missing marker: no time in that row).
CalendarPeriod periodFromDates(const std::string& column, const std::vector<std::string>& cells);
// `values`: a numeric time column (NaN: missing).
CalendarPeriod periodFromYears(const std::string& column, const std::vector<double>& values);
// The table's calendar period: its date columns first, then its numeric time columns, each in file
// order; the first that gives a period. None: column "" and problem "" when the table has no time
// column, else the problems of all of them.
CalendarPeriod calendarPeriod(const CsvTable& table);

}  // namespace rsalab
