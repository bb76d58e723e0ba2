// SPDX-License-Identifier: GPL-3.0-or-later
// CsvReader: separators, header and date-column detection, BOM, line endings, quotes, missing
// values, errors that name the line and column, and the size limits. The calendar of a time
// column: its cells parsed, its step, the period the step gives or why there is none.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/core/io/calendar.h"
#include "engine/core/io/csv_reader.h"
#include "support/test_support.h"
#include "support/throws.h"

using namespace rsalab;
using rsalab::test::contains;
using rsalab::test::errorOf;

namespace {
std::vector<double> column(const CsvTable& t, int64_t c) {
  std::vector<double> v;
  for (int64_t r = 0; r < t.rows; ++r) v.push_back(t.at(r, c));
  return v;
}

std::string twoDigits(int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); }

// `n` times from 2021-03-01 00:00 (a Monday), `step` seconds apart, as "YYYY-MM-DD hh:mm:ss".
std::vector<std::string> clockTimes(int64_t n, int64_t step) {
  static const int lengths[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};  // 2021–2023
  std::vector<std::string> out;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t s = k * step, second = s % 86400;
    int64_t year = 2021, month = 3, day = 1 + s / 86400;
    while (day > lengths[month - 1]) {
      day -= lengths[month - 1];
      if (++month > 12) month = 1, ++year;
    }
    out.push_back(std::to_string(year) + "-" + twoDigits(month) + "-" + twoDigits(day) + " " +
                  twoDigits(second / 3600) + ":" + twoDigits(second % 3600 / 60) + ":" +
                  twoDigits(second % 60));
  }
  return out;
}

std::vector<std::string> months(int64_t first_year, int64_t n, int64_t step = 1) {
  std::vector<std::string> out;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t m = k * step;
    out.push_back(std::to_string(first_year + m / 12) + "-" + twoDigits(m % 12 + 1));
  }
  return out;
}

bool sameTime(const std::optional<CalendarTime>& t, int64_t year, int month, int day,
              int64_t second = 0) {
  return t && *t == CalendarTime{year, month, day, second};
}

}  // namespace

class TestCsvReader : public QObject {
  Q_OBJECT
 private slots:
  void singleColumnWithoutHeader() {
    const auto t = parseCsv("1\n2.5\n-3\n");
    QVERIFY(!t.has_header);
    QCOMPARE(t.rows, int64_t{3});
    QCOMPARE(t.columns, std::vector<std::string>{"column 1"});
    QCOMPARE(column(t, 0), (std::vector<double>{1, 2.5, -3}));
  }

  void headerDetectedAndDateColumnSkipped() {
    const auto t = parseCsv("date,temp,load\n2024-01-01,1.5,10\n2024-01-02,2.5,11\n");
    QVERIFY(t.has_header);
    QCOMPARE(t.columns, (std::vector<std::string>{"temp", "load"}));
    QCOMPARE(t.source_columns, (std::vector<int64_t>{2, 3}));
    QCOMPARE(t.skipped_columns, std::vector<std::string>{"date"});
    QCOMPARE(column(t, 0), (std::vector<double>{1.5, 2.5}));
    QCOMPARE(column(t, 1), (std::vector<double>{10, 11}));
  }

