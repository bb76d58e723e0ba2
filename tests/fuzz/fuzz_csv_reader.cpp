// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness for the CSV reader (engine/core/io/csv_reader.cpp), with small limits so that
// the limit checks are reached too.
#include "engine/core/io/csv_reader.h"
#include "fuzz_harness.h"

RSALAB_FUZZ_TARGET(const std::string& text) {
  rsalab::CsvLimits limits;
  limits.max_rows = 2000;
  limits.max_columns = 64;
  rsalab::parseCsv(text, "fuzz", limits);
}
