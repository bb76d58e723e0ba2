// SPDX-License-Identifier: GPL-3.0-or-later
// CsvReader: separators, header and date-column detection, BOM, line endings, quotes, missing
// values, errors that name the line and column, and the size limits.
#include <sstream>

#include "core/io/csv_reader.h"
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

  void streamAndMissingFile() {
    std::istringstream in("v\n1\n2\n");
    QCOMPARE(parseCsv(in).rows, int64_t{2});
    const auto msg = errorOf<std::runtime_error>([] { readCsvFile("/nonexistent/series.csv"); });
    QVERIFY2(contains(msg, "/nonexistent/series.csv"), msg.c_str());
  }
};

RSALAB_TEST_MAIN(TestCsvReader)
#include "test_csv_reader.moc"
