// SPDX-License-Identifier: GPL-3.0-or-later
// The real-series report's Markdown, rendered from its JSON (`rsalab-cli report --json`): the one
// renderer of the CLI's table and of docs/REAL_SERIES.md's generated block, so that the docs'
// numbers are the run's and a test fails when the block and docs/data/real_series_report.json
// disagree. Plain C++ (rsalab_core).
#pragma once

#include <string>

namespace rsalab {

extern const char* const kReportBlockBegin;  // <!-- real-series-report: begin … -->
extern const char* const kReportBlockEnd;    // <!-- real-series-report: end -->

// The table (a row per model, seed ensemble and reference of every series) and the summary (each
// model's seed ensembles beaten / tied / lost, and the model chosen on validation per series);
// the validation-only table when the report's settings say so. Throws std::runtime_error naming
// the key of a malformed report.
std::string realSeriesReportMarkdown(const std::string& report_json);
// The same between the block markers, for docs/REAL_SERIES.md.
std::string realSeriesReportBlock(const std::string& report_json);

}  // namespace rsalab
