// SPDX-License-Identifier: GPL-3.0-or-later
// The RSA paper's own table, measured here (rsalab-cli paper-table, the GUI's paper-table preset):
// the published numbers (one table, each row with its source), the verdict of RSA against the
// Transformer per horizon, and the Markdown of docs/PAPER_TABLE.md, rendered from the run's JSON
// so that the docs' numbers are the run's (a test fails when the block and
// docs/data/paper_table.json disagree). The protocol: engine/core/forecast/long_horizon.h. Plain
// C++.
//
// The JSON (written by app/cli/cli_paper_table.cpp, read here):
//   settings: series, input_length, horizons, seeds, univariate_horizon, d_model, heads, layers,
//             epochs, patience, batch_size, learning_rate, parallel, threads_per_run, anchors,
//             models, machine (a line on the CPUs and what shared them)
//   seconds:  the whole command's wall time
//   added_seconds: (a table extended by --extend) the wall time of the added runs alone
//   informer: (tables with the Informer pair) its size, budget, horizons, seeds and lengths, and
//             the measured estimate of the paper size's time (paper_table_informer.cpp)
//   rows:     one per (model, features, horizon, train_fraction, norm): model, kind (model |
//             forecaster (the Informer pair) | reference | anchor), input_length (a row whose
//             L is not the table's), features (M | S), horizon, train_fraction, norm (what the
//             networks see: global, window or revin; absent in older tables: global),
//             train_windows, runs [{seed,
//             mse, mae, ot_mse, validation, epochs, seconds}], and mse / mae / ot_mse as
//             {mean, low, high} over the runs (95 % Student-t interval; one run: no interval)
//   verdicts: [{horizon, claim, verdict (holds | does not hold | inconclusive | undecided),
//             detail}] (the global rows), informer_verdicts (the same for RSA-Informer against
//             Informer, or absent), norm_verdicts (the same per other normalisation, with
//             norm; absent without such rows) and sample_efficiency_verdict (the same, or absent)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/sweep/sweep_types.h"
#include "engine/core/verdicts/claims.h"

namespace rsalab {

// A published result, shown beside ours and never mixed with them: their model size, their
// lookback, their code.
struct PublishedResult {
  const char* model;     // as the source names it ("Informer", "RSA-Informer", "DLinear", …)
  const char* series;    // a bundled series name: etth1 | etth2
  const char* features;  // "M" | "S"
  int64_t horizon;
  double mse;            // test MSE in z units, as printed by the source
  const char* source;    // short citation, expanded in publishedSources()
  const char* lookback;  // the input length the source used, in words
};
const std::vector<PublishedResult>& publishedResults();
// The sources' short names with their full references (one line each).
const std::vector<std::pair<const char*, const char*>>& publishedSources();

extern const char* const kPaperTableBlockBegin;  // <!-- paper-table: begin … -->
extern const char* const kPaperTableBlockEnd;    // <!-- paper-table: end -->

// One run of one model: what the table needs of it.
struct PaperRun {
  std::string model;
  std::string features;  // "M" | "S"
  int64_t horizon = 0;
  double train_fraction = 1.0;
  int64_t train_windows = 0;
  uint64_t seed = 0;
  double mse = 0, mae = 0, ot_mse = 0, validation = 0;
  int64_t epochs = 0;
  double seconds = 0;
  std::string norm = "global";  // NormMode name: what the network saw (references: global)
  int64_t input_length = 0;     // L of a run whose L is not the table's (Informer's lengths)
};

// "better's test MSE is lower than than's at horizon H": the verdicts rule over seeds
// (sampleEfficiencyVerdict: each seed one paired log-ratio, an exact sign test; holds needs at
// least kSignTestMinSeeds agreeing seeds) on the runs with `features` at `horizon` and full data.
// Only the runs under `norm` count (the claim names a norm other than global).
ClaimVerdict horizonVerdict(const std::vector<PaperRun>& runs, const std::string& better,
                            const std::string& than, int64_t horizon,
                            const std::string& features = "M", const std::string& norm = "global");
// The sample-efficiency claim on the runs with features M at `horizon` over their train
// fractions (N = the windows each run trained on).
ClaimVerdict paperSampleEfficiencyVerdict(const std::vector<PaperRun>& runs,
                                          const std::string& better, const std::string& than,
                                          int64_t horizon);
// "holds" | "does not hold" | "inconclusive" | "undecided".
std::string verdictWord(const ClaimVerdict& v);

// The JSON's rows from the runs: grouped by (model, features, horizon, fraction) in first-seen
// order, with the mean and 95 % interval over the runs (the seeds). `kind` per model name:
// "reference" for persistence, "anchor" for the anchors' names, "model" otherwise.
std::string paperRowsJson(const std::vector<PaperRun>& runs,
                          const std::vector<std::string>& anchor_names);
// The runs back from a table JSON's rows (for extending a table with more runs); anchor_names:
// the rows of kind anchor. Throws std::runtime_error naming a missing key.
std::vector<PaperRun> paperRunsFromJson(const std::string& table_json,
                                        std::vector<std::string>* anchor_names = nullptr);

// What the figure of MSE against horizon draws, read from the table JSON: per trained model and
// reference (features M, full data) its mean test MSE with the 95 % interval at each horizon, and
// the published points of the same series and features, one series per (model, source).
struct PaperCurve {
  std::string label;
  bool published = false;
  std::vector<double> horizon, mse, low, high;  // low / high NaN without an interval
};
std::vector<PaperCurve> paperTableCurves(const std::string& table_json);
// The sample-efficiency curve's runs as sweep rows (model, N = train windows, seed, test MSE),
// for the sweep's sample-efficiency figure (app/figures/sweep_figures.h): the trained models at the
// table's efficiency_horizon, every fraction; empty when the table has no curve.
std::vector<SweepRow> paperEfficiencyRows(const std::string& table_json);
std::string paperTableTitle(const std::string& table_json);

// The Markdown: caption, the MSE table (ours with intervals, the published rows beside them,
// each with its source), the OT-channel table beside the anchors, the univariate row, the
// verdicts, the sample-efficiency table and the time. Throws std::runtime_error naming the key
// of a malformed table.
std::string paperTableMarkdown(const std::string& table_json);
// The same between the block markers, for docs/PAPER_TABLE.md.
std::string paperTableBlock(const std::string& table_json);

}  // namespace rsalab
