// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/core/io/calendar.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/core/io/text.h"

namespace rsalab {
namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kWeek = 7 * kDay;
constexpr double kGapShare = 0.05;  // gaps of missing rows tolerated in at most 5 % of the steps

int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant's algorithms).
int64_t daysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = floorDiv(y, 400);
  const int64_t yoe = y - era * 400;                                    // [0, 399]
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + doe - 719468;
}

void civilFromDays(int64_t z, CalendarTime& t) {
  z += 719468;
  const int64_t era = floorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  t.year = yoe + era * 400 + (t.month <= 2 ? 1 : 0);
}

bool leapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int daysInMonth(int64_t y, int m) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leapYear(y) ? 29 : days[m - 1];
}

// Monday 0 .. Sunday 6 (1970-01-01 was a Thursday).
int weekday(int64_t days) { return static_cast<int>(floorDiv(days + 3, 7) * -7 + days + 3); }

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool done() const { return i_ == s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  // Between `least` and `most` digits (the caller checks what follows them).
  bool digits(size_t least, size_t most, int64_t& v) {
    size_t n = 0;
    v = 0;
    while (n < most && std::isdigit(static_cast<unsigned char>(peek()))) {
      v = v * 10 + (s_[i_++] - '0');
      ++n;
    }
    return n >= least;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// hh:mm[:ss[.000…]] after a date; false when malformed.
bool parseClock(Cursor& in, int64_t& second) {
  int64_t h, m, s = 0;
  if (!in.digits(2, 2, h) || !in.eat(':') || !in.digits(2, 2, m)) return false;
  if (in.eat(':')) {
    if (!in.digits(2, 2, s)) return false;
    if (in.eat('.')) {  // a fraction of a second: only zeros (the steps are whole seconds)
      int64_t f;
      if (!in.digits(1, 9, f) || f != 0) return false;
    }
  }
  if (h > 23 || m > 59 || s > 59) return false;
  second = h * 3600 + m * 60 + s;
  return true;
}

// Z, ±hh, ±hhmm or ±hh:mm: the seconds to subtract for UTC.
bool parseOffset(Cursor& in, int64_t& offset) {
  offset = 0;
  if (in.done()) return true;
  if (in.eat('Z') || in.eat('z')) return true;
  const int sign = in.eat('+') ? 1 : in.eat('-') ? -1 : 0;
  int64_t h, m = 0;
  if (sign == 0 || !in.digits(2, 2, h)) return false;
  const bool colon = in.eat(':');
  if ((colon || !in.done()) && !in.digits(2, 2, m)) return false;
  if (h > 23 || m > 59) return false;
  offset = sign * (h * 3600 + m * 60);
  return true;
}

struct Step {
  enum Unit { Months, Weeks52, Seconds, BusinessDays };
  Unit unit = Seconds;
  int64_t count = 0;
  bool operator<(const Step& o) const { return unit != o.unit ? unit < o.unit : count < o.count; }
};

std::string plural(int64_t n, const std::string& unit) {
  return std::to_string(n) + " " + unit + (n == 1 ? "" : "s");
}

std::string describe(const Step& s) {
  const int64_t n = std::abs(s.count);
  std::string text;
  switch (s.unit) {
    case Step::Months:
      text = n % 12 == 0 && n > 0 ? plural(n / 12, "year") : plural(n, "month");
      break;
    case Step::Weeks52:
      text = std::to_string(n) + "/52 year";
      break;
    case Step::BusinessDays:
      text = plural(n, "business day");
      break;
    case Step::Seconds: {
      const int64_t parts[] = {n / kDay, n % kDay / 3600, n % 3600 / 60, n % 60};
      const char* names[] = {"day", "hour", "minute", "second"};
      for (int k = 0; k < 4; ++k)
        if (parts[k] > 0) text += (text.empty() ? "" : " ") + plural(parts[k], names[k]);
      if (text.empty()) text = "0 seconds";
    }
  }
  if (s.count == 0) return "0 (a repeated time)";
  return s.count < 0 ? "back " + text : text;
}

// The calendar period of a step, and its name ("monthly"); false when it has none.
bool periodOf(const Step& s, int64_t& period, std::string& name) {
  const int64_t n = s.count;
  if (n <= 0) return false;
  switch (s.unit) {
    case Step::Months:
      if (n % 12 == 0) {
        period = 1;
        name = n == 12 ? "yearly" : std::to_string(n / 12) + "-yearly";
        return true;
      }
      if (12 % n != 0) return false;
      period = 12 / n;
      name = n == 1   ? "monthly"
             : n == 3 ? "quarterly"
             : n == 6 ? "half-yearly"
                      : std::to_string(n) + "-monthly";
      return true;
    case Step::Weeks52:
      if (52 % n != 0) return false;
      period = 52 / n;
      name = n == 1 ? "weekly" : std::to_string(n) + "-weekly";
      return true;
    case Step::BusinessDays:
      if (n != 1) return false;
      period = 5;
      name = "business-day";
      return true;
    case Step::Seconds:
      if (n % kWeek == 0) return periodOf({Step::Weeks52, n / kWeek}, period, name);
      if (n == kDay) {
        period = 7;
        name = "daily";
        return true;
      }
      if (n < kDay && n % 60 == 0 && kDay % n == 0) {  // the daily cycle
        period = kDay / n;
        name = n == 3600       ? "hourly"
               : n % 3600 == 0 ? std::to_string(n / 3600) + "-hour"
                               : std::to_string(n / 60) + "-minute";
        return true;
      }
      return false;
  }
  return false;
}

// The step from a to b (see the header).
Step stepBetween(const CalendarTime& a, const CalendarTime& b) {
  const bool month_end =
      a.day == daysInMonth(a.year, a.month) && b.day == daysInMonth(b.year, b.month);
  if (a.second == b.second && (a.day == b.day || month_end) && a.monthIndex() != b.monthIndex())
    return {Step::Months, b.monthIndex() - a.monthIndex()};
  return {Step::Seconds, b.epochSeconds() - a.epochSeconds()};
}

struct Pair {
  int64_t from, to;  // 0-based rows
  Step step;
};

// The period of a column from the steps between its rows with times (see the header).
CalendarPeriod analyse(const std::string& column, const std::vector<Pair>& pairs) {
  CalendarPeriod out;
  out.column = column;
  const std::string name = "the time column '" + column + "'";
  std::map<Step, int64_t> counts;
  for (const auto& p : pairs)
    if (p.to - p.from == 1) ++counts[p.step];
  if (counts.empty()) {
    out.problem = name + " has fewer than two adjacent rows with times";
    return out;
  }
  const auto base =
      std::max_element(counts.begin(), counts.end(), [](const auto& x, const auto& y) {
        return x.second < y.second;
      })->first;
  if (base.count <= 0) {
    out.problem =
        "the times in " + name + " do not increase: " + describe(base) + " between most rows";
    return out;
  }
  for (const auto& p : pairs) {
    const int64_t rows = p.to - p.from;
    const bool multiple = p.step.unit == base.unit && p.step.count % base.count == 0;
    const int64_t k = multiple ? p.step.count / base.count : 0;
    if (k > rows) {
      ++out.gaps;
    } else if (k != rows) {
      out.problem = name + " has uneven steps: " + describe(base) + " between most rows, " +
                    describe(p.step) + " from data row " + std::to_string(p.from + 1) + " to " +
                    std::to_string(p.to + 1);
      out.gaps = 0;
      return out;
    }
  }
  const auto allowed = static_cast<int64_t>(kGapShare * static_cast<double>(pairs.size()));
  if (out.gaps > allowed) {
    out.problem = name + " has " + plural(out.gaps, "gap") + " (missing rows) in " +
                  std::to_string(pairs.size()) + " steps of " + describe(base) + ", more than 5 %";
    out.gaps = 0;
    return out;
  }
  if (!periodOf(base, out.period, out.step)) {
    out.problem = name + " has steps of " + describe(base) + ", which have no calendar season";
    out.gaps = 0;
  }
  return out;
}

bool timeNamedYear(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "year";
}

std::string shortText(const std::string& s) { return s.size() > 40 ? s.substr(0, 40) + "..." : s; }

}  // namespace

int64_t CalendarTime::days() const { return daysFromCivil(year, month, day); }

std::optional<CalendarTime> parseCalendarTime(std::string_view cell) {
  while (!cell.empty() && std::isspace(static_cast<unsigned char>(cell.front())))
    cell.remove_prefix(1);
  while (!cell.empty() && std::isspace(static_cast<unsigned char>(cell.back())))
    cell.remove_suffix(1);
  Cursor in(cell);
  CalendarTime t;
  const bool negative = in.eat('-');
  if (!negative) in.eat('+');
  int64_t year, month = 1, day = 1;
  if (!in.digits(1, 6, year)) return std::nullopt;
  t.year = negative ? -year : year;
  if (in.done()) return t;  // a year as text
  // YYYY-Qn, YYYY Qn, YYYYQn
  {
    Cursor q = in;
    if (!q.eat('-')) q.eat(' ');
    if (q.eat('Q') || q.eat('q')) {
      int64_t n;
      if (!q.digits(1, 1, n) || n < 1 || n > 4 || !q.done()) return std::nullopt;
      t.month = static_cast<int>(3 * n - 2);
      return t;
    }
  }
  const char sep = in.peek();
  if (!(sep == '-' || sep == '/') || !in.eat(sep) || !in.digits(2, 2, month) || month < 1 ||
      month > 12)
    return std::nullopt;
  t.month = static_cast<int>(month);
  if (in.done()) return t;  // YYYY-MM
  if (!in.eat(sep) || !in.digits(2, 2, day) || day < 1 || day > daysInMonth(t.year, t.month))
    return std::nullopt;
  t.day = static_cast<int>(day);
  if (in.done()) return t;  // YYYY-MM-DD
  if (!(in.eat('T') || in.eat('t') || in.eat(' '))) return std::nullopt;
  while (in.eat(' ')) {
  }
  int64_t offset = 0;
  if (!parseClock(in, t.second) || !parseOffset(in, offset) || !in.done()) return std::nullopt;
  if (offset != 0) {  // to UTC
    const int64_t utc = t.epochSeconds() - offset;
    civilFromDays(floorDiv(utc, kDay), t);
    t.second = utc - floorDiv(utc, kDay) * kDay;
  }
  return t;
}

std::string CalendarPeriod::rule() const {
  if (period < 1) return "";
  std::string r = "from the time column '" + column + "' (" + step + " steps";
  if (gaps > 0) r += ", " + plural(gaps, "gap") + " of missing rows";
  if (period == 1) r += ": no season; seasonal naive = persistence";
  return r + ")";
}

CalendarPeriod periodFromDates(const std::string& column, const std::vector<std::string>& cells) {
  std::vector<std::pair<int64_t, CalendarTime>> times;
  for (size_t r = 0; r < cells.size(); ++r) {
    if (isMissingCell(cells[r])) continue;
    const auto t = parseCalendarTime(cells[r]);
    if (!t) {
      CalendarPeriod out;
      out.column = column;
      out.problem = "the time column '" + column + "' does not parse: '" + shortText(cells[r]) +
                    "' (data row " + std::to_string(r + 1) +
                    ") is no ISO date or date-time, YYYY-MM or YYYY-Qn";
      return out;
    }
    times.emplace_back(static_cast<int64_t>(r), *t);
  }
  // Weekday-only daily data: one time of day, Monday to Friday, a Friday followed by a Monday.
  bool business = times.size() >= 2, friday_to_monday = false;
  for (size_t k = 0; business && k < times.size(); ++k) {
    const auto& t = times[k].second;
    business = t.second == times[0].second.second && weekday(t.days()) < 5;
    if (business && k > 0) {
      const int64_t from = times[k - 1].second.days();
      friday_to_monday |= weekday(from) == 4 && t.days() - from == 3;
    }
  }
  business = business && friday_to_monday;
  auto businessDay = [](int64_t days) { return floorDiv(days + 3, 7) * 5 + weekday(days); };
  std::vector<Pair> pairs;
  for (size_t k = 1; k < times.size(); ++k) {
    const auto& [from, a] = times[k - 1];
    const auto& [to, b] = times[k];
    pairs.push_back({from, to,
                     business
                         ? Step{Step::BusinessDays, businessDay(b.days()) - businessDay(a.days())}
                         : stepBetween(a, b)});
  }
  return analyse(column, pairs);
}

CalendarPeriod periodFromYears(const std::string& column, const std::vector<double>& values) {
  CalendarPeriod out;
  out.column = column;
  const std::string name = "the time column '" + column + "'";
  std::vector<std::pair<int64_t, double>> years;
  for (size_t r = 0; r < values.size(); ++r)
    if (std::isfinite(values[r])) years.emplace_back(static_cast<int64_t>(r), values[r]);
  const bool named = timeNamedYear(column);
  for (const auto& [row, v] : years) {
    if (!named && !(v >= 1000 && v < 3000)) {
      std::ostringstream s;
      s.precision(10);
      s << name << " holds numbers that are not calendar years (" << v << " on data row " << row + 1
        << "; years lie in 1000 .. 2999, or the column is named 'year')";
      out.problem = s.str();
      return out;
    }
  }
  // Ticks of 1/12 year (whole and fractional years in months), else of 1/52 year (weeks).
  const std::pair<Step::Unit, int> scales[] = {{Step::Months, 12}, {Step::Weeks52, 52}};
  for (const auto& [unit, per_year] : scales) {
    std::vector<int64_t> ticks;
    for (const auto& [row, v] : years) {
      const double x = v * per_year;
      if (std::abs(x - std::round(x)) > 0.02) break;
      ticks.push_back(std::llround(x));
    }
    if (ticks.size() != years.size()) continue;
    std::vector<Pair> pairs;
    for (size_t k = 1; k < years.size(); ++k)
      pairs.push_back({years[k - 1].first, years[k].first, {unit, ticks[k] - ticks[k - 1]}});
    return analyse(column, pairs);
  }
  out.problem = name + " holds fractional years in steps of neither months (1/12) nor weeks (1/52)";
  return out;
}

CalendarPeriod calendarPeriod(const CsvTable& table) {
  std::vector<CalendarPeriod> tried;
  for (size_t k = 0; k < table.date_columns.size() && k < table.date_cells.size(); ++k)
    tried.push_back(periodFromDates(table.date_columns[k], table.date_cells[k]));
  for (size_t k = 0; k < table.time_columns.size() && k < table.time_values.size(); ++k)
    tried.push_back(periodFromYears(table.time_columns[k], table.time_values[k]));
  for (const auto& t : tried)
    if (t.period > 0) return t;
  CalendarPeriod none;
  for (const auto& t : tried)
    if (none.column.empty()) none.column = t.column;
  none.problem = joined(tried, "; ", [](const CalendarPeriod& t) { return t.problem; });
  return none;
}

}  // namespace rsalab