  void numericTimeColumnIsSetAside() {
    // Named like a time index, or strictly increasing in equal steps: not a series.
    auto t = parseCsv("year,value\n1871,3.5\n1872,2\n1874,4\n");
    QCOMPARE(t.columns, std::vector<std::string>{"value"});
    QCOMPARE(t.skipped_columns, std::vector<std::string>{"year"});
    QCOMPARE(t.time_columns, std::vector<std::string>{"year"});
    QCOMPARE(t.time_values[0], (std::vector<double>{1871, 1872, 1874}));
    t = parseCsv("k,load\n0.5,10\n1.0,12\n1.5,11\n2.0,15\n");
    QCOMPARE(t.columns, std::vector<std::string>{"load"});
    QCOMPARE(t.time_columns, std::vector<std::string>{"k"});
    t = parseCsv("1,5\n2,7\n3,6\n");  // no header: the evenly spaced first column
    QCOMPARE(t.columns, std::vector<std::string>{"column 2"});
    // A series that merely rises (unequal steps) stays; so does a lone evenly spaced column.
    QCOMPARE(parseCsv("a,b\n1,5\n2,7\n4,6\n").columns, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(parseCsv("ramp\n1\n2\n3\n").columns, std::vector<std::string>{"ramp"});
    // Only named and spaced columns: the named one is set aside, the other kept.
    t = parseCsv("index,x\n1,10\n2,20\n3,30\n");
    QCOMPARE(t.columns, std::vector<std::string>{"x"});
    QCOMPARE(t.time_columns, std::vector<std::string>{"index"});
  }

  void dateCellsAreKeptForTheCalendar() {
    const auto t = parseCsv("date,v\n,1\nNA,2\n2024-01-03,3\n2024-01-04,4\nx,5\n");
    QCOMPARE(t.columns, std::vector<std::string>{"v"});
    QCOMPARE(t.date_columns, std::vector<std::string>{"date"});
    QCOMPARE(t.date_cells.size(), size_t{1});
    // One cell per row, those before the first date missing; the calendar judges the rest.
    QCOMPARE(t.date_cells[0], (std::vector<std::string>{"", "", "2024-01-03", "2024-01-04", "x"}));
  }

  void dateColumnWithoutHeaderIsSkipped() {
    const auto t = parseCsv("2024-01-01 00:00,1\n2024-01-01 01:00,2\n01/02/2024,3\n");
    QVERIFY(!t.has_header);
    QCOMPARE(t.rows, int64_t{3});
    QCOMPARE(t.columns, std::vector<std::string>{"column 2"});
    QCOMPARE(column(t, 0), (std::vector<double>{1, 2, 3}));
  }

  void bomAndCrlf() {
    const auto t = parseCsv(
        "\xEF\xBB\xBF"
        "a,b\r\n1,2\r\n3,4\r\n");
    QCOMPARE(t.columns, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(t.rows, int64_t{2});
    QCOMPARE(column(t, 1), (std::vector<double>{2, 4}));
  }

  void oldMacLineEndings() {
    const auto t = parseCsv("x\r1\r2\r");
    QCOMPARE(t.rows, int64_t{2});
    QCOMPARE(column(t, 0), (std::vector<double>{1, 2}));
  }

  void semicolonSeparatorWithDecimalComma() {
    const auto t = parseCsv("time;a;b\n12:00;1,5;2\n12:30;3;4,25\n");
    QCOMPARE(t.separator, ';');
    QCOMPARE(t.columns, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(column(t, 0), (std::vector<double>{1.5, 3}));
    QCOMPARE(column(t, 1), (std::vector<double>{2, 4.25}));
  }

  void tabSeparator() {
    const auto t = parseCsv("a\tb\n1\t2\n");
    QCOMPARE(t.separator, '\t');
    QCOMPARE(t.columns.size(), size_t{2});
    QCOMPARE(t.at(0, 1), 2.0);
  }

  void quotedFields() {
    const auto t = parseCsv("\"price, EUR\",\"say \"\"hi\"\"\"\n\"1.5\", 2 \n");
    QCOMPARE(t.columns, (std::vector<std::string>{"price, EUR", "say \"hi\""}));
    QCOMPARE(t.at(0, 0), 1.5);
    QCOMPARE(t.at(0, 1), 2.0);
  }

  void numberFormats() {
    const auto t = parseCsv("v\n+1.5\n-2e3\n1E-2\n.5\n");
    QCOMPARE(column(t, 0), (std::vector<double>{1.5, -2000, 0.01, 0.5}));
  }

  void missingValuesCarriedForward() {
    const auto t = parseCsv("a,b\n1,\n2,NA\n,5\nNaN,6\nN/A,null\n");
    QCOMPARE(column(t, 0), (std::vector<double>{1, 2, 2, 2, 2}));
    // Before the first value: filled with the first value.
    QCOMPARE(column(t, 1), (std::vector<double>{5, 5, 5, 6, 6}));
    QCOMPARE(t.filled, int64_t{6});
  }

  void blankLinesAreIgnored() {
    const auto t = parseCsv("a\n\n1\n   \n2\n\n");
    QCOMPARE(column(t, 0), (std::vector<double>{1, 2}));
  }

  void nonNumericCellNamesLineAndColumn() {
    const auto msg = errorOf<std::runtime_error>([] { parseCsv("a,b\n1,2\n3,x7\n", "data.csv"); });
    QVERIFY2(contains(msg, "data.csv"), msg.c_str());
    QVERIFY2(contains(msg, "line 3"), msg.c_str());
    QVERIFY2(contains(msg, "column 'b' (2)"), msg.c_str());
    QVERIFY2(contains(msg, "'x7'"), msg.c_str());
    // Physical lines: blank lines and a quoted newline in the header count.
    const auto msg2 = errorOf<std::runtime_error>([] { parseCsv("\"a\nb\",c\n\n1,2\ninf,3\n"); });
    QVERIFY2(contains(msg2, "line 5"), msg2.c_str());
    QVERIFY2(contains(msg2, "(1)"), msg2.c_str());
    // Without a header the column is named by its index.
    const auto msg3 = errorOf<std::runtime_error>([] { parseCsv("1,2\n3,abc\n"); });
    QVERIFY2(contains(msg3, "line 2") && contains(msg3, "column 'column 2' (2)"), msg3.c_str());
  }

  void dateInNumericColumnIsAnError() {
    const auto msg = errorOf<std::runtime_error>([] { parseCsv("a\n1\n2024-01-01\n"); });
    QVERIFY2(contains(msg, "line 3"), msg.c_str());
  }

  void raggedRowIsAnError() {
    const auto msg = errorOf<std::runtime_error>([] { parseCsv("a,b\n1,2\n3\n"); });
    QVERIFY2(contains(msg, "line 3") && contains(msg, "1 fields"), msg.c_str());
  }

  void emptyColumns() {
    const auto msg = errorOf<std::runtime_error>([] { parseCsv("a,b\n1,\n2,\n"); });
    QVERIFY2(contains(msg, "'b'") && contains(msg, "no values"), msg.c_str());
    const auto t = parseCsv("a,b,\n1,2,\n3,4,\n");  // trailing separator: unnamed column dropped
    QCOMPARE(t.columns, (std::vector<std::string>{"a", "b"}));
  }

  void noDataIsAnError() {
    QVERIFY(contains(errorOf<std::runtime_error>([] { parseCsv(""); }), "no data"));
    QVERIFY(contains(errorOf<std::runtime_error>([] { parseCsv("\n\n"); }), "no data"));
    QVERIFY(contains(errorOf<std::runtime_error>([] { parseCsv("a,b\n"); }), "no data rows"));
    QVERIFY(contains(errorOf<std::runtime_error>([] { parseCsv("date\n2024-01-01\n"); }),
                     "no numeric column"));
  }

  void limits() {
    CsvLimits rows;
    rows.max_rows = 2;
    QVERIFY(parseCsv("a\n1\n2\n", "x", rows).rows == 2);
    auto msg = errorOf<std::runtime_error>([&] { parseCsv("a\n1\n2\n3\n", "x", rows); });
    QVERIFY2(contains(msg, "limit is 2"), msg.c_str());
    CsvLimits cols;
    cols.max_columns = 2;
    msg = errorOf<std::runtime_error>([&] { parseCsv("1,2,3\n", "x", cols); });
    QVERIFY2(contains(msg, "3 columns") && contains(msg, "limit is 2"), msg.c_str());
    CsvLimits bytes;
    bytes.max_bytes = 8;
    msg = errorOf<std::runtime_error>([&] { parseCsv("a\n1\n2\n3\n4\n", "x", bytes); });
    QVERIFY2(contains(msg, "bytes"), msg.c_str());
    std::istringstream in("a\n1\n2\n3\n4\n");
    msg = errorOf<std::runtime_error>([&] { parseCsv(in, "x", bytes); });
    QVERIFY2(contains(msg, "bytes"), msg.c_str());
    // The defaults are the documented ones.
    const CsvLimits d;
    QCOMPARE(d.max_rows, int64_t{10'000'000});
    QCOMPARE(d.max_columns, int64_t{1000});
    QCOMPARE(d.max_bytes, int64_t{64} << 20);
  }

  // Each format of a date cell, and what is not one.
  void calendarCellFormats() {
    QVERIFY(sameTime(parseCalendarTime("2024-02-29"), 2024, 2, 29));  // ISO date
    QVERIFY(sameTime(parseCalendarTime("2024/01/31"), 2024, 1, 31));
    QVERIFY(sameTime(parseCalendarTime("2016-07-01 00:00:00"), 2016, 7, 1));  // date-time
    QVERIFY(sameTime(parseCalendarTime("2016-07-01T13:45"), 2016, 7, 1, 13 * 3600 + 45 * 60));
    QVERIFY(sameTime(parseCalendarTime("2016-07-01 23:59:59.000"), 2016, 7, 1, 86399));
    QVERIFY(sameTime(parseCalendarTime("2016-07-01T01:30:00+02:00"), 2016, 6, 30, 84600));
    QVERIFY(sameTime(parseCalendarTime("2016-06-30T23:00:00-0100"), 2016, 7, 1, 0));
    QVERIFY(sameTime(parseCalendarTime("2016-07-01T12:00:00Z"), 2016, 7, 1, 43200));
    QVERIFY(sameTime(parseCalendarTime("1949-01"), 1949, 1, 1));  // YYYY-MM
    QVERIFY(sameTime(parseCalendarTime("1960-Q3"), 1960, 7, 1));  // YYYY-Qn
    QVERIFY(sameTime(parseCalendarTime("1960 Q4"), 1960, 10, 1));
    QVERIFY(sameTime(parseCalendarTime("1960q1"), 1960, 1, 1));
    QVERIFY(sameTime(parseCalendarTime("-6000-01-01"), -6000, 1, 1));  // treering: 6001 BC
    QVERIFY(sameTime(parseCalendarTime("-999-01-01"), -999, 1, 1));
    QVERIFY(sameTime(parseCalendarTime("0-02-29"), 0, 2, 29));   // year 0 (1 BC) is a leap year
    QVERIFY(sameTime(parseCalendarTime(" 1871 "), 1871, 1, 1));  // a plain year as text
    // Days since 1970-01-01, across the eras and before year 0.
    QCOMPARE(CalendarTime{}.days(), int64_t{0});
    QCOMPARE((CalendarTime{2000, 3, 1, 0}.days()), int64_t{11017});
    QCOMPARE((CalendarTime{1969, 12, 31, 0}.days()), int64_t{-1});
    QCOMPARE((CalendarTime{-6000, 1, 2, 0}.days() - CalendarTime{-6000, 1, 1, 0}.days()),
             int64_t{1});
    QCOMPARE((CalendarTime{-5999, 1, 1, 0}.days() - CalendarTime{-6000, 1, 1, 0}.days()),
             int64_t{366});  // -6000 is divisible by 400: a leap year
    for (const char* bad :
         {"1900-02-29", "2023-02-29", "2024-13", "2024-00", "2024-1", "2024-01-32", "31/01/2024",
          "01/31/2024", "12:30", "2024-01-01T0:00", "2024-01-01 24:00", "2024-01-01 12:00:00.5",
          "1960-Q5", "20240131", "2024-01-01 12:00 PM", "Jan 2024", "", "x"})
      QVERIFY2(!parseCalendarTime(bad), bad);
  }

  // Numeric time columns: plain and fractional years.
  void calendarOfYearColumns() {
    std::vector<double> years, monthly, quarterly, weekly, index;
    for (int k = 0; k < 72; ++k) {
      years.push_back(1871 + k);
      monthly.push_back(std::round((1974 + k / 12.0) * 1e4) / 1e4);  // 1974, 1974.0833, …
      quarterly.push_back(1960 + k / 4.0);
      weekly.push_back(2001 + k / 52.0);
      index.push_back(k);
    }
    auto p = periodFromYears("year", years);
    QCOMPARE(p.period, int64_t{1});
    QCOMPARE(p.rule(), std::string("from the time column 'year' (yearly steps: no season; "
                                   "seasonal naive = persistence)"));
    p = periodFromYears("time", monthly);
    QCOMPARE(p.period, int64_t{12});
    QCOMPARE(p.rule(), std::string("from the time column 'time' (monthly steps)"));
    QCOMPARE(periodFromYears("time", quarterly).period, int64_t{4});
    QCOMPARE(periodFromYears("time", weekly).period, int64_t{52});
    // Decades: whole years, no season.
    QCOMPARE(periodFromYears("time", {1900, 1910, 1920}).period, int64_t{1});
    // A row index is no calendar; nor are years in steps of days.
    p = periodFromYears("t", index);
    QCOMPARE(p.period, int64_t{0});
    QVERIFY2(contains(p.problem, "not calendar years"), p.problem.c_str());
    QCOMPARE(periodFromYears("year", {-500, -499, -498}).period, int64_t{1});  // named: any year
    p = periodFromYears("time", {2000, 2000 + 1 / 365.0, 2000 + 2 / 365.0});
    QVERIFY2(p.period == 0 && contains(p.problem, "neither months"), p.problem.c_str());
  }

  // The step of a date column and the period it gives.
  void calendarPeriodOfEachStep() {
    auto period = [](const std::vector<std::string>& cells) {
      const auto p = periodFromDates("date", cells);
      if (p.period == 0) std::fprintf(stderr, "%s\n", p.problem.c_str());
      return p.period;
    };
    QCOMPARE(period(months(1949, 144)), int64_t{12});  // YYYY-MM
    QCOMPARE(period({"2021-01-31", "2021-02-28", "2021-03-31", "2021-04-30"}), int64_t{12});
    QCOMPARE(period({"2020-01-15", "2020-02-15", "2020-03-15"}), int64_t{12});
    QCOMPARE(period({"1960-Q1", "1960-Q2", "1960-Q3", "1960-Q4", "1961-Q1"}), int64_t{4});
    QCOMPARE(period(months(1960, 20, 3)), int64_t{4});                         // 3 months
    QCOMPARE(period(months(1960, 20, 6)), int64_t{2});                         // half-yearly
    QCOMPARE(period({"1875-01-01", "1876-01-01", "1877-01-01"}), int64_t{1});  // yearly
    QCOMPARE(period({"-6000-01-01", "-5999-01-01", "-5998-01-01"}), int64_t{1});
    QCOMPARE(period(clockTimes(60, 7 * 86400)), int64_t{52});  // weekly
    QCOMPARE(period(clockTimes(60, 86400)), int64_t{7});       // daily
    QCOMPARE(period(clockTimes(60, 3600)), int64_t{24});       // hourly
    QCOMPARE(period(clockTimes(300, 900)), int64_t{96});       // 15 minutes
    QCOMPARE(period(clockTimes(300, 60)), int64_t{1440});      // 1 minute
    // Weekdays only: Friday to Monday is one business day.
    std::vector<std::string> weekdays;
    for (const auto& d : clockTimes(70, 86400)) {
      const auto t = parseCalendarTime(d);
      if ((t->days() + 3) % 7 < 5) weekdays.push_back(d.substr(0, 10));
    }
    QCOMPARE(period(weekdays), int64_t{5});
    const auto hourly = periodFromDates("date", clockTimes(60, 3600));
    QCOMPARE(hourly.rule(), std::string("from the time column 'date' (hourly steps)"));
    // A missing cell is a row without a time; one gap of missing rows in 59 steps is tolerated.
    auto cells = clockTimes(60, 3600);
    cells[10] = "NA";
    QCOMPARE(period(cells), int64_t{24});
    cells = clockTimes(61, 3600);
    cells.erase(cells.begin() + 30);
    const auto gap = periodFromDates("date", cells);
    QCOMPARE(gap.period, int64_t{24});
    QCOMPARE(gap.gaps, int64_t{1});
    QVERIFY2(contains(gap.rule(), "1 gap of missing rows"), gap.rule().c_str());
  }

  // A time column without a calendar period says why (the period is then detected).
  void unevenOrUnparseableTimeColumnsAreReported() {
    auto cells = clockTimes(60, 3600);
    cells[20] = "2021-03-01 20:30:00";  // 19:00, 20:30, 21:00
    auto p = periodFromDates("date", cells);
    QCOMPARE(p.period, int64_t{0});
    QCOMPARE(p.rule(), std::string());
    QVERIFY2(contains(p.problem,
                      "the time column 'date' has uneven steps: 1 hour between most "
                      "rows, 1 hour 30 minutes from data row 20 to 21"),
             p.problem.c_str());
    cells = clockTimes(60, 3600);
    cells[20] = cells[19];
    p = periodFromDates("date", cells);
    QVERIFY2(p.period == 0 && contains(p.problem, "a repeated time"), p.problem.c_str());
    cells = clockTimes(100, 3600);  // 10 gaps in 89 steps: more than 5 %
    for (int k = 0; k < 10; ++k) cells.erase(cells.begin() + 5 + 8 * k);
    p = periodFromDates("date", cells);
    QVERIFY2(p.period == 0 && contains(p.problem, "10 gaps"), p.problem.c_str());
    p = periodFromDates("date", {"2024-01-01", "2024-01-02", "01/03/2024"});
    QCOMPARE(p.period, int64_t{0});
    QVERIFY2(
        contains(p.problem, "the time column 'date' does not parse: '01/03/2024' (data row 3)"),
        p.problem.c_str());
    p = periodFromDates("date", {"2024-03", "2024-02", "2024-01"});  // newest first
    QVERIFY2(p.period == 0 && contains(p.problem, "do not increase"), p.problem.c_str());
    p = periodFromDates("date", clockTimes(30, 2 * 86400));
    QVERIFY2(p.period == 0 && contains(p.problem, "steps of 2 days, which have no calendar season"),
             p.problem.c_str());
    // The table: date columns first, then numeric time columns; none at all says nothing.
    auto t = parseCsv("date,year,v\n2024-01-01,2001,1\n2024-01-02,2002,2\n2024-01-03,2003,3\n");
    QCOMPARE(calendarPeriod(t).period, int64_t{7});
    QCOMPARE(calendarPeriod(t).column, std::string("date"));
    t = parseCsv("date,year,v\n2024-01-01,2001,1\n2024-01-02,2002,2\n2024-01-x,2003,3\n");
    QCOMPARE(calendarPeriod(t).period, int64_t{1});  // the date column does not parse: the years
    QCOMPARE(calendarPeriod(t).column, std::string("year"));
    t = parseCsv(
        "date,v\n2024-01-01,1\n2024-01-02,2\n2024-01-03,3\n2024-01-04 12:00,4\n"
        "2024-01-05,5\n");
    QCOMPARE(calendarPeriod(t).period, int64_t{0});
    QCOMPARE(calendarPeriod(t).column, std::string("date"));
    QVERIFY2(contains(calendarPeriod(t).problem,
                      "uneven steps: 1 day between most rows, 1 day 12 hours from data row 3 to 4"),
             calendarPeriod(t).problem.c_str());
    t = parseCsv("a,b\n1,5\n3,7\n2,6\n");
    QVERIFY(calendarPeriod(t).column.empty() && calendarPeriod(t).problem.empty());
  }

  void streamAndMissingFile() {
    std::istringstream in("v\n1\n2\n");
    QCOMPARE(parseCsv(in).rows, int64_t{2});
    const auto msg = errorOf<std::runtime_error>([] { readCsvFile("/nonexistent/series.csv"); });
    QVERIFY2(contains(msg, "/nonexistent/series.csv"), msg.c_str());
  }
};

RSALAB_TEST_MAIN(TestCsvReader)
#include "test_csv_reader.moc"
